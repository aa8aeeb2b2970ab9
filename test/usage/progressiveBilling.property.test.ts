import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import type { BillingDeps } from '../../src/billing/billRun.ts';
import { checkAllUsageAlerts } from '../../src/billing/usageAlerts.ts';
import { invoicesOf, movableClock, ok } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { advance, graduatedCallsSubscription } from '../subscriptions/meteredBilling.fixtures.ts';
import { modulePorts } from '../../src/modulePorts.ts';
import { randomRuns } from '../helpers/propertyRuns.ts';

// docs/usage.md, "Progressive billing" and its "Coupons": over random event streams (some of negative `n`, some
// sent a day or two late), random thresholds (some changed or turned off during the period), an optional
// percentage coupon redeemed on some day of the period, and a test clock moved a day or many days at a time across
// the period's end: each progressive invoice bills the usage not invoiced yet once that reaches the threshold, the
// final invoice bills the whole usage and deducts what they charged, no Total is below zero, a check run again at
// once makes nothing, and March's usage costs exactly its price less March's discount.
// FC_RUNS=<n> runs more random streams; FC_SEED=<seed> replays a failure.

// Each account's clock starts where the service's stands when the account is made: 1 March, 10:00 UTC.
const clock = movableClock('2026-03-01T10:00:00.000Z');
let deps: BillingDeps;

const t = useTestService({ clock });
beforeAll(async () => {
  deps = {
    ports: modulePorts(),
    db: t.service.storage.db,
    clock,
    wallClock: systemClock,
    log: t.service.log,
    secrets: t.service.secrets,
    mailQueued: () => {},
  };
});

/** GRADUATED_CALLS (meteredBilling.fixtures.ts) priced by hand, in cents: 1–1,000 at 0.10, 1,001–5,000 at 0.05, 5,001+ at 0.02. */
function priceCents(calls: number): number {
  const first = Math.min(calls, 1000);
  const second = Math.min(Math.max(calls - 1000, 0), 4000);
  const third = Math.max(calls - 5000, 0);
  return first * 10 + second * 5 + third * 2;
}

/** The final invoice's usage line: the units billed at each rate once more than one applies (docs/usage.md). */
function usageLine(calls: number): string {
  const parts = [
    [Math.min(calls, 1000), '0.10'],
    [Math.min(Math.max(calls - 1000, 0), 4000), '0.05'],
    [Math.max(calls - 5000, 0), '0.02'],
  ] as const;
  const billed = parts.filter(([count]) => count > 0);
  const rates = billed.map(([count, rate]) => `${count.toLocaleString('en-US')} at ${rate}`).join('; ');
  return `API calls: ${calls} calls${billed.length > 1 ? ` (${rates})` : ''}`;
}

/** A percentage (in hundredths of a per cent) of a line, rounded half up (coupons' discounts.ts). */
const percentOfCents = (cents: number, hundredths: number) =>
  Math.floor((cents * hundredths + 5_000) / 10_000);

const PLAN_CENTS = 3_000;
const CODE = 'PROP';
const CREDIT_LINE = 'Credit beyond this invoice, carried to your account';

interface Scenario {
  /**
   * Events of `n` calls, each sent once the clock stands at 10:00 on its day of March, timed at 09:00 that day or
   * `lag` days before (within the grace window: docs/usage.md, "Grace and late events").
   */
  events: { day: number; lag: number; n: number }[];
  /** Days the clock stops at besides the events' (every day of March when `everyDay`). */
  stops: number[];
  everyDay: boolean;
  thresholdCents: number;
  /** The threshold changed, or progressive billing turned off (null), when the clock stands at 10:00 on `day`. */
  retune: { day: number; thresholdCents: number | null } | null;
  /** A percentage (in hundredths) redeemed on the subscription when the clock stands at 10:00 on `day`. */
  coupon: { hundredths: number; duration: 'forever' | 'once'; day: number } | null;
  /** The day of April the clock finally moves to, across the period's end. */
  endDay: number;
}

