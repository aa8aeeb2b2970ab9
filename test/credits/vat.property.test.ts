import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.ts';
import { collectDueInvoices } from '../../src/modules/collections/index.ts';
import { invoicesOf, ok } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import type { TestAccount } from '../helpers/service.ts';
import { clock, grantOf, t, useCreditsService, vatVendor } from './credits.fixtures.ts';
import { instantPlusDays } from '../helpers/clock.ts';

/**
 * VAT charged exactly once on a supply, whatever path the money takes (docs/tax.md, "Prepaid credit" and "Free
 * credit"): after any sequence of paid top-ups (by card or EFT), free grants (some expiring), invoices of one or two
 * lines at 15 % (paid from credit as issued, or later by money), refunds of unused paid credit and days passing (the
 * daily run writes expired grants off), the VAT the customer's documents carry is 15/115 of the consideration it paid
 * for what was supplied, under either treatment of prepaid credit:
 *
 * - a supply invoice's consideration is what paid it in money, or in credit taxed when used (section 10(18)); free
 *   credit is a discount, and credit sold with VAT (section 10(19)) paid its VAT when it was sold: neither is
 *   consideration again;
 * - a top-up sold with VAT is a supply of its price, less what was refunded of it; a top-up taxed when used is none.
 *
 * The VAT a document carries is its TotalTax − CreditedTax (docs/tax.md, "What an invoice shows"), and the VAT its
 * tax credit notes took off it is what GET /v1/tax-credit-notes lists.
 */
useCreditsService();

const cents = (n: number) => Math.round(n * 100);
const money = (c: number) => (c / 100).toFixed(2);

/** n / d rounded half away from zero, for n ≥ 0 and d > 0, in integers (docs/tax.md, "The VAT in a reduction"). */
const divideRounded = (n: number, d: number) => Math.floor((2 * n + d) / (2 * d));
/** A line's 15 % VAT, rounded on its own (docs/credits.md, "How a discount shows": each line's tax is rounded). */
const lineVat = (exCents: number) => divideRounded(15 * exCents, 100);
/** The VAT inside a price that includes 15 %: price × 15 / 115. */
const vatInside = (incCents: number) => divideRounded(15 * incCents, 115);
/** The VAT in a part P of a Total T with VAT V: P × V / T (docs/tax.md, "The VAT in a reduction"). */
const share = (part: number, total: number, vat: number) =>
  total === 0 ? 0 : divideRounded(part * vat, total);

type Step =
  | { kind: 'topUp'; cents: number; by: 'card' | 'eft' }
  | { kind: 'grant'; cents: number; expiresInDays: number | null }
  | { kind: 'issue'; lines: number[] }
  | { kind: 'pay'; pick: number }
  | { kind: 'refund'; pick: number; cents: number | null }
  | { kind: 'days'; days: number };

const topUp = fc.record({
  kind: fc.constant('topUp' as const),
  cents: fc.integer({ min: 100, max: 60_000 }),
  by: fc.constantFrom('card' as const, 'eft' as const),
});
const freeGrant = fc.record({
  kind: fc.constant('grant' as const),
  cents: fc.integer({ min: 1, max: 30_000 }),
  expiresInDays: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
});
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: topUp, weight: 2 },
  { arbitrary: freeGrant, weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('issue' as const),
      lines: fc.array(fc.integer({ min: 1, max: 40_000 }), { minLength: 1, maxLength: 2 }),
    }),
    weight: 3,
  },
  fc.record({ kind: fc.constant('pay' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('refund' as const),
    pick: fc.nat(),
    cents: fc.option(fc.integer({ min: 1, max: 60_000 }), { nil: null }),
  }),
  fc.record({ kind: fc.constant('days' as const), days: fc.integer({ min: 1, max: 3 }) }),
);
/** A run starts with credit of either kind, so that few runs are spent on invoices nothing but money pays. */
const steps: fc.Arbitrary<Step[]> = fc
  .tuple(fc.oneof(topUp, freeGrant), fc.array(step, { minLength: 2, maxLength: 7 }))
  .map(([first, rest]) => [first, ...rest]);

