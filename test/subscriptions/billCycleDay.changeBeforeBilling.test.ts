import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { createCustomer, createPlan, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { advanceToDay } from '../helpers/clock.ts';

// A subscription of a customer on a bill-cycle day whose package is changed before anything is billed (PUT
// changePackage while it is still Future) has its first period planned again for the new package, exactly as a
// subscription made on that package would be (docs/pricing.md, "Bill-cycle day").

const clock = movableClock('2026-01-20T10:00:00.000Z');
const t = useTestService({ clock });

const periodsOf = async (as: TestAccount, path: string) =>
  ((await ok(as, 'GET', `${path}/periods`)) as any[]).map((p) => [
    p.PeriodStart.slice(0, 10),
    p.PeriodEnd.slice(0, 10),
    p.Kind,
    p.Amount,
  ]);

describe('a change of package before billing, on a bill-cycle day', () => {
  it('to a package with a 20-day trial: trial, then a stub to the 1st, then the 1st (as a new subscription)', async () => {
    clock.set('2026-01-20T10:00:00.000Z');
    const as = await t.newAccount('Bcd', { isTest: true });
    const plain = await createPlan(as, { chargePrice: 31 });
    const trial = await createPlan(as, { chargePrice: 31, trialPeriod: 20, trialPeriodType: 'days' });
    const customerId = await createCustomer(as, { BillCycleDay: 1 });

    // Reference: subscribed to the trial package directly, from Jan 25: trial Jan 25–Feb 14, then the stub
    // Feb 14–Mar 1 over Feb 1–Mar 1 (28 days): 31.00 × 15 / 28 = 16.607… → 16.61, then 31.00 on the 1st.
    const direct = await subscribe(as, customerId, trial, { StartDate: '2026-01-25' });
    // The same, reached by changing the package before anything is billed.
    const changed = await subscribe(as, customerId, plain, { StartDate: '2026-01-25' });
    const path = `/v1/subscriptions/${changed.subscriptionID}`;
    await ok(as, 'PUT', `${path}/changePackage`, {
      packageID: trial.packageId,
      packageRateTermID: trial.rateTermId,
    });

    await advanceToDay(as, '2026-04-02');
    const expected = await periodsOf(as, `/v1/subscriptions/${direct.subscriptionID}`);
    expect(expected).toEqual([
      ['2026-01-25', '2026-02-14', 'trial', 0],
      ['2026-02-14', '2026-03-01', 'stub', 16.61],
      ['2026-03-01', '2026-04-01', 'term', 31],
      ['2026-04-01', '2026-05-01', 'term', 31],
    ]);
    // The sync date planned for the first package (Feb 1) would fall inside the new trial: the stub would be lost
    // and the subscription would renew on the 14th while still reading BillCycleDay 1.
    const sub = await ok(as, 'GET', path);
    expect([sub.BillCycleDay, sub.firstProrataSyncDate?.slice(0, 10)]).toEqual([1, '2026-03-01']);
    expect(await periodsOf(as, path)).toEqual(expected);
  });

  it('to a package of 30-day terms: the bill-cycle day no longer applies (docs: a term of days ignores it)', async () => {
    clock.set('2026-01-20T10:00:00.000Z');
    const as = await t.newAccount('Bcd days', { isTest: true });
    const monthly = await createPlan(as, { chargePrice: 30 });
    const days = await createPlan(as, { chargePrice: 30, chargeTerm: 30, chargeTermType: 'days' });
    const customerId = await createCustomer(as, { BillCycleDay: 1 });
    const direct = await subscribe(as, customerId, days, { StartDate: '2026-01-25' });
    const changed = await subscribe(as, customerId, monthly, { StartDate: '2026-01-25' });
    const path = `/v1/subscriptions/${changed.subscriptionID}`;
    await ok(as, 'PUT', `${path}/changePackage`, {
      packageID: days.packageId,
      packageRateTermID: days.rateTermId,
    });
    await advanceToDay(as, '2026-03-01');
    const expected = await periodsOf(as, `/v1/subscriptions/${direct.subscriptionID}`);
    // Direct: Jan 25–Feb 24, Feb 24–Mar 26 (no stub, the day is ignored).
    expect(expected[0]).toEqual(['2026-01-25', '2026-02-24', 'term', 30]);
    expect(await periodsOf(as, path)).toEqual(expected);
  });
});
