import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
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

// docs/credits.md, "Wallets": after any sequence of grants, issues, cancellations, credit notes, voids, days, paid
// top-ups and credit notes on them (given and taken back), every grant's journal balances (Amount − Remaining =
// Σconsume − Σrelease + Σexpire + Σvoid + Σrefund − Σrefund_undone), what it consumed is what the ledger allocates
// from it, and each invoice's credit is what the grants say they pay on it.
useCreditsService();

type Step =
  | { kind: 'grant'; cents: number; priority: number; expiresInDays: number | null }
  | { kind: 'issue'; cents: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'void'; pick: number }
  | { kind: 'creditNote'; pick: number; cents: number }
  | { kind: 'days'; days: number }
  | { kind: 'topUp'; cents: number }
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
  fc.record({ kind: fc.constant('days' as const), days: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('topUp' as const), cents: fc.integer({ min: 1, max: 2000 }) }),
  fc.record({
    kind: fc.constant('creditTopUp' as const),
    pick: fc.nat(),
    cents: fc.integer({ min: 1, max: 2000 }),
    takeBack: fc.boolean(),
  }),
);

const dayAfter = (iso: string, days: number) => new Date(Date.parse(iso) + days * 86_400_000).toISOString();

let runs = 0;

describe('the credit journal', () => {
  it('balances after any sequence of grants, issues, cancellations, credit notes, voids and days', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        let now = '2026-03-01T10:00:00.000Z';
        clock.set(now);
        const { as, customerId, walletId } = await walletOf(`Journal shop ${++runs}`);
        const grants: number[] = [];
        const invoices: number[] = [];
        const creditNotesOn = new Map<number, number>();
        const topUps: { invoiceId: number; paymentId: number; cents: number }[] = [];
        for (const s of steps) {
          if (s.kind === 'grant') {
            const expiresAt =
              s.expiresInDays === null ? undefined : dayAfter(now, s.expiresInDays).slice(0, 10);
            const made = await grant(as, walletId, {
              Amount: (s.cents / 100).toFixed(2),
              Priority: s.priority,
              ...(expiresAt && expiresAt > now.slice(0, 10) ? { ExpiresAt: expiresAt } : {}),
            });
            grants.push(made.creditGrantID);
          } else if (s.kind === 'issue') {
            invoices.push((await invoice(as, customerId, (s.cents / 100).toFixed(2))).invoiceID);
          } else if (s.kind === 'cancel' && invoices.length > 0) {
            const id = invoices[s.pick % invoices.length]!;
            const res = await as.request('DELETE', `/v1/invoices/${id}`);
            expect([204, 409]).toContain(res.status);
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
            if (res.status === 201) creditNotesOn.set(id, (creditNotesOn.get(id) ?? 0) + s.cents);
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
            grants.push(
              (await ok(as, 'GET', `/v1/wallets/${walletId}/grants?page_size=200`)).at(-1).creditGrantID,
            );
          } else if (s.kind === 'creditTopUp' && topUps.length > 0) {
            // The payment's money moved off the top-up invoice, then a credit note on it takes that much credit
            // out of its grant, or is refused when the grant no longer holds it (docs/credits.md, "Crediting a
            // top-up"); taken back, the credit comes back.
            const topUp = topUps[s.pick % topUps.length]!;
            const payment = await ok(as, 'GET', `/v1/payments/${topUp.paymentId}`);
            await ok(as, 'PUT', `/v1/payments/${topUp.paymentId}`, {
              customerID: customerId,
              Amount: payment.Amount,
              CurrencyCode: 'USD',
              Date: payment.Date,
              Method: 'eft',
              Allocations: [],
            });
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
          } else if (s.kind === 'days') {
            now = dayAfter(now, s.days);
            clock.set(now);
          }
        }
        await expectJournalBalances(as, walletId);
        // Each invoice's credit is exactly what the grants pay on it.
        const paidOn = new Map<number, number>();
        for (const id of grants)
          for (const paid of (await grantOf(as, id)).Invoices as any[])
            paidOn.set(paid.invoiceID, (paidOn.get(paid.invoiceID) ?? 0) + Math.round(paid.Amount * 100));
        for (const id of invoices) {
          const read = await invoiceOf(as, id);
          expect(Math.round(read.TotalNegativeAdjs * 100), `invoice ${id}`).toBe(
            (paidOn.get(id) ?? 0) + (creditNotesOn.get(id) ?? 0),
          );
          expect(read.Balance).toBeGreaterThanOrEqual(0);
        }
        const wallet = await ok(as, 'GET', `/v1/wallets/${walletId}`);
        expect(wallet.Balance).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 15 },
    );
  });
});