let runs = 0;

/**
 * What the test made: a supply invoice's lines (ex VAT) and the credit that reduced it as it was issued, or a
 * top-up's price.
 */
type Made =
  | { kind: 'supply'; lines: number[]; reducedAtIssue: number }
  | { kind: 'topUp'; cents: number; by: 'card' | 'eft' };

/**
 * Every document of the customer, read back, against the rules: each invoice's VAT exact by the documented rounding,
 * and the customer's VAT within the roundings of 15/115 of its consideration.
 */
async function expectVatOnce(
  as: TestAccount,
  customerId: number,
  walletId: number,
  treatment: 'when_sold' | 'when_used',
  made: Map<number, Made>,
  lastDay: string,
) {
  // What paid each invoice: money (payments' allocations, card or EFT) and each kind of credit (the grants' own
  // lists of the invoices they pay, net of anything given back).
  const paidBy = new Map<number, { money: number; free: number; paidCredit: number }>();
  const on = (id: number) => {
    if (!paidBy.has(id)) paidBy.set(id, { money: 0, free: 0, paidCredit: 0 });
    return paidBy.get(id)!;
  };
  for (const payment of (await ok(as, 'GET', `/v1/customers/${customerId}/payments?page_size=200`)) as any[])
    for (const allocation of payment.Allocations as any[])
      if (allocation.invoiceID) on(allocation.invoiceID).money += cents(allocation.amountApplied);
  const grants = (await ok(as, 'GET', `/v1/wallets/${walletId}/grants?page_size=200`)) as any[];
  for (const listed of grants) {
    const detail = await grantOf(as, listed.creditGrantID);
    for (const paid of detail.Invoices as any[]) {
      if (detail.Kind === 'paid') on(paid.invoiceID).paidCredit += cents(paid.Amount);
      else on(paid.invoiceID).free += cents(paid.Amount);
    }
  }
  // The VAT each tax credit note took off each invoice, by kind.
  const documented = new Map<
    number,
    { prepaidCredit: number; creditNote: number; creditNoteAmount: number }
  >();
  const documents = (await ok(
    as,
    'GET',
    `/v1/tax-credit-notes?customerID=${customerId}&page_size=200`,
  )) as any[];
  for (const document of documents) {
    expect(['prepaid_credit', 'credit_note']).toContain(document.Kind);
    for (const line of document.Lines as any[]) {
      const of = documented.get(line.invoiceID) ?? { prepaidCredit: 0, creditNote: 0, creditNoteAmount: 0 };
      if (document.Kind === 'prepaid_credit') of.prepaidCredit += cents(line.Tax);
      else {
        of.creditNote += cents(line.Tax);
        of.creditNoteAmount += cents(line.AmountInc);
      }
      documented.set(line.invoiceID, of);
    }
  }

  const read = ((await ok(as, 'GET', '/v1/invoices?page_size=200')) as any[]).filter(
    (invoice) => invoice.customerID === customerId,
  );
  expect(read.map((invoice) => invoice.invoiceID).sort((a, b) => a - b)).toEqual(
    [...made.keys()].sort((a, b) => a - b),
  );
  let carried = 0;
  let exact = 0;
  // 115 × the VAT the consideration holds, to keep 15/115 exact.
  let considered115 = 0;
  // Half-cents: each rounding the rules make is at most half a cent off the exact figure.
  let roundings = 0;
  // What the VAT201 should declare: field 1 the consideration of the supplies, VAT included; field 3 the top-ups
  // taxed when used (non-supplies), less what was refunded of them.
  let field1 = 0;
  let field3 = 0;
  for (const invoice of read) {
    const what = made.get(invoice.invoiceID)!;
    const at = `invoice ${invoice.invoiceID} ${JSON.stringify(what)}`;
    const paid = on(invoice.invoiceID);
    const docs = documented.get(invoice.invoiceID) ?? {
      prepaidCredit: 0,
      creditNote: 0,
      creditNoteAmount: 0,
    };
    const total = cents(invoice.Total);
    const vat = cents(invoice.TotalTax);
    const carries = vat - cents(invoice.CreditedTax);
    // Every invoice is paid in full by now (the run settles what was left with EFT payments).
    expect([cents(invoice.Balance), cents(invoice.BalanceTax)], at).toEqual([0, 0]);
    let consideration: number;
    let reducedBy: number;
    if (what.kind === 'supply') {
      const ex = what.lines.reduce((sum, line) => sum + line, 0);
      const lineVats = what.lines.reduce((sum, line) => sum + lineVat(line), 0);
      expect([total, vat], `${at}: Total and TotalTax`).toEqual([ex + lineVats, lineVats]);
      expect(paid.money + paid.free + paid.paidCredit, `${at}: what paid it`).toBe(total);
      consideration = paid.money + (treatment === 'when_used' ? paid.paidCredit : 0);
      reducedBy = total - consideration;
      roundings += what.lines.length;
      // No VAT charged twice: the credit that is no consideration (free, and sold with VAT under when_sold) takes
      // its share of the invoice's VAT off, and nothing else does.
      expect([cents(invoice.CreditedTotal), cents(invoice.CreditedTax)], `${at}: credited`).toEqual([
        reducedBy,
        share(reducedBy, total, vat),
      ]);
      // The part credit took as the invoice was issued shows on the invoice; what credit took after it is on tax
      // credit notes of kind prepaid_credit, their VAT the share of the whole less the share shown at issue.
      const atIssue = what.reducedAtIssue;
      expect(docs.prepaidCredit, `${at}: its tax credit notes`).toBe(
        share(reducedBy, total, vat) - share(atIssue, total, vat),
      );
      expect(docs.creditNote, at).toBe(0);
    } else {
      // A top-up: what it cost, its VAT inside when sold with VAT; refunds credit it (a credit note each).
      expect(total, at).toBe(what.cents);
      expect(vat, `${at}: TotalTax`).toBe(treatment === 'when_sold' ? vatInside(what.cents) : 0);
      expect(paid.money + docs.creditNoteAmount, `${at}: paid or refunded`).toBe(total);
      expect(paid.free + paid.paidCredit, `${at}: never paid with credit`).toBe(0);
      consideration = treatment === 'when_sold' ? paid.money : 0;
      if (treatment === 'when_used') field3 += paid.money;
      reducedBy = docs.creditNoteAmount;
      roundings += treatment === 'when_sold' ? 1 : 0;
      expect(cents(invoice.CreditedTax), `${at}: credited`).toBe(docs.creditNote);
      expect(docs.creditNote, `${at}: its credit notes' VAT`).toBe(share(reducedBy, total, vat));
      expect(docs.prepaidCredit, at).toBe(0);
    }
    if (reducedBy > 0 && vat > 0) roundings += 1;
    // The documented rounding, exactly: the invoice's VAT less the share of what reduced it.
    expect(carries, `${at}: the VAT it carries`).toBe(vat - share(reducedBy, total, vat));
    carried += carries;
    exact += vat - share(reducedBy, total, vat);
    considered115 += 15 * consideration;
    field1 += consideration;
  }
  expect(carried).toBe(exact);
  // The VAT report of the whole run declares exactly that (docs/tax.md, "The VAT report"): the invoices as issued,
  // less the credit shown on them at issue, and the tax credit notes netted.
  const report = await ok(as, 'GET', `/v1/reports/vat?from=2026-03-01&to=${lastDay}`);
  const vat201 = report.Currencies.length === 0 ? undefined : report.Currencies[0].Vat201;
  expect(
    [vat201?.Field1 ?? 0, vat201?.Field3 ?? 0, vat201?.Field4 ?? 0].map(cents),
    'the VAT201 of the run',
  ).toEqual([field1, field3, carried]);
  // The customer's VAT is 15/115 of what it paid for its supplies, but for rounding. Each document's VAT is rounded,
  // and each rounding is at most half a cent off: a line's VAT (an invoice's TotalTax is its lines' VAT, each rounded
  // on its own), a top-up's VAT inside its price, and the share of an invoice's reductions (counted on what it was
  // reduced by in all, so rounded once however many parts). A one-line invoice or a top-up, its reductions included,
  // is so within one cent; a two-line invoice can be more than a cent off with no error, which a flat cent per
  // document would fail: lines of 100.10 and 100.10 carry 15.02 each (15.015), 0.01 more than 15 % of 200.20, and
  // free credit of 0.02 on the 230.24 takes 0.02 × 30.04 / 230.24 = 0.0026 → 0.00 off, so it carries 30.04 on a
  // consideration of 230.22 whose 15/115 is 30.0287: 1.13 cents. |carried − 15 × consideration / 115| ≤ roundings / 2,
  // in integers: |230 × carried − 2 × 15 × consideration| ≤ 115 × roundings.
  expect(
    Math.abs(230 * carried - 2 * considered115),
    `carried ${carried}, ${roundings} roundings`,
  ).toBeLessThanOrEqual(115 * roundings);
}

