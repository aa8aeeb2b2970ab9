import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { createCustomer, createPlan, invoicesOf, movableClock, ok, subscribe } from '../helpers/billing.ts';
import type { PlanOptions } from '../helpers/billing.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import { useTestService } from '../helpers/testService.ts';
import { advanceToDay } from '../helpers/clock.ts';

// Pause and resume (docs/subscriptions.md, "Pause and resume"), over HTTP on a test account whose clock is moved.
// Every invoice below is computed by hand in the comment beside it: no period starts inside a pause, and the resume
// starts a new cycle on its day (resume_day) or bills the days to the old cycle's boundary pro rata (unchanged).

const clock = movableClock('2026-01-01T10:00:00.000Z');
const t = useTestService({ clock });

const day = (wire: string | null | undefined) => (wire ? wire.slice(0, 10) : null);

/** A fresh test account whose clock reads `on`, a customer, and a subscription from that day. */
async function subscribedOn(on: string, options: PlanOptions = {}) {
  clock.set(`${on}T10:00:00.000Z`);
  const as = await t.newAccount('Pause', { isTest: true });
  const plan = await createPlan(as, options);
  const customerId = await createCustomer(as);
  const sub = await subscribe(as, customerId, plan, {});
  const id = sub.subscriptionID as number;
  return { as, plan, customerId, id, path: `/v1/subscriptions/${id}` };
}

const invoiceFigures = async (as: TestAccount, customerId: number) =>
  (await invoicesOf(as, customerId)).map((i) => [day(i.InvoiceDate), i.Total, i.Balance]);
const periodsOf = async (as: TestAccount, path: string) =>
  ((await ok(as, 'GET', `${path}/periods`)) as any[]).map((p) => [
    day(p.PeriodStart),
    day(p.PeriodEnd),
    p.Kind,
    p.Amount,
  ]);
const statusOf = async (as: TestAccount, path: string) => {
  const s = await ok(as, 'GET', path);
  return {
    status: s.comp_Status,
    pause: day(s.PauseDate),
    resume: day(s.ResumeDate),
    future: s.isFutureChange,
    next: day(s.comp_nextInvDate),
  };
};
const pauseEvents = async (as: TestAccount, id: number) =>
  (await eventsOf(as, 'subscription', id))
    .filter((e) => e.type === 'subscription.paused' || e.type === 'subscription.resumed')
    .map((e) => [e.type, e.data.object.comp_Status]);

