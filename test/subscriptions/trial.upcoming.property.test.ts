import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCustomer, createPlan, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { addDays, advanceTo, billedContent, day, newInvoices, upcomingOf } from './trial.helpers.ts';
import { randomRuns } from '../helpers/propertyRuns.ts';

// The upcoming invoice is the next invoice the bill run makes, and comp_nextInvDate is its date: a property test
// over random subscriptions (start in the past, today or ahead; trial or not, in days or months, with or without
// a fee; setup fee or not; term and term type; price, zero included; invoiced ahead or not; pro rata or not; an
// EndDate or not), over HTTP against the real server and the real bill run. Each case is a fresh test account
// (UTC, 15% VAT) whose clock moves through the API. At creation and again once running, the preview and comp_nextInvDate are
// read; the clock moves to the day before the preview's date (no invoice may appear, and both stay the same),
// then to its date, where the first invoice made must equal the preview: date, due date, lines, taxes, totals.
// A case with none coming must never be invoiced. FC_RUNS=<n> runs more cases; FC_SEED=<seed> replays one.

const clock = movableClock('2026-11-23T10:00:00.000Z');

const t = useTestService({ clock });

interface Case {
  /** The day the account's clock starts, as days after 2026-11-23 (the constants are month ends and Feb 28). */
  clockOffset: number;
  /** StartDate in days after the clock's day: negative in the past, 0 today. */
  startIn: number;
  trial: { period: number; type: 'days' | 'months' } | null;
  trialFee: number;
  setupFee: number;
  chargePrice: number;
  term: { count: number; type: 'days' | 'months' };
  numDaysBeforeToInv: number;
  /** isProRata with firstProrataSyncDate this many days after the StartDate (within the shortest term), or not. */
  syncIn: number | null;
  /** EndDate in days after the StartDate, or none. */
  endIn: number | null;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  clockOffset: fc.oneof(fc.constantFrom(0, 8, 38, 66, 97), fc.integer({ min: 0, max: 365 })),
  startIn: fc.oneof(
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 60 }) },
    { weight: 1, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: -45, max: -1 }) },
  ),
  trial: fc.option(
    fc.oneof(
      fc.record({ period: fc.integer({ min: 1, max: 31 }), type: fc.constant('days' as const) }),
      fc.record({ period: fc.integer({ min: 1, max: 2 }), type: fc.constant('months' as const) }),
    ),
    { nil: null, freq: 4 },
  ),
  trialFee: fc.constantFrom(0, 0, 4.5),
  setupFee: fc.constantFrom(0, 0, 10),
  chargePrice: fc.constantFrom(0, 25, 12.34, 99.99),
  term: fc.constantFrom(
    { count: 1, type: 'months' as const },
    { count: 3, type: 'months' as const },
    { count: 12, type: 'months' as const },
    { count: 14, type: 'days' as const },
    { count: 7, type: 'days' as const },
  ),
  numDaysBeforeToInv: fc.constantFrom(0, 0, 3, 20),
  syncIn: fc.option(fc.integer({ min: 1, max: 7 }), { nil: null, freq: 4 }),
  endIn: fc.option(fc.integer({ min: 1, max: 120 }), { nil: null, freq: 4 }),
});

// What is compared (the preview and the invoice made) is the planner's, the same on both databases; PostgreSQL, whose
// every statement is a round trip, runs the 550 daily bill runs of a case several times slower, so it checks fewer
// cases (test/helpers/propertyRuns.ts).
const runs = randomRuns(12);
const seed = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);

/** Invoices checked per case: the first after creation, then one of the running subscription. */
const INVOICES_PER_CASE = 2;

async function check(c: Case): Promise<void> {
  let today = addDays('2026-11-23', c.clockOffset);
  clock.set(`${today}T10:00:00.000Z`);
  const as = await t.newAccount('Trial property', { isTest: true });
  await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
  const plan = await createPlan(as, {
    chargePrice: c.chargePrice,
    chargeTerm: c.term.count,
    chargeTermType: c.term.type,
    setupFee: c.setupFee,
    trialFee: c.trial ? c.trialFee : 0,
    trialPeriod: c.trial?.period ?? 0,
    trialPeriodType: c.trial?.type ?? 'days',
  });
  const customerId = await createCustomer(as);
  const startDate = addDays(today, c.startIn);
  const created = await subscribe(as, customerId, plan, {
    StartDate: startDate,
    numDaysBeforeToInv: c.numDaysBeforeToInv,
    ...(c.syncIn === null ? {} : { isProRata: true, firstProrataSyncDate: addDays(startDate, c.syncIn) }),
    ...(c.endIn === null ? {} : { EndDate: addDays(startDate, c.endIn) }),
  });
  const id = created.subscriptionID as number;
  // What creating it billed at once (anything already due) is not the next invoice.
  const known = new Set<number>((await newInvoices(as, customerId, new Set())).map((i) => i.invoiceID));

  for (let n = 0; n < INVOICES_PER_CASE; n += 1) {
    const subscription = n === 0 ? created : await ok(as, 'GET', `/v1/subscriptions/${id}`);
    const upcoming = await upcomingOf(as, id);
    const date = upcoming === null ? null : day(upcoming.InvoiceDate)!;
    expect(day(subscription.comp_nextInvDate), 'comp_nextInvDate is the upcoming invoice’s date').toBe(date);

    if (date === null) {
      // Nothing is coming: a year and a half of bill runs invoice nothing.
      await advanceTo(as, addDays(today, 550));
      expect(await newInvoices(as, customerId, known), 'invoices made when none was coming').toEqual([]);
      return;
    }
    // Whatever is due is billed at once (on creation, or by the bill run of the clock's day).
    expect(date > today, `upcoming invoice dated ${date}, after today ${today}`).toBe(true);

    if (addDays(date, -1) > today) {
      today = addDays(date, -1);
      await advanceTo(as, today);
      expect(await newInvoices(as, customerId, known), `invoices made before ${date}`).toEqual([]);
      expect(day((await ok(as, 'GET', `/v1/subscriptions/${id}`)).comp_nextInvDate), `on ${today}`).toBe(
        date,
      );
      expect(billedContent(await upcomingOf(as, id)), `upcoming invoice on ${today}`).toEqual(
        billedContent(upcoming),
      );
    }
    today = date;
    await advanceTo(as, today);
    const made = await newInvoices(as, customerId, known);
    expect(made.length, `invoices made on ${date}`).toBeGreaterThan(0);
    expect(billedContent(made[0]), `the invoice made on ${date}`).toEqual(billedContent(upcoming));
    for (const invoice of made) known.add(invoice.invoiceID);
  }
}

describe('the upcoming invoice and comp_nextInvDate', () => {
  it('are the next invoice the bill run makes, at creation and while running', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        try {
          await check(c);
        } catch (error) {
          throw new Error(`case ${JSON.stringify(c)}: ${(error as Error).message}`, { cause: error });
        }
      }),
      { numRuns: runs, seed, endOnFailure: true },
    );
  }, 900_000);
});