async function runSteps(treatment: 'when_sold' | 'when_used', steps: Step[]) {
  let now = '2026-03-01T10:00:00.000Z';
  clock.set(now);
  const { as, customerId, walletId } = await vatVendor(`VAT once ${treatment} ${++runs}`, treatment);
  const made = new Map<number, Made>();
  const cardGrants: number[] = [];
  const context = async () => accountContext(t, as.accountId, fixedClock(now));
  const open = async () =>
    (await invoicesOf(as, customerId)).filter(
      (invoice) => invoice.Status !== 'Cancelled' && invoice.Balance > 0,
    );
  // The credit that paid an invoice so far and is no consideration, from the wallet's journal: free credit, and
  // credit sold with VAT under when_sold (docs/tax.md, "Prepaid credit").
  const reducingCreditOn = async (invoiceId: number) => {
    const kinds = new Map<number, string>(
      ((await ok(as, 'GET', `/v1/wallets/${walletId}/grants?page_size=200`)) as any[]).map((g) => [
        g.creditGrantID,
        g.Kind,
      ]),
    );
    let reducing = 0;
    for (const e of (await ok(as, 'GET', `/v1/wallets/${walletId}/entries?page_size=200`)) as any[]) {
      if (e.invoiceID !== invoiceId) continue;
      if (kinds.get(e.creditGrantID) === 'paid' && treatment === 'when_used') continue;
      reducing += e.Kind === 'consume' ? cents(e.Amount) : e.Kind === 'release' ? -cents(e.Amount) : 0;
    }
    return reducing;
  };
  const payByEft = (invoiceId: number, amount: number) =>
    ok(as, 'POST', '/v1/payments', {
      customerID: customerId,
      Amount: amount,
      CurrencyCode: 'USD',
      Date: now.slice(0, 10),
      Method: 'eft',
      allocations: [{ invoiceID: invoiceId, amountApplied: amount }],
    });
  for (const s of steps) {
    if (s.kind === 'topUp') {
      const topUp = await ok(as, 'POST', `/v1/wallets/${walletId}/top-ups`, { Amount: money(s.cents) });
      made.set(topUp.invoiceID, { kind: 'topUp', cents: s.cents, by: s.by });
      // Paid in full, its grant made (docs/credits.md, "Paid top-ups"): by the card, charged by the collection run
      // (which charges the card invoices due too, credit first), or by an EFT the customer sent.
      if (s.by === 'card') await collectDueInvoices(await context(), { staleAfterMs: 0 });
      else await payByEft(topUp.invoiceID, s.cents / 100);
      const grants = (await ok(as, 'GET', `/v1/wallets/${walletId}/grants?page_size=200`)) as any[];
      const bought = grants.find((g) => g.TopUpInvoiceID === topUp.invoiceID);
      expect(bought, `the grant of top-up ${topUp.invoiceID}`).toMatchObject({
        Kind: 'paid',
        Amount: s.cents / 100,
      });
      if (s.by === 'card') cardGrants.push(bought.creditGrantID);
    } else if (s.kind === 'grant') {
      const expiresAt =
        s.expiresInDays === null ? undefined : instantPlusDays(now, s.expiresInDays).slice(0, 10);
      await ok(as, 'POST', `/v1/wallets/${walletId}/grants`, {
        Amount: money(s.cents),
        ...(expiresAt ? { ExpiresAt: expiresAt } : {}),
        Note: 'Promotion',
      });
    } else if (s.kind === 'issue') {
      const invoice = await ok(as, 'POST', '/v1/invoices', {
        customerID: customerId,
        Charges: s.lines.map((line, n) => ({ Descrip: `Work ${n + 1}`, Qty: 1, UnitCostEx: money(line) })),
        Taxes: [{ Name: 'VAT', Perc: 0.15 }],
      });
      made.set(invoice.invoiceID, {
        kind: 'supply',
        lines: s.lines,
        reducedAtIssue: await reducingCreditOn(invoice.invoiceID),
      });
    } else if (s.kind === 'pay') {
      const owing = (await open()).filter((invoice) => made.get(invoice.invoiceID)?.kind === 'supply');
      if (owing.length > 0) {
        const invoice = owing[s.pick % owing.length];
        await payByEft(invoice.invoiceID, invoice.Balance);
      }
    } else if (s.kind === 'refund') {
      // Unused credit a card bought goes back to the card (docs/credits.md, "Refunding unused credit").
      const held = [];
      for (const id of cardGrants) {
        const g = await grantOf(as, id);
        if (g.Remaining > 0) held.push(g);
      }
      if (held.length > 0) {
        const g = held[s.pick % held.length];
        const amount = s.cents === null ? {} : { Amount: money(Math.min(s.cents, cents(g.Remaining))) };
        const res = await as.request('POST', `/v1/credit-grants/${g.creditGrantID}/refund`, { body: amount });
        expect(res.status, res.text).toBe(200);
      }
    } else {
      // The account's clock runs each day's work: expired grants written off, open invoices paid from credit, and
      // the card charged for what is due (docs/credits.md, "Expiry" and "Consumption order").
      now = instantPlusDays(now, s.days);
      await ok(as, 'POST', '/v1/test-clock/advance', { To: now }, 200);
    }
  }
  // What is still owed is paid by EFT, so that every supply has its whole consideration.
  for (const invoice of await open()) await payByEft(invoice.invoiceID, invoice.Balance);
  await expectVatOnce(as, customerId, walletId, treatment, made, now.slice(0, 10));
}