describe('a pause mid-period resumed months later', () => {
  it('Credit none, resume_day: the billed month is served, then a new cycle from the resume day', async () => {
    const { as, customerId, id, path } = await subscribedOn('2026-01-01', { chargePrice: 30 });
    await advanceToDay(as, '2026-01-16');
    await ok(as, 'PUT', `${path}/pause`, {});
    // Jan 1 – Feb 1 was invoiced on Jan 1: served to its end, the pause starts on Feb 1.
    expect(await statusOf(as, path)).toEqual({
      status: 'Active',
      pause: '2026-02-01',
      resume: null,
      future: true,
      next: null,
    });
    await advanceToDay(as, '2026-02-01');
    expect((await statusOf(as, path)).status).toBe('Paused');
    // Paused until resumed: no invoice is coming.
    const upcoming = await as.request('GET', `${path}/upcoming-invoice`);
    expect(upcoming.status, upcoming.text).toBe(404);
    await advanceToDay(as, '2026-04-20');
    // Nothing for February, March or April while paused.
    expect(await invoiceFigures(as, customerId)).toEqual([['2026-01-01', 30, 30]]);
    await ok(as, 'PUT', `${path}/resume`, {});
    // A new cycle from Apr 20: a whole month Apr 20 – May 20 at 30.00, nothing prorated.
    await advanceToDay(as, '2026-05-20');
    // Then May 20 – Jun 20, 30.00, on the new cycle.
    expect(await invoiceFigures(as, customerId)).toEqual([
      ['2026-01-01', 30, 30],
      ['2026-04-20', 30, 30],
      ['2026-05-20', 30, 30],
    ]);
    expect(await periodsOf(as, path)).toEqual([
      ['2026-01-01', '2026-02-01', 'term', 30],
      ['2026-04-20', '2026-05-20', 'term', 30],
      ['2026-05-20', '2026-06-20', 'term', 30],
    ]);
    expect((await statusOf(as, path)).status).toBe('Active');
    // Each once: the bill run's day brought the pause, the API call the resume.
    expect(await pauseEvents(as, id)).toEqual([
      ['subscription.paused', 'Paused'],
      ['subscription.resumed', 'Active'],
    ]);
  });

  it('Credit prorata, unchanged: the unused days credited, then a stub to the old cycle', async () => {
    const { as, customerId, path } = await subscribedOn('2026-01-01', { chargePrice: 31 });
    await advanceToDay(as, '2026-01-11');
    const preview = await ok(as, 'PUT', `${path}/pause?preview=true`, { Credit: 'prorata' }, 200);
    // Jan 11 – Feb 1 is 21 of January's 31 days: 31.00 × 21 / 31 = 21.00.
    expect(preview.Credits.map((c: any) => [day(c.PeriodStart), day(c.PeriodEnd), c.Amount])).toEqual([
      ['2026-01-11', '2026-02-01', 21],
    ]);
    expect((await statusOf(as, path)).status).toBe('Active');
    await ok(as, 'PUT', `${path}/pause`, { Credit: 'prorata' });
    expect((await statusOf(as, path)).status).toBe('Paused');
    // The credit note pays the cut month's invoice: 31.00 − 21.00 = 10.00 owed.
    expect(await invoiceFigures(as, customerId)).toEqual([['2026-01-01', 31, 10]]);
    await advanceToDay(as, '2026-04-20');
    await ok(as, 'PUT', `${path}/resume`, { BillingAnchor: 'unchanged' });
    // The old cycle kept: Apr 20 – May 1 is 11 of April's 30 days: 31.00 × 11 / 30 = 11.366… → 11.37.
    await advanceToDay(as, '2026-05-01');
    // Then the whole of May on the old cycle: 31.00.
    expect(await invoiceFigures(as, customerId)).toEqual([
      ['2026-01-01', 31, 10],
      ['2026-04-20', 11.37, 11.37],
      ['2026-05-01', 31, 31],
    ]);
    expect(await periodsOf(as, path)).toEqual([
      // The cut period keeps what it was billed; its credit is apart (GET .../credits).
      ['2026-01-01', '2026-01-11', 'term', 31],
      ['2026-04-20', '2026-05-01', 'stub', 11.37],
      ['2026-05-01', '2026-06-01', 'term', 31],
    ]);
  });
});

