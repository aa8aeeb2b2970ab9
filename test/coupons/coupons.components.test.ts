import { describe, expect, it } from 'vitest';
import { invoicesOf, ok } from '../helpers/billing.ts';
import {
  meteredComponent,
  meteredSubscription,
  sendEvents,
} from '../subscriptions/meteredBilling.fixtures.ts';
import { upcomingOf } from '../subscriptions/trial.helpers.ts';
import { advanceTo, createCoupon, linesOf, t, useCouponService } from './coupons.fixtures.ts';

// docs/credits.md, "Making a coupon": a coupon whose AppliesTo names components discounts only the usage lines of
// those components; the package's price and other components' usage stay whole. Test accounts start on 1 March 2026.
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
});
