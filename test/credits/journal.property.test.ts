import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { editPayment, invoicesOf, ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import {
  clock,
  expectJournalBalances,
  grant,
  grantOf,
  invoice,
  invoiceOf,
  useCreditsService,
  walletOf,
} from './credits.fixtures.ts';
import { instantPlusDays } from '../helpers/clock.ts';

// docs/credits.md, "Wallets": after any sequence of grants, issues, cancellations, credit notes, voids, days, paid
// top-ups and credit notes on them (given and taken back), cash left unallocated, every grant's journal balances (Amount − Remaining =
// Σconsume − Σrelease + Σexpire + Σvoid + Σrefund − Σrefund_undone), what it consumed is what the ledger allocates
// from it, and each invoice's credit is what the grants say they pay on it. After every step the customer's Balance
// is what its invoices owe less its unallocated money (docs/spec-decisions.md, "Money movements"), each invoice owing
// its Total less what the model says paid it. Days pass on the account's test clock, so the daily run writes off
// expired grants (docs/credits.md, "Expiry").
useCreditsService();

const cents = (n: number) => Math.round(n * 100);

/** What the test knows of an invoice it made: its Total, and the money it put on it. */
interface Modelled {
  cents: number;
  cancelled: boolean;
  /** Live credit notes allocated to it, by id, in cents. */
  creditNotes: Map<number, number>;
  /** A top-up's invoice: what its payment pays on it now. */
  paidCents: number;
  /** What the customer's money left unallocated pays on it now: the daily run applied it (docs/credits.md). */
  cashCents: number;
}

/**
 * The reconciliation after a step. Each grant: Remaining = Amount − Consumed − Expired − Voided − Refunded
 * (docs/credits.md, "Grants": Consumed counts releases off), 0 once expired or voided. Each invoice: Balance = Total −
 * what its payment pays − its credit notes − the credit the journal says it took (Σconsume − Σrelease on it); and
 * the customer's Balance = Σ what its invoices not cancelled owe − its payments' money left unallocated. The
 * wallet's balances are what the grants hold.
 */
async function expectReconciled(
  as: TestAccount,
  customerId: number,
  walletId: number,
  invoices: Map<number, Modelled>,
  unallocatedCents: number,
  at: string,
) {
  const held = { paid: 0, granted: 0 };
  for (const g of (await ok(as, 'GET', `/v1/wallets/${walletId}/grants?page_size=200`)) as any[]) {
    const left = cents(g.Amount) - cents(g.Consumed) - cents(g.Expired) - cents(g.Voided) - cents(g.Refunded);
    expect(cents(g.Remaining), `${at}: grant ${g.creditGrantID} ${JSON.stringify(g)}`).toBe(left);
    if (g.Status === 'expired' || g.Status === 'voided') expect(g.Remaining, at).toBe(0);
    held[g.Kind as 'paid' | 'granted'] += cents(g.Remaining);
  }
  // The wallet's balances are what its grants hold, split by kind (docs/credits.md, "Wallets").
  const wallet = await ok(as, 'GET', `/v1/wallets/${walletId}`);
  expect([cents(wallet.PaidBalance), cents(wallet.GrantedBalance), cents(wallet.Balance)], at).toEqual([
    held.paid,
    held.granted,
    held.paid + held.granted,
  ]);
  const creditOn = new Map<number, number>();
  for (const e of (await ok(as, 'GET', `/v1/wallets/${walletId}/entries?page_size=200`)) as any[]) {
    const sign = e.Kind === 'consume' ? 1 : e.Kind === 'release' ? -1 : 0;
    if (sign !== 0) creditOn.set(e.invoiceID, (creditOn.get(e.invoiceID) ?? 0) + sign * cents(e.Amount));
  }
  const read = new Map<number, any>(
    (await invoicesOf(as, customerId)).map((invoice) => [invoice.invoiceID, invoice]),
  );
  expect(read.size, at).toBe(invoices.size);
  let owed = 0;
  for (const [id, modelled] of invoices) {
    const invoice = read.get(id);
    const creditNotes = [...modelled.creditNotes.values()].reduce((sum, c) => sum + c, 0);
    const credit = creditOn.get(id) ?? 0;
    expect(invoice.Status === 'Cancelled', `${at}: invoice ${id} cancelled`).toBe(modelled.cancelled);
    if (modelled.cancelled) {
      expect(credit, `${at}: credit left on cancelled invoice ${id}`).toBe(0);
      continue;
    }
    const owes = modelled.cents - modelled.paidCents - modelled.cashCents - creditNotes - credit;
    expect(cents(invoice.TotalNegativeAdjs), `${at}: invoice ${id} credits`).toBe(creditNotes + credit);
    expect(cents(invoice.Balance), `${at}: invoice ${id} Balance`).toBe(owes);
    expect(owes).toBeGreaterThanOrEqual(0);
    owed += owes;
  }
  const customer = await ok(as, 'GET', `/v1/customers/${customerId}`);
  expect(cents(customer.Balance), `${at}: the customer's Balance`).toBe(owed - unallocatedCents);
}

type Step =
  | { kind: 'grant'; cents: number; priority: number; expiresInDays: number | null }
  | { kind: 'issue'; cents: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'void'; pick: number }
  | { kind: 'creditNote'; pick: number; cents: number }
  | { kind: 'days'; days: number }
  | { kind: 'topUp'; cents: number }
  | { kind: 'cash'; cents: number }
  | { kind: 'creditTopUp'; pick: number; cents: number; takeBack: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('grant' as const),
    cents: fc.integer({ min: 1, max: 2000 }),
    priority: fc.integer({ min: 1, max: 3 }),
    expiresInDays: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
  }),
  fc.record({ kind: fc.constant('issue' as const), cents: fc.integer({ min: 1, max: 3000 }) }),
  fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('void' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('creditNote' as const),
    pick: fc.nat(),
    cents: fc.integer({ min: 1, max: 1500 }),
  }),
  // Twice as likely as the others: grants expire 1 to 4 days after they are made, and only days write them off.
  {
    arbitrary: fc.record({ kind: fc.constant('days' as const), days: fc.integer({ min: 1, max: 3 }) }),
    weight: 2,
  },
  fc.record({ kind: fc.constant('topUp' as const), cents: fc.integer({ min: 1, max: 2000 }) }),
  fc.record({ kind: fc.constant('cash' as const), cents: fc.integer({ min: 1, max: 1500 }) }),
  fc.record({
    kind: fc.constant('creditTopUp' as const),
    pick: fc.nat(),
    cents: fc.integer({ min: 1, max: 2000 }),
    takeBack: fc.boolean(),
  }),
);