describe('a dated pause and resume crossed by the test clock', () => {
  it('pauses at the end of the period holding PauseDate and resumes on ResumeDate on a new cycle', async () => {
    const { as, customerId, id, path } = await subscribedOn('2026-01-01', { chargePrice: 30 });
    await advanceToDay(as, '2026-01-05');
    await ok(as, 'PUT', `${path}/pause`, { PauseDate: '2026-02-10', ResumeDate: '2026-04-10' });
    // Feb 10 falls in Feb 1 – Mar 1, which is served (Credit none): the pause runs Mar 1 to Apr 10.
    expect(await statusOf(as, path)).toEqual({
      status: 'Active',
      pause: '2026-03-01',
      resume: '2026-04-10',
      future: true,
      next: '2026-02-01',
    });
    await advanceToDay(as, '2026-03-05');
    expect((await statusOf(as, path)).status).toBe('Paused');
    // The upcoming invoice is the resumption's: a new cycle Apr 10 – May 10 at 30.00.
    const upcoming = await ok(as, 'GET', `${path}/upcoming-invoice`);
    expect([day(upcoming.InvoiceDate), upcoming.Total]).toEqual(['2026-04-10', 30]);
    await advanceToDay(as, '2026-04-10');
    expect(await statusOf(as, path)).toEqual({
      status: 'Active',
      pause: '2026-03-01',
      resume: '2026-04-10',
      future: false,
      next: '2026-05-10',
    });
    // Jan 1 and Feb 1: 30.00 each; nothing for Mar 1 – Apr 10; Apr 10 – May 10: 30.00.
    expect(await invoiceFigures(as, customerId)).toEqual([
      ['2026-01-01', 30, 30],
      ['2026-02-01', 30, 30],
      ['2026-04-10', 30, 30],
    ]);
    expect(await pauseEvents(as, id)).toEqual([
      ['subscription.paused', 'Paused'],
      ['subscription.resumed', 'Active'],
    ]);
  });

  it('keeps the old cycle under unchanged: the days from the resume to the boundary pro rata', async () => {
    const { as, customerId, path } = await subscribedOn('2026-01-01', { chargePrice: 30 });
    await ok(as, 'PUT', `${path}/pause`, {
      PauseDate: '2026-02-01',
      ResumeDate: '2026-03-15',
      BillingAnchor: 'unchanged',
    });
    await advanceToDay(as, '2026-04-01');
    // Mar 15 – Apr 1 is 17 of March's 31 days: 30.00 × 17 / 31 = 16.451… → 16.45; then Apr 1 – May 1, 30.00.
    expect(await invoiceFigures(as, customerId)).toEqual([
      ['2026-01-01', 30, 30],
      ['2026-03-15', 16.45, 16.45],
      ['2026-04-01', 30, 30],
    ]);
  });
});

describe('DELETE .../futurechanges and a pause', () => {
  it('withdraws a scheduled resume, leaving it paused, then a scheduled pause, billing going on', async () => {
    const { as, customerId, path } = await subscribedOn('2026-01-01', { chargePrice: 30 });
    await ok(as, 'PUT', `${path}/pause`, { ResumeDate: '2026-03-01' });
    await advanceToDay(as, '2026-02-10');
    expect((await statusOf(as, path)).status).toBe('Paused');
    await ok(as, 'DELETE', `${path}/futurechanges`);
    // The resume withdrawn: paused until resumed, nothing coming.
    expect(await statusOf(as, path)).toEqual({
      status: 'Paused',
      pause: '2026-02-01',
      resume: null,
      future: false,
      next: null,
    });
    await advanceToDay(as, '2026-03-05');
    expect(await invoiceFigures(as, customerId)).toEqual([['2026-01-01', 30, 30]]);
    await ok(as, 'PUT', `${path}/resume`, {});
    // A new cycle from Mar 5: 30.00 for Mar 5 – Apr 5. Then a pause scheduled for its end, withdrawn.
    await ok(as, 'PUT', `${path}/pause`, { PauseDate: '2026-03-20' });
    expect((await statusOf(as, path)).pause).toBe('2026-04-05');
    await ok(as, 'DELETE', `${path}/futurechanges`);
    expect((await statusOf(as, path)).pause).toBeNull();
    await advanceToDay(as, '2026-04-05');
    expect(await invoiceFigures(as, customerId)).toEqual([
      ['2026-01-01', 30, 30],
      ['2026-03-05', 30, 30],
      ['2026-04-05', 30, 30],
    ]);
  });
});

