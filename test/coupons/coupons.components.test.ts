import { describe, expect, it } from 'vitest';
import {
  createComponent,
  createCustomer,
  createPlan,
  invoicesOf,
  ok,
  subscribe,
} from '../helpers/billing.ts';
import {
  meteredComponent,
  meteredSubscription,
  sendEvents,
} from '../subscriptions/meteredBilling.fixtures.ts';
import { upcomingOf } from '../subscriptions/trial.helpers.ts';
import { advanceTo, createCoupon, linesOf, t, useCouponService } from './coupons.fixtures.ts';

// docs/credits.md, "Making a coupon": a coupon whose AppliesTo names components discounts only the usage lines of
// those components, metered or recorded by hand; the package's price and other components' usage stay whole. Test accounts start on 1 March 2026.
useCouponService();

describe('a coupon restricted to components', () => {
  it('discounts only the usage lines of the components it names', async () => {
    const as = await t.newAccount('Component coupon shop', { isTest: true });
    const api = await meteredComponent(as, 'api', 'count');
    const sms = await meteredComponent(as, 'sms', 'count');
    const { customerId, subscriptionId, plan } = await meteredSubscription(as, [
      api.componentId,
      sms.componentId,
    ]);
    await createCoupon(as, {
      Code: 'HALFAPI',
      PercentOff: 50,
      Duration: 'forever',
      AppliesTo: { ComponentIDs: [api.componentId] },
    });
    await ok(as, 'POST', `/v1/subscriptions/${subscriptionId}/coupons`, { Code: 'HALFAPI' });
    const event = (code: string, minute: number) => ({
      customerId,
      subscriptionId,
      code,
      at: `2026-03-02T09:${String(minute).padStart(2, '0')}:00Z`,
    });
    await sendEvents(as, [
      ...Array.from({ length: 6 }, (_, i) => event('api', i)),
      ...Array.from({ length: 4 }, (_, i) => event('sms', 10 + i)),
    ]);

    // 1 April: April's plan 30.00, March's 6 api calls at 1.00 = 6.00 and 4 sms at 1.00 = 4.00. Half off the api
    // line only: −3.00. Total 30.00 + 6.00 + 4.00 − 3.00 = 37.00 (not 40.00 − 20.00 = 20.00, as if every line).
    const upcoming = await upcomingOf(as, subscriptionId);
    await advanceTo(as, '2026-04-01');
    const april = (await invoicesOf(as, customerId)).at(-1);
    const lines = linesOf(april);
    expect(lines.filter((l: any[]) => l[0] === plan.name)).toEqual([[plan.name, 30, 30]]);
    expect(lines.map((l: any[]) => l[1]).sort((a: number, b: number) => a - b)).toEqual([-3, 4, 6, 30]);
    expect(lines.at(-1)).toEqual(['HALFAPI: −50 %', -3, -3]);
    expect(april.Total).toBe(37);
    expect(linesOf(upcoming)).toEqual(lines);
    expect(upcoming.Total).toBe(37);
  });

  it('takes a fixed amount from the named component’s recorded usage only, at most that line', async () => {
    const as = await t.newAccount('Fixed component coupon shop', { isTest: true });
    const plan = await createPlan(as, { chargePrice: 30 });
    const named = await createComponent(as, { name: 'Seats', unitName: 'seats' });
    const other = await createComponent(as, { name: 'Rooms', unitName: 'rooms' });
    const customerId = await createCustomer(as);
    const sub = await subscribe(as, customerId, plan, {
      componentUsage: [{ componentID: named.componentID }, { componentID: other.componentID }],
    });
    await createCoupon(as, {
      Code: 'SEATS10',
      AmountOff: 10,
      CurrencyCode: 'USD',
      Duration: 'forever',
      AppliesTo: { ComponentIDs: [named.componentID] },
    });
    await ok(as, 'POST', `/v1/subscriptions/${sub.subscriptionID}/coupons`, { Code: 'SEATS10' });
    await ok(
      as,
      'PUT',
      `/v1/subscriptions/${sub.subscriptionID}/components/recordusage`,
      [
        { componentID: named.componentID, NumUnits: 8, isSetUnits: true },
        { componentID: other.componentID, NumUnits: 12, isSetUnits: true },
      ],
      204,
    );

    // 1 April: the plan 30.00, 8 seats at 1.00 = 8.00 and 12 rooms at 1.00 = 12.00. The 10.00 off may take only
    // the seats' 8.00 (no line goes below zero, and the rest is not carried over): Total 30.00 + 8.00 + 12.00 −
    // 8.00 = 42.00.
    const upcoming = await upcomingOf(as, sub.subscriptionID);
    await advanceTo(as, '2026-04-01');
    const april = (await invoicesOf(as, customerId)).at(-1);
    expect(linesOf(april).at(-1)).toEqual(['SEATS10: −10.00 USD', -8, -8]);
    expect(april.Total).toBe(42);
    expect(linesOf(upcoming)).toEqual(linesOf(april));
  });
});