const thresholdArb = fc.oneof(fc.integer({ min: 1, max: 2_000 }), fc.integer({ min: 2_000, max: 40_000 }));

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  events: fc.array(
    fc.record({
      day: fc.integer({ min: 1, max: 31 }),
      lag: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2 })),
      n: fc.oneof(
        { arbitrary: fc.integer({ min: 1, max: 4_000 }), weight: 4 },
        { arbitrary: fc.integer({ min: -3_000, max: -1 }), weight: 1 },
      ),
    }),
    { maxLength: 12 },
  ),
  stops: fc.uniqueArray(fc.integer({ min: 2, max: 31 }), { maxLength: 5 }),
  everyDay: fc.oneof(
    { arbitrary: fc.constant(true), weight: 1 },
    { arbitrary: fc.constant(false), weight: 3 },
  ),
  thresholdCents: thresholdArb,
  retune: fc.option(
    fc.record({
      day: fc.integer({ min: 2, max: 31 }),
      thresholdCents: fc.option(thresholdArb, { nil: null }),
    }),
    { nil: null, freq: 3 },
  ),
  coupon: fc.option(
    fc.record({
      hundredths: fc.integer({ min: 1, max: 10_000 }),
      duration: fc.constantFrom('forever' as const, 'once' as const),
      day: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 31 })),
    }),
    { nil: null },
  ),
  endDay: fc.integer({ min: 1, max: 3 }),
});

/** The worked examples of docs/usage.md, "Progressive billing" (with QUARTER as in "Coupons"), and a fall. */
const EXAMPLES: [Scenario][] = [
  [
    {
      events: [
        { day: 1, lag: 0, n: 3_000 },
        { day: 10, lag: 0, n: 1_000 },
        { day: 11, lag: 0, n: 3_000 },
        { day: 20, lag: 0, n: 1_500 },
      ],
      stops: [],
      everyDay: false,
      thresholdCents: 10_000,
      retune: null,
      coupon: null,
      endDay: 1,
    },
  ],
  [
    {
      events: [
        { day: 1, lag: 0, n: 3_000 },
        { day: 10, lag: 0, n: 1_500 },
      ],
      stops: [],
      everyDay: false,
      thresholdCents: 10_000,
      retune: null,
      coupon: { hundredths: 2_500, duration: 'forever', day: 1 },
      endDay: 2,
    },
  ],
  // A fall under a coupon: 3,000 calls invoiced on 3 Mar, 200.00 less 25 %: 150.00 charged. 2,500 taken back on
  // 12 Mar leave 500 calls, 50.00. The 1 April invoice: 30.00 + 50.00 − 150.00 − 25 % of 80.00 (20.00) = −90.00,
  // the discount taken whole all the same: Total 0.00, 90.00 credited; March's usage cost 150.00 − 150.00 + 50.00
  // − 12.50 = 37.50, its price less 25 %.
  [
    {
      events: [
        { day: 3, lag: 0, n: 3_000 },
        { day: 12, lag: 0, n: -2_500 },
      ],
      stops: [20],
      everyDay: false,
      thresholdCents: 5_000,
      retune: null,
      coupon: { hundredths: 2_500, duration: 'once', day: 1 },
      endDay: 3,
    },
  ],
];

const money = (cents: number) => (cents / 100).toFixed(2);
const cents = (amount: number) => Math.round(amount * 100);
const pad = (day: number) => String(day).padStart(2, '0');
const progressivePath = (subscriptionId: number) => `/v1/subscriptions/${subscriptionId}/progressivebilling`;
const lines = (invoice: any): [string, number][] =>
  invoice.Charges.map((c: any) => [c.Descrip, cents(c.AmountEx)]);
const isProgressive = (invoice: any) => invoice.Charges.some((c: any) => c.Descrip.endsWith('(progressive)'));
const isFinal = (invoice: any) =>
  invoice.Charges.some((c: any) => /^API calls: -?\d+ calls( \(.+\))?$/.test(c.Descrip));
const isDiscount = (descrip: string) => /^PROP: −[\d.]+ %$/.test(descrip);
const DISCOUNT_LINE = expect.stringMatching(/^PROP: −[\d.]+ %$/);

/** The threshold a check on that day of March finds, in cents: null when progressive billing is off. */
const thresholdOn = (s: Scenario, day: number) =>
  s.retune && s.retune.day <= day ? s.retune.thresholdCents : s.thresholdCents;

/** What the test knows of the period so far: calls sent, and what progressive invoices billed and charged. */
interface Model {
  sent: number;
  invoicedCents: number;
  chargedCents: number;
  invoiceIds: number[];
  /** The customer's invoices already checked. */
  seen: number;
}

