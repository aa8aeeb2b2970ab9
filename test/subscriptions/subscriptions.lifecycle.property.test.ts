import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApiResponse, TestAccount } from '../helpers/service.ts';
import { createCustomer, createPlan, invoicesOf, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import {
  PACKAGES,
  TERMS,
  addDays,
  billsFirst,
  changeCutDate,
  check,
  day,
  minor,
  show,
} from './subscriptions.lifecycle.model.ts';
import type {
  BilledFirst,
  CancelType,
  Cut,
  Model,
  Setup,
  Snapshot,
  Step,
} from './subscriptions.lifecycle.model.ts';
import { randomRuns } from '../helpers/propertyRuns.ts';

// A subscription's billed periods tile time with no gap and no overlap, whatever happens to it: a property test
// over random timelines of a create (now or ahead, billed in advance or not, pro rata or not, with or without a
// trial), clock moves, package and term changes (now and at renewal), cancellations of every type, reactivations,
// withdrawn future changes and end-date changes, run over HTTP against the real server. Each run is a fresh test
// account with its own clock. After every step the periods, credits and invoices are read back and checked
// against a small model of what happened (subscriptions.lifecycle.model.ts). FC_RUNS=<n> runs more timelines;
// FC_SEED=<seed> replays a failure.

const clock = movableClock('2027-11-01T10:00:00.000Z');

const t = useTestService({ clock });

const setupArb: fc.Arbitrary<Setup> = fc.record({
  clockOffset: fc.oneof(fc.constantFrom(29, 60, 91, 120), fc.integer({ min: 0, max: 365 })),
  startIn: fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 20 }) },
  ),
  numDaysBeforeToInv: fc.constantFrom(0, 3, 20),
  syncIn: fc.option(fc.integer({ min: 1, max: 14 }), { nil: null }),
  pkg: fc.constantFrom(0, 1, 2),
  term: fc.constantFrom(0, 1, 2),
});

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), days: fc.integer({ min: 1, max: 40 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('changePackage' as const),
      pkg: fc.constantFrom(0, 1, 2),
      term: fc.constantFrom(0, 1, 2),
      atRenewal: fc.boolean(),
      resetBillingAnchor: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('changeTerm' as const),
      term: fc.constantFrom(0, 1, 2),
      atRenewal: fc.boolean(),
      resetBillingAnchor: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('cancel' as const),
      type: fc.constantFrom<CancelType>('renewal', 'norefund', 'prorata', 'fullcredit'),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reactivate' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('removeFutureChanges' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('changeEndDate' as const),
      days: fc.option(fc.integer({ min: 0, max: 60 }), { nil: null, freq: 4 }),
    }),
  },
);

async function snapshot(
  as: TestAccount,
  today: string,
  subId: number,
  customerId: number,
): Promise<Snapshot> {
  const path = `/v1/subscriptions/${subId}`;
  const [sub, periods, credits, invoices] = await Promise.all([
    ok(as, 'GET', path),
    ok<any[]>(as, 'GET', `${path}/periods`),
    ok<any[]>(as, 'GET', `${path}/credits`),
    invoicesOf(as, customerId),
  ]);
  return {
    today,
    sub,
    periods: periods.map((p) => ({
      no: p.PeriodNo,
      start: day(p.PeriodStart)!,
      end: day(p.PeriodEnd)!,
      amountMinor: minor(p.Amount),
      invoiceId: p.invoiceID,
    })),
    credits: credits.map((c) => ({
      id: c.subscriptionCreditID,
      start: day(c.PeriodStart)!,
      end: day(c.PeriodEnd)!,
      amountMinor: minor(c.Amount),
    })),
    invoices,
  };
}