let runs = 0;

describe('the credit journal', () => {
  it('balances after any sequence of grants, issues, cancellations, credit notes, voids and days', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        let now = '2026-03-01T10:00:00.000Z';
        // A test account's clock starts at the service's and then moves only with the account's test clock.
        clock.set(now);
        const { as, customerId, walletId } = await walletOf(`Journal shop ${++runs}`, { isTest: true });
        const grants: number[] = [];
        const invoices: number[] = [];
        const modelled = new Map<number, Modelled>();
        const made = (id: number, cents: number, paidCents = 0) =>
          modelled.set(id, { cents, cancelled: false, creditNotes: new Map(), paidCents, cashCents: 0 });
        let unallocatedCents = 0;
        const topUps: { invoiceId: number; paymentId: number; cents: number }[] = [];
        for (const [n, s] of steps.entries()) {
          if (s.kind === 'grant') {
            const expiresAt =
              s.expiresInDays === null ? undefined : instantPlusDays(now, s.expiresInDays).slice(0, 10);
            const made = await grant(as, walletId, {
              Amount: (s.cents / 100).toFixed(2),
              Priority: s.priority,
              ...(expiresAt && expiresAt > now.slice(0, 10) ? { ExpiresAt: expiresAt } : {}),
            });
            grants.push(made.creditGrantID);
          } else if (s.kind === 'issue') {
            const held = cents((await ok(as, 'GET', `/v1/wallets/${walletId}`)).Balance);
            const id = (await invoice(as, customerId, (s.cents / 100).toFixed(2))).invoiceID as number;
            invoices.push(id);
            made(id, s.cents);
            // docs/credits.md, "Consumption order": the customer's unallocated money is kept first, and the grants
            // pay what they can of the rest.
            const expected = Math.min(held, Math.max(0, s.cents - unallocatedCents));
            expect(cents((await invoiceOf(as, id)).TotalNegativeAdjs), `step ${n}: credit on issue`).toBe(
              expected,
            );
          } else if (s.kind === 'cancel' && invoices.length > 0) {
            const id = invoices[s.pick % invoices.length]!;
            const res = await as.request('DELETE', `/v1/invoices/${id}`);
            expect([204, 409]).toContain(res.status);
            if (res.status === 204) modelled.get(id)!.cancelled = true;
          } else if (s.kind === 'void' && grants.length > 0) {
            const res = await as.request('POST', `/v1/credit-grants/${grants[s.pick % grants.length]!}/void`);
            expect([200, 409]).toContain(res.status);
          } else if (s.kind === 'creditNote' && invoices.length > 0) {
            // A credit note takes the place of the credit that paid the invoice; refused (and nothing moved)
            // when it would exceed what the invoice owes.
            const id = invoices[s.pick % invoices.length]!;
            const res = await as.request('POST', '/v1/credits', {
              body: {
                customerID: customerId,
                Amount: (s.cents / 100).toFixed(2),
                CurrencyCode: 'USD',
                Date: now.slice(0, 10),
                allocations: [{ invoiceID: id, amountApplied: (s.cents / 100).toFixed(2) }],
              },
            });
            expect([201, 422]).toContain(res.status);
            if (res.status === 201) modelled.get(id)!.creditNotes.set(res.body.creditNoteID, s.cents);
          } else if (s.kind === 'topUp') {
            const amount = (s.cents / 100).toFixed(2);
            const made = await ok(as, 'POST', `/v1/wallets/${walletId}/top-ups`, { Amount: amount });
            const money = {
              customerID: customerId,
              Amount: amount,
              CurrencyCode: 'USD',
              Date: now.slice(0, 10),
            };
            const payment = await ok(as, 'POST', '/v1/payments', {
              ...money,
              Method: 'eft',
              allocations: [{ invoiceID: made.invoiceID, amountApplied: amount }],
            });
            topUps.push({ invoiceId: made.invoiceID, paymentId: payment.paymentID, cents: s.cents });
            modelled.set(made.invoiceID, {
              cents: s.cents,
              cancelled: false,
              creditNotes: new Map(),
              paidCents: s.cents,
              cashCents: 0,
            });
            grants.push(
              (await ok(as, 'GET', `/v1/wallets/${walletId}/grants?page_size=200`)).at(-1).creditGrantID,
            );
          } else if (s.kind === 'creditTopUp' && topUps.length > 0) {
            // The payment's money moved off the top-up invoice, then a credit note on it takes that much credit
            // out of its grant, or is refused when the grant no longer holds it (docs/credits.md, "Crediting a
            // top-up"); taken back, the credit comes back.
            const topUp = topUps[s.pick % topUps.length]!;
            // All of the payment's money comes off: from the top-up's invoice, and from the invoices the daily run
            // paid with it once it was left unallocated before.
            const held = (await ok(as, 'GET', `/v1/payments/${topUp.paymentId}`)).Allocations as any[];
            await editPayment(as, topUp.paymentId, { Allocations: [] });
            for (const allocation of held) {
              const on = modelled.get(allocation.invoiceID)!;
              if (allocation.invoiceID === topUp.invoiceId) on.paidCents -= cents(allocation.amountApplied);
              else on.cashCents -= cents(allocation.amountApplied);
              unallocatedCents += cents(allocation.amountApplied);
            }
            const onTopUp = modelled.get(topUp.invoiceId)!;
            const amount = (Math.min(s.cents, topUp.cents) / 100).toFixed(2);
            const res = await as.request('POST', '/v1/credits', {
              body: {
                customerID: customerId,
                Amount: amount,
                CurrencyCode: 'USD',
                Date: now.slice(0, 10),
                allocations: [{ invoiceID: topUp.invoiceId, amountApplied: amount }],
              },
            });
            expect([201, 409, 422]).toContain(res.status);
            if (res.status === 201 && s.takeBack)
              await ok(as, 'DELETE', `/v1/credits/${res.body.creditNoteID}`, undefined, 204);
            else if (res.status === 201)
              onTopUp.creditNotes.set(res.body.creditNoteID, Math.min(s.cents, topUp.cents));
          } else if (s.kind === 'cash') {
            // The customer's own money, left unallocated: invoices issued after keep that much open for it, and
            // credit pays only the rest (docs/credits.md, "Consumption order").
            await ok(as, 'POST', '/v1/payments', {
              customerID: customerId,
              Amount: (s.cents / 100).toFixed(2),
              CurrencyCode: 'USD',
              Date: now.slice(0, 10),
              Method: 'cash',
              allocations: [],
            });
            unallocatedCents += s.cents;
          } else if (s.kind === 'days') {
            // The account's test clock runs the daily work of every day it passes, expiry among it, and the pass
            // that pays open invoices from the customer's money not yet applied, the oldest first (paid top-ups' own
            // invoices left alone), then from its grants, which the journal tells (docs/credits.md, "Consumption
            // order").
            const topUpInvoices = new Set(topUps.map((topUp) => topUp.invoiceId));
            const owing = new Map<number, number>(
              (await invoicesOf(as, customerId)).map((read) => [read.invoiceID, cents(read.Balance)]),
            );
            for (const [id, on] of [...modelled].sort(([a], [b]) => a - b)) {
              if (on.cancelled || topUpInvoices.has(id)) continue;
              const applied = Math.min(unallocatedCents, owing.get(id) ?? 0);
              on.cashCents += applied;
              unallocatedCents -= applied;
            }
            now = instantPlusDays(now, s.days);
            await ok(as, 'POST', '/v1/test-clock/advance', { To: now }, 200);
          }
          await expectReconciled(as, customerId, walletId, modelled, unallocatedCents, `step ${n} ${s.kind}`);
        }
        await expectJournalBalances(as, walletId, { writtenOff: true });
        // Each invoice's credit is exactly what the grants pay on it.
        const paidOn = new Map<number, number>();
        for (const id of grants)
          for (const paid of (await grantOf(as, id)).Invoices as any[])
            paidOn.set(paid.invoiceID, (paidOn.get(paid.invoiceID) ?? 0) + cents(paid.Amount));
        for (const id of invoices) {
          const read = await invoiceOf(as, id);
          const creditNotes = [...modelled.get(id)!.creditNotes.values()].reduce((sum, c) => sum + c, 0);
          expect(cents(read.TotalNegativeAdjs), `invoice ${id}`).toBe((paidOn.get(id) ?? 0) + creditNotes);
        }
        const wallet = await ok(as, 'GET', `/v1/wallets/${walletId}`);
        expect(wallet.Balance).toBeGreaterThanOrEqual(0);
      }),
      {
        numRuns: 25,
        // Run first, whatever the seed: credit given back by a credit note, a grant the daily run writes off with
        // 10.00 left, cash kept first on an invoice credit pays the rest of, a top-up's credit refunded, undone, and
        // refunded for good.
        examples: [
          [
            [
              { kind: 'grant', cents: 1500, priority: 1, expiresInDays: 2 },
              { kind: 'issue', cents: 1000 },
              { kind: 'creditNote', pick: 0, cents: 500 },
              { kind: 'days', days: 3 },
              { kind: 'topUp', cents: 2000 },
              { kind: 'cash', cents: 300 },
              { kind: 'issue', cents: 700 },
              { kind: 'creditTopUp', pick: 0, cents: 500, takeBack: true },
              { kind: 'creditTopUp', pick: 0, cents: 1300, takeBack: false },
              { kind: 'cancel', pick: 1 },
            ],
          ],
        ],
      },
    );
    // 25 runs of up to 12 steps, each step reconciled: 7 to 9 s on a quiet machine; room for a loaded one.
  }, 60_000);
});