async function runScenario(s: Scenario): Promise<void> {
  const as = await t.newAccount('Progressive property', { isTest: true });
  const { customerId, subscriptionId, send } = await graduatedCallsSubscription(as);
  const setThreshold = (thresholdCents: number | null) =>
    ok(
      as,
      'PUT',
      progressivePath(subscriptionId),
      { ProgressiveBillingThreshold: thresholdCents === null ? null : money(thresholdCents) },
      200,
    );
  await setThreshold(s.thresholdCents);
  const redeem = async () => {
    const PercentOff = (s.coupon!.hundredths / 100).toFixed(2);
    await ok(as, 'POST', '/v1/coupons', { Code: CODE, Name: CODE, PercentOff, Duration: s.coupon!.duration });
    await ok(as, 'POST', `/v1/subscriptions/${subscriptionId}/coupons`, { Code: CODE });
  };
  const hundredths = s.coupon?.hundredths ?? 0;
  const discountOf = (amountCents: number) => percentOfCents(amountCents, hundredths);
  // 1 March: March's plan, made when subscribing, before the coupon was redeemed.
  expect((await invoicesOf(as, customerId)).map((i) => cents(i.Total))).toEqual([PLAN_CENTS]);
  const model: Model = { sent: 0, invoicedCents: 0, chargedCents: 0, invoiceIds: [], seen: 1 };

  /**
   * Moves the clock; the first day it runs is the one it stood on (`checkDay`, when the last events were sent), so
   * a progressive invoice, if any, is dated that day. Checks it against the model, then that a check run again at
   * once issues nothing (docs/usage.md, "Progressive billing", "When it is checked").
   */
  const moveTo = async (to: string, checkDay: number) => {
    await advance(as, to);
    const again = await checkAllUsageAlerts(deps, { accountId: as.accountId });
    expect(again).toMatchObject({ progressiveInvoices: 0, failures: 0 });
    const invoices = await invoicesOf(as, customerId);
    const added = invoices.slice(model.seen);
    model.seen = invoices.length;
    const quantity = Math.max(0, model.sent);
    const notInvoiced = priceCents(quantity) - model.invoicedCents;
    const progressive = added.filter(isProgressive);
    // The threshold the check on `checkDay` found; with none, nothing is invoiced progressively, and what was
    // stays deducted (docs/usage.md, "Progressive billing", "The threshold").
    const threshold = thresholdOn(s, checkDay);
    if (threshold === null || notInvoiced < threshold) {
      expect(progressive).toEqual([]);
    } else {
      // One invoice for all that is not invoiced yet, however many thresholds it holds ("Once per crossing"),
      // discounted by the percentage as the final invoice will be ("Coupons").
      expect(progressive).toHaveLength(1);
      const [invoice] = progressive;
      // Dated before the coupon's redemption, it is not discounted; the final invoice discounts all the usage.
      const discount = s.coupon && s.coupon.day <= checkDay ? discountOf(notInvoiced) : 0;
      expect(invoice.InvoiceDate.slice(0, 10)).toBe(`2026-03-${pad(checkDay)}`);
      expect(lines(invoice)).toEqual([
        [`API calls: ${quantity} calls, usage to ${checkDay} Mar (progressive)`, notInvoiced],
        ...(discount > 0 ? [[DISCOUNT_LINE, -discount]] : []),
      ]);
      expect(invoice.Charges[0].Quantity).toBe(String(quantity));
      model.invoicedCents += notInvoiced;
      model.chargedCents += notInvoiced - discount;
      model.invoiceIds.push(invoice.invoiceID);
    }
    return { invoices, added };
  };

  const stopDays = s.everyDay
    ? Array.from({ length: 31 }, (_, i) => i + 1)
    : [...new Set([...s.events.map((e) => e.day), ...s.stops, s.coupon?.day ?? 1, s.retune?.day ?? 1])].sort(
        (a, b) => a - b,
      );
  let clockDay = 1;
  for (const day of stopDays) {
    if (day > clockDay) {
      const { added } = await moveTo(`2026-03-${pad(day)}T10:00:00.000Z`, clockDay);
      expect(added.every(isProgressive)).toBe(true);
      expect(await ok(as, 'GET', progressivePath(subscriptionId))).toMatchObject({
        PeriodStart: '2026-03-01',
        ProgressiveInvoiced: model.invoicedCents / 100,
        ProgressiveDiscounted: (model.invoicedCents - model.chargedCents) / 100,
        ProgressiveInvoiceIDs: model.invoiceIds,
      });
      clockDay = day;
    }
    if (s.coupon?.day === day) await redeem();
    if (s.retune?.day === day) await setThreshold(s.retune.thresholdCents);
    for (const event of s.events.filter((e) => e.day === day)) {
      await send(`2026-03-${pad(Math.max(1, day - event.lag))}T09:00:00Z`, event.n);
      model.sent += event.n;
    }
  }
  const { invoices, added } = await moveTo(`2026-04-${pad(s.endDay)}T10:00:00.000Z`, clockDay);

  // The final invoice, on 1 April: April's plan, March's whole usage (a sum below zero billed as 0), less what the
  // progressive invoices charged, and the coupon's percentage of the plan and of the whole usage, the deduction
  // not discounted ("Coupons", "The final invoice"); what falls below zero is carried as credit ("Never below zero").
  const finals = added.filter(isFinal);
  expect(finals).toHaveLength(1);
  const [final] = finals;
  expect(final.InvoiceDate.slice(0, 10)).toBe('2026-04-01');
  const quantity = Math.max(0, model.sent);
  const usageCents = priceCents(quantity);
  const discountCents = s.coupon ? discountOf(PLAN_CENTS) + discountOf(usageCents) : 0;
  const net = PLAN_CENTS + usageCents - model.chargedCents - discountCents;
  expect(lines(final)).toEqual([
    [expect.stringMatching(/^Plan \d+$/), PLAN_CENTS],
    [usageLine(quantity), usageCents],
    ...(model.chargedCents !== 0
      ? [['API calls: less usage invoiced progressively', -model.chargedCents]]
      : []),
    ...(discountCents > 0 ? [[DISCOUNT_LINE, -discountCents]] : []),
    ...(net < 0 ? [[CREDIT_LINE, -net]] : []),
  ]);
  const progressive = invoices.filter(isProgressive);
  expect(progressive.map((i) => i.invoiceID)).toEqual(model.invoiceIds);

  // (a) Every progressive invoice billed usage, before its discount, that reached the threshold of its day.
  for (const invoice of progressive) {
    const threshold = thresholdOn(s, Number(invoice.InvoiceDate.slice(8, 10)));
    expect(threshold).not.toBeNull();
    expect(cents(invoice.Charges[0].AmountEx)).toBeGreaterThanOrEqual(threshold!);
  }
  // (b) March's usage over its invoices: the progressive lines less their discounts, the final usage line, its
  // deduction and the usage's share of the final discount (the rest is the plan's) come to its price less its
  // discount.
  const usageLines = (invoice: any) => lines(invoice).filter(([descrip]) => descrip.startsWith('API calls'));
  const discounts = (invoice: any) => lines(invoice).filter(([descrip]) => isDiscount(descrip));
  const total = (rows: [string, number][]) => rows.reduce((sum, [, amount]) => sum + amount, 0);
  const billedForUsage =
    progressive.reduce((sum, invoice) => sum + total(usageLines(invoice)) + total(discounts(invoice)), 0) +
    total(usageLines(final)) +
    total(discounts(final)) +
    (s.coupon ? discountOf(PLAN_CENTS) : 0);
  expect(billedForUsage).toBe(usageCents - discountOf(usageCents));
  // (c) No invoice's Total is below zero.
  for (const invoice of invoices) expect(invoice.Total).toBeGreaterThanOrEqual(0);
  // And the customer owes March's and April's plans (April's discounted) and March's usage less its discount: the
  // invoices' Totals less what the final invoice carried to the subscription's credit.
  const credits = await ok(as, 'GET', `/v1/subscriptions/${subscriptionId}/credits`);
  expect(credits.reduce((sum: number, c: any) => sum + cents(c.Amount), 0)).toBe(Math.max(0, -net));
  const owed = PLAN_CENTS + PLAN_CENTS - discountOf(PLAN_CENTS) + usageCents - discountOf(usageCents);
  expect(cents((await ok(as, 'GET', `/v1/customers/${customerId}`)).Balance)).toBe(owed);
}

describe('progressive billing through the service (property)', () => {
  it('bills each crossing once, never below zero, and the period its usage’s price less its discount', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        try {
          await runScenario(scenario);
        } catch (error) {
          if (error instanceof Error) error.message += `\nscenario: ${JSON.stringify(scenario)}`;
          throw error;
        }
      }),
      {
        examples: EXAMPLES,
        // fast-check counts the examples in numRuns: FC_RUNS is the number of random streams after them.
        numRuns: EXAMPLES.length + randomRuns(7),
        ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
      },
    );
  }, 300_000);
});