async function runTimeline(setup: Setup, steps: Step[]): Promise<void> {
  const trace: string[] = [];
  try {
    const clockDay = addDays('2027-11-01', setup.clockOffset);
    clock.set(`${clockDay}T10:00:00.000Z`);
    const as = await t.newAccount('Lifecycle', { isTest: true });
    await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
    const plans = [];
    for (const p of PACKAGES) {
      plans.push(
        await createPlan(as, {
          chargePrice: p.chargePrice,
          trialPeriod: 'trialPeriod' in p ? p.trialPeriod : 0,
          trialFee: 'trialFee' in p ? p.trialFee : 0,
          extraTerms: [
            { ChargePrice: p.extraTerms[0], ChargeTerm: 14, ChargeTermType: 'days' },
            { ChargePrice: p.extraTerms[1], ChargeTerm: 12, ChargeTermType: 'months' },
          ],
        }),
      );
    }
    const customerId = await createCustomer(as);
    const startDate = addDays(clockDay, setup.startIn);
    const plan = plans[setup.pkg]!;
    const created = await subscribe(
      as,
      customerId,
      { packageId: plan.packageId, rateTermId: plan.rateTermIds[setup.term]! },
      {
        StartDate: startDate,
        numDaysBeforeToInv: setup.numDaysBeforeToInv,
        ...(setup.syncIn === null
          ? {}
          : { isProRata: true, firstProrataSyncDate: addDays(startDate, setup.syncIn) }),
      },
    );
    const subId = created.subscriptionID as number;
    const path = `/v1/subscriptions/${subId}`;
    let packageIndex = setup.pkg;
    let today = clockDay;
    const model: Model = {
      startDate,
      charged: new Map(),
      credited: new Map(),
      emptied: new Map(),
      cancelledTime: [],
      inEffect: null,
      createdOn: clockDay,
      pending: null,
    };
    let state = await snapshot(as, today, subId, customerId);
    trace.push(`created on ${today}, start ${startDate}: ${show(state.periods)}`);
    check(model, null, state, null);

    for (const step of steps) {
      let res: ApiResponse;
      let cut: Cut = null;
      const on = today;
      // Billed time is cut today, or at the StartDate when it was billed ahead of it.
      const cutDate = today > startDate ? today : startDate;
      switch (step.kind) {
        case 'advance':
          res = await as.request('POST', '/v1/test-clock/advance', {
            body: { To: `${addDays(today, step.days)}T10:00:00Z` },
          });
          if (res.status === 200) today = res.body.Today;
          break;
        case 'changePackage': {
          const target = plans[step.pkg]!;
          res = await as.request('PUT', `${path}/changePackage`, {
            body: {
              packageID: target.packageId,
              packageRateTermID: target.rateTermIds[step.term],
              isFutureChange: step.atRenewal,
              ...(step.atRenewal ? {} : { resetBillingAnchor: step.resetBillingAnchor }),
            },
          });
          break;
        }
        case 'changeTerm':
          res = await as.request('PUT', `${path}/changeterm`, {
            body: {
              packageRateTermID: plans[packageIndex]!.rateTermIds[step.term],
              isFutureChange: step.atRenewal,
              ...(step.atRenewal ? {} : { resetBillingAnchor: step.resetBillingAnchor }),
            },
          });
          break;
        case 'cancel':
          res = await as.request('PUT', `${path}/cancel/${step.type}`);
          if (res.status === 204 && (step.type === 'prorata' || step.type === 'fullcredit')) {
            cut = { date: cutDate, rule: step.type };
          }
          break;
        case 'reactivate': {
          const cancelDate = day(state.sub.CancelDate);
          res = await as.request('PUT', `${path}/reactivate`);
          if (res.status === 204 && cancelDate !== null && cancelDate <= today) {
            model.cancelledTime.push({ from: cancelDate, to: today, periodsBefore: state.periods.length });
          }
          break;
        }
        case 'removeFutureChanges':
          res = await as.request('DELETE', `${path}/futurechanges`);
          break;
        case 'changeEndDate':
          res = await as.request('PUT', `${path}/changeenddate`, {
            body: { EndDate: step.days === null ? null : addDays(today, step.days) },
          });
          break;
      }
      trace.push(
        `${on} ${JSON.stringify(step)} → ${res.status}${res.body?.code ? ` ${res.body.code}` : ''}` +
          (step.kind === 'advance' ? ` (now ${today})` : ''),
      );
      // Refusals are fine when they name a state the request does not fit; a broken record or a crash is not.
      expect([200, 204, 409, 422], res.text).toContain(res.status);
      expect(res.body?.code, res.text).not.toBe('subscription_invalid');
      // changeterm picks among the terms of the package the subscription is on now (a change at renewal moves it).
      const before = state;
      state = await snapshot(as, today, subId, customerId);
      const after = state;
      packageIndex = plans.findIndex((p) => p.packageId === after.sub.packageID);
      trace.push(
        `  ${after.sub.comp_Status} next ${day(after.sub.nextRenewDate)} cancel ${day(after.sub.CancelDate)}` +
          `${after.sub.CancelType ? `/${after.sub.CancelType}` : ''} end ${day(after.sub.EndDate)}: ${show(after.periods)}`,
      );
      let billedFirst: BilledFirst[] = [];
      if ((step.kind === 'changePackage' || step.kind === 'changeTerm') && res.status === 204) {
        // Of the ends the model cannot tell apart, the one read back decides: the period's, or its credit's once
        // the change cut it.
        const newCredits = after.credits.filter((c) => !before.credits.some((b) => b.id === c.id));
        const first = billsFirst(model, before, today, (no, start, ends) => {
          const credit = newCredits.find((c) => c.start === start && ends.includes(c.end));
          const period = after.periods.find((p) => p.no === no && p.start === start && ends.includes(p.end));
          return credit?.end ?? period?.end ?? ends[0]!;
        });
        billedFirst = first.periods;
        // Once something is billed, a change now cuts the billed time and one at renewal waits for its end; before,
        // the terms are simply replaced.
        const billed = before.periods.length > 0 || billedFirst.length > 0;
        if (billed && !step.atRenewal) {
          const date = changeCutDate(
            before.sub,
            first.term,
            step.term,
            step.resetBillingAnchor ?? false,
            cutDate,
          );
          cut = { date, rule: 'prorata' };
        }
        check(model, before, after, cut, billedFirst);
        const billedTo = billedFirst.at(-1)?.end ?? day(before.sub.nextRenewDate) ?? startDate;
        model.pending =
          billed && step.atRenewal ? { term: TERMS[step.term]!, effectiveDate: billedTo } : null;
      } else {
        check(model, before, after, cut);
        if (step.kind === 'removeFutureChanges' && res.status === 204) model.pending = null;
      }
      // Nothing due is left for the bill run's next pass: the test clock's advance runs it, and a change, a
      // reactivation, an end date moved or a cancellation withdrawn bill at once what they make due.
      const left = billsFirst(model, after, today, (_no, _start, ends) => ends[0]!).periods;
      expect(
        left.map((p) => `${p.start}..${p.end} due ${p.invoiceDate}`),
        'periods due and not billed',
      ).toEqual([]);
    }
  } catch (error) {
    // The steps as they ran, with the state after each: the counterexample fast-check prints is the input only.
    if (error instanceof Error) error.message += `\n${trace.join('\n')}`;
    throw error;
  }
}