describe.each(['when_sold', 'when_used'] as const)('prepaid credit %s', (treatment) => {
  it('leaves documents whose VAT is 15/115 of what the customer paid for its supplies, charged once', async () => {
    await fc.assert(
      fc.asyncProperty(steps, (run) => runSteps(treatment, run)),
      {
        numRuns: 10,
        // Run first, whatever the seed: credit bought by card pays an invoice of two lines as it is issued and is
        // refunded in part; it pays part of the next, and a free grant arriving pays the rest and expires with 64.33
        // left; credit bought by EFT pays part of an invoice issued before it, whose card is charged for the rest
        // the next day; credit bought by card is refunded whole.
        examples: [
          [
            [
              { kind: 'topUp', cents: 50_000, by: 'card' },
              { kind: 'issue', lines: [10_010, 10_010] },
              { kind: 'refund', pick: 0, cents: 1_000 },
              { kind: 'issue', lines: [34_385] },
              { kind: 'grant', cents: 20_000, expiresInDays: 2 },
              { kind: 'days', days: 3 },
              { kind: 'issue', lines: [29_900] },
              { kind: 'topUp', cents: 10_000, by: 'eft' },
              { kind: 'days', days: 1 },
              { kind: 'topUp', cents: 5_000, by: 'card' },
              { kind: 'refund', pick: 0, cents: null },
            ],
          ],
        ],
      },
    );
  }, 120_000);
});
