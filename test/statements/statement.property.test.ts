import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCustomer, movableClock, ok } from '../helpers/billing.ts';
import { toMinor, toWire } from '../helpers/ledger.ts';
import { useTestService } from '../helpers/testService.ts';
import { statement } from './fixtures.ts';
import { randomRuns } from '../helpers/propertyRuns.ts';

// For random histories of invoices (issued, drafts, cancelled), payments, credit notes and adjustments, made
// through the API as a client makes them, the statement to today closes on the customer's Balance as the API
// returns it, its running balance moves by exactly each line's amount, a statement split in two meets where the
// first closes, and the ageing buckets add up to what is owed (which, less the unapplied credit, is the Balance).
// FC_RUNS=<n> runs more; FC_SEED=<seed> replays.

const TODAY = '2026-03-31';
const clock = movableClock(`${TODAY}T10:00:00.000Z`);
const t = useTestService({ clock });

/** Day n of 2026 (0: 1 January), 0 to 89: 1 Jan to 31 Mar. */
const day = (n: number) => new Date(Date.UTC(2026, 0, 1 + n)).toISOString().slice(0, 10);

const amount = fc.integer({ min: 1, max: 40_000 });
const when = fc.integer({ min: 0, max: 89 });
const step = fc.oneof(
  fc.record({
    kind: fc.constant('invoice' as const),
    amount,
    when,
    dueIn: fc.integer({ min: 0, max: 45 }),
    draft: fc.boolean(),
    cancel: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('payment' as const), amount, when, autoApply: fc.boolean() }),
  fc.record({ kind: fc.constant('credit' as const), amount, when, autoApply: fc.boolean() }),
  fc.record({
    kind: fc.constant('adjustment' as const),
    amount,
    when,
    positive: fc.boolean(),
    dueIn: fc.integer({ min: 0, max: 30 }),
    autoApply: fc.boolean(),
  }),
);
type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;

let refs = 0;

async function apply(customerID: number, s: Step): Promise<void> {
  const Date = day(s.when);
  const Amount = toWire(s.amount);
  switch (s.kind) {
    case 'invoice': {
      const created = await ok(t, 'POST', '/v1/invoices', {
        customerID,
        InvoiceDate: Date,
        DueDate: day(s.when + s.dueIn),
        isDraft: s.draft,
        Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: Amount }],
      });
      // Cancelling an issued invoice that holds money is refused (409); either answer is a history.
      if (s.cancel && !s.draft) {
        const res = await t.request('DELETE', `/v1/invoices/${created.invoiceID}`);
        expect([204, 409], res.text).toContain(res.status);
      }
      return;
    }
    case 'payment':
      await ok(t, 'POST', '/v1/payments', {
        customerID,
        Amount,
        CurrencyCode: 'USD',
        Date,
        Method: 'eft',
        ...(s.autoApply ? { AutoApply: true } : { allocations: [] }),
      });
      return;
    case 'credit':
      await ok(t, 'POST', '/v1/credits', {
        customerID,
        Amount,
        CurrencyCode: 'USD',
        Date,
        CreditNumber: `P-CN-${++refs}`,
        ...(s.autoApply ? { AutoApply: true } : { Allocations: [] }),
      });
      return;
    case 'adjustment':
      await ok(
        t,
        'POST',
        '/v1/adjustment/add',
        s.positive
          ? {
              AdjustmentType: 'interest',
              customerID,
              Type: 'positive',
              Amount,
              Date,
              DueDate: day(s.when + s.dueIn),
              Ref: `P-INT-${++refs}`,
            }
          : {
              AdjustmentType: 'bad_debt',
              customerID,
              Type: 'negative',
              Amount,
              Date,
              Ref: `P-BD-${++refs}`,
              AutoApply: s.autoApply,
              Allocations: [],
            },
      );
      return;
  }
}

describe('a statement of a random history', () => {
  it('closes on Balance, never jumps, splits cleanly, and ages exactly what is owed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 89 }),
        async (steps, split) => {
          const customerID = await createCustomer(t);
          for (const s of steps) await apply(customerID, s);

          const whole = await statement(t, customerID, `?startDate=2026-01-01&endDate=${TODAY}`);
          const balance = (await ok(t, 'GET', `/v1/customers/${customerID}`)).Balance;
          expect(whole.OpeningBalance).toBe(0);
          expect(whole.ClosingBalance).toBe(balance);

          let running = toMinor(whole.OpeningBalance);
          let date = '';
          for (const line of whole.Lines) {
            running += toMinor(line.Amount);
            expect(toMinor(line.Balance)).toBe(running);
            expect(line.Date >= date).toBe(true);
            date = line.Date;
          }
          expect(toMinor(whole.ClosingBalance)).toBe(running);

          const first = await statement(t, customerID, `?startDate=2026-01-01&endDate=${day(split)}`);
          const rest =
            split < 89
              ? await statement(t, customerID, `?startDate=${day(split + 1)}&endDate=${TODAY}`)
              : { OpeningBalance: whole.ClosingBalance, Lines: [], ClosingBalance: whole.ClosingBalance };
          expect(rest.OpeningBalance).toBe(first.ClosingBalance);
          expect(first.Lines.length + rest.Lines.length).toBe(whole.Lines.length);
          expect(rest.ClosingBalance).toBe(balance);

          const a = whole.Ageing;
          const buckets = [a.Current, a.Overdue1To30, a.Overdue31To60, a.Overdue61To90, a.OverdueOver90];
          expect(buckets.reduce((sum: number, b: number) => sum + toMinor(b), 0)).toBe(toMinor(a.Total));
          expect(buckets.every((b: number) => b >= 0)).toBe(true);
          expect(toMinor(a.Total) - toMinor(whole.Unapplied)).toBe(toMinor(balance));
        },
      ),
      {
        numRuns: randomRuns(30),
        ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
      },
    );
  });
});