describe('what pause and resume refuse', () => {
  it('409 for a second pause, a resume of an active or a pause of a cancelled subscription; 422 for dates', async () => {
    const { as, plan, customerId, path } = await subscribedOn('2026-01-01', { chargePrice: 30 });
    const refused = async (route: string, body: unknown, status: number) => {
      const res = await as.request('PUT', route, { body });
      expect(res.status, res.text).toBe(status);
      return res.body as any;
    };
    expect((await refused(`${path}/resume`, {}, 409)).code).toBe('subscription_not_paused');
    // Credit none starts the pause on Feb 1, the end of the billed month: a resume before then is refused.
    expect((await refused(`${path}/pause`, { ResumeDate: '2026-01-20' }, 422)).code).toBe('invalid_fields');
    await ok(as, 'PUT', `${path}/pause`, { Credit: 'prorata', PauseDate: '2026-01-10' });
    expect((await refused(`${path}/pause`, {}, 409)).code).toBe('subscription_paused');
    // A change of package would start a period inside the pause: resume first.
    const gold = await createPlan(as, { chargePrice: 60 });
    const change = { packageID: gold.packageId, packageRateTermID: gold.rateTermId };
    expect((await refused(`${path}/changePackage`, change, 409)).code).toBe('subscription_paused');
    expect((await refused(`${path}/resume`, { ResumeDate: '2025-12-31' }, 422)).code).toBe('invalid_fields');
    const other = await subscribe(as, customerId, plan, {});
    const otherPath = `/v1/subscriptions/${other.subscriptionID}`;
    await ok(as, 'PUT', `${otherPath}/cancel/norefund`);
    expect((await refused(`${otherPath}/pause`, {}, 409)).code).toBe('subscription_cancelled');
  });

  it('409 for a subscription waiting for its first payment, as for any change', async () => {
    const { as, plan, customerId } = await subscribedOn('2026-01-01', { chargePrice: 30 });
    const waiting = await subscribe(as, customerId, plan, { ActivateOnPayment: true });
    expect(waiting.comp_Status).toBe('Incomplete');
    for (const credit of ['none', 'prorata']) {
      const res = await as.request('PUT', `/v1/subscriptions/${waiting.subscriptionID}/pause`, {
        body: { Credit: credit },
      });
      expect([res.status, res.body.code], res.text).toEqual([409, 'subscription_incomplete']);
    }
  });

  it('a pause asked for inside a trial starts at the trial’s end, nothing credited', async () => {
    const { as, customerId, path } = await subscribedOn('2026-01-01', { chargePrice: 30, trialPeriod: 14 });
    // A 14-day trial from Jan 1: it ends on Jan 15, when the first month would be billed.
    await advanceToDay(as, '2026-01-05');
    const before = await invoiceFigures(as, customerId);
    const preview = await ok(as, 'PUT', `${path}/pause?preview=true`, { Credit: 'prorata' }, 200);
    expect([preview.Credits, preview.Invoices]).toEqual([[], []]);
    await ok(as, 'PUT', `${path}/pause`, { Credit: 'prorata', ResumeDate: '2026-03-01' });
    expect(await statusOf(as, path)).toMatchObject({
      status: 'Trial',
      pause: '2026-01-15',
      resume: '2026-03-01',
    });
    await advanceToDay(as, '2026-01-15');
    expect((await statusOf(as, path)).status).toBe('Paused');
    // Nothing billed on Jan 15 or while paused; on Mar 1 a new cycle, Mar 1 – Apr 1 at 30.00.
    await advanceToDay(as, '2026-03-01');
    expect(await invoiceFigures(as, customerId)).toEqual([...before, ['2026-03-01', 30, 30]]);
    expect((await statusOf(as, path)).status).toBe('Active');
  });

  it('a resume on or before the start of a pause not begun withdraws it, billing going on', async () => {
    const { as, customerId, path } = await subscribedOn('2026-01-01', { chargePrice: 30 });
    await ok(as, 'PUT', `${path}/pause`, { Credit: 'prorata', PauseDate: '2026-01-21' });
    // Jan 21 – Feb 1 is 11 of 31 days: credit 30.00 × 11 / 31 = 10.645… → 10.65.
    await ok(as, 'PUT', `${path}/resume`, {});
    expect((await statusOf(as, path)).pause).toBeNull();
    await advanceToDay(as, '2026-02-01');
    // The cut days are billed again as a stub on Jan 21 (10.65), then February whole.
    expect(await invoiceFigures(as, customerId)).toEqual([
      ['2026-01-01', 30, 19.35],
      ['2026-01-21', 10.65, 10.65],
      ['2026-02-01', 30, 30],
    ]);
  });
});