const plain: Setup = { clockOffset: 0, startIn: 0, numDaysBeforeToInv: 0, syncIn: null, pkg: 0, term: 0 };

/** Timelines that once broke the properties, run before the random ones. */
const REGRESSIONS: [Setup, Step[]][] = [
  // Cancelled before its StartDate, reactivated after it: the time spent cancelled was billed.
  [
    { ...plain, startIn: 1 },
    [{ kind: 'cancel', type: 'prorata' }, { kind: 'advance', days: 3 }, { kind: 'reactivate' }],
  ],
  // A change now with a cancellation at renewal scheduled: a year was billed past the cancellation a month ahead.
  [
    plain,
    [
      { kind: 'cancel', type: 'renewal' },
      { kind: 'changeTerm', term: 2, atRenewal: false },
      { kind: 'advance', days: 40 },
    ],
  ],
  // Billed ahead of the StartDate, changed now: billed time began before the start and the subscription was parked.
  [
    { ...plain, startIn: 1, numDaysBeforeToInv: 3 },
    [
      { kind: 'changePackage', pkg: 1, term: 0, atRenewal: false },
      { kind: 'advance', days: 5 },
    ],
  ],
  // A change now keeping the anchor billed up to a cancellation at renewal, which was then removed: billing had
  // found nothing left to invoice and never renewed.
  [
    plain,
    [
      { kind: 'cancel', type: 'renewal' },
      { kind: 'changeTerm', term: 0, atRenewal: false, resetBillingAnchor: false },
      { kind: 'removeFutureChanges' },
      { kind: 'advance', days: 30 },
    ],
  ],
  // Billed ahead of the StartDate, cancelled with a credit and reactivated before the start: billing restarted
  // before the start and the subscription was parked.
  [
    { ...plain, startIn: 2, numDaysBeforeToInv: 3 },
    [{ kind: 'cancel', type: 'fullcredit' }, { kind: 'reactivate' }, { kind: 'advance', days: 5 }],
  ],
  // In a trial whose first term was billed ahead, changes that keep the anchor, then one that resets it: the reset
  // credited the already-credited first term again.
  [
    { clockOffset: 29, startIn: 0, numDaysBeforeToInv: 20, syncIn: null, pkg: 2, term: 0 },
    [
      { kind: 'changePackage', pkg: 0, term: 0, atRenewal: false, resetBillingAnchor: false },
      { kind: 'reactivate' },
      { kind: 'changeTerm', term: 0, atRenewal: false, resetBillingAnchor: false },
      { kind: 'removeFutureChanges' },
      { kind: 'changeTerm', term: 0, atRenewal: false, resetBillingAnchor: false },
      { kind: 'changeTerm', term: 0, atRenewal: false, resetBillingAnchor: true },
      { kind: 'cancel', type: 'renewal' },
      { kind: 'advance', days: 1 },
    ],
  ],
  // An end date a day ahead, cancelled with a credit and reactivated the same day, the end date then removed: the
  // day up to the old end date (a term change at renewal waiting) was billed as a period of its own, off the yearly cycle, and the subscription parked.
  [
    { ...plain, term: 2 },
    [
      { kind: 'changeEndDate', days: 1 },
      { kind: 'cancel', type: 'prorata' },
      { kind: 'reactivate' },
      { kind: 'changeTerm', term: 2, atRenewal: true, resetBillingAnchor: false },
      { kind: 'changeEndDate', days: null },
      { kind: 'advance', days: 1 },
    ],
  ],
  // A cancellation at renewal withdrawn once the next period's invoice date had passed, then a change now: the
  // change first billed that period, as the bill run would have, and credited it in full with the rest of the
  // current one; the model expected the current one's credit only. (The withdrawal now bills that period itself.)
  [
    { ...plain, numDaysBeforeToInv: 20 },
    [
      { kind: 'cancel', type: 'renewal' },
      { kind: 'advance', days: 10 },
      { kind: 'removeFutureChanges' },
      { kind: 'changePackage', pkg: 0, term: 0, atRenewal: false, resetBillingAnchor: false },
    ],
  ],
  // A cancellation at renewal withdrawn after the next period's invoice date: the period waited for the bill run's
  // next pass instead of being billed at once.
  [
    { ...plain, numDaysBeforeToInv: 20 },
    [
      { kind: 'cancel', type: 'renewal' },
      { kind: 'advance', days: 15 },
      { kind: 'removeFutureChanges' },
      { kind: 'advance', days: 40 },
    ],
  ],
  // The same before anything was billed: the change billed the first period, then emptied it at the StartDate.
  [
    { ...plain, startIn: 5, numDaysBeforeToInv: 3 },
    [
      { kind: 'cancel', type: 'renewal' },
      { kind: 'advance', days: 3 },
      { kind: 'removeFutureChanges' },
      { kind: 'changePackage', pkg: 1, term: 0, atRenewal: false, resetBillingAnchor: true },
    ],
  ],
  // The same from a month's last day (Feb 29, on a cycle anchored on the 31st): the period billed first ends on
  // Mar 31.
  [
    { ...plain, clockOffset: 60, numDaysBeforeToInv: 20 },
    [
      { kind: 'advance', days: 25 },
      { kind: 'cancel', type: 'renewal' },
      { kind: 'advance', days: 16 },
      { kind: 'removeFutureChanges' },
      { kind: 'changeTerm', term: 0, atRenewal: false },
    ],
  ],
];

describe('subscription lifecycle (property)', () => {
  it('keeps billed periods tiling time, each charged period invoiced once, credits within what was charged', async () => {
    await fc.assert(
      fc.asyncProperty(setupArb, fc.array(stepArb, { minLength: 8, maxLength: 12 }), runTimeline),
      {
        numRuns: REGRESSIONS.length + randomRuns(20 - REGRESSIONS.length),
        examples: REGRESSIONS,
        // FC_SEED=<seed> (fast-check prints it on failure) replays a failing run.
        ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
      },
    );
  }, 600_000);
});
