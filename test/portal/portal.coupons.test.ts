import { describe, expect, it } from 'vitest';
import { createPlan, ok, subscribe } from '../helpers/billing.ts';
import { START, clock, customerWithLogin, signedIn, t, usePortalService } from './fixtures.ts';

// docs/credits.md, "Coupons": a customer enters a coupon's code on a subscription's page in the portal, when the
// account offers the coupon there (PortalRedeemable); what is applied is read back through the API.

usePortalService();

/** A customer with a login, subscribed since 1 March to a USD 31.00 monthly plan (March billed at once). */
async function subscribedCustomer() {
  const login = await customerWithLogin();
  const plan = await createPlan(t, { chargePrice: 31 });
  clock.set('2026-03-01T10:00:00.000Z');
  const sub = await subscribe(t, login.customerId, plan, { StartDate: '2026-03-01' });
  clock.set(START);
  return { login, subscriptionId: sub.subscriptionID as number };
}

describe('coupons in the portal', () => {
  it('applies a coupon the account offers there, and refuses any other code, changing nothing', async () => {
    const { login, subscriptionId } = await subscribedCustomer();
    const other = await subscribedCustomer();
    const client = await signedIn(login);
    const page = `${client.base}subscriptions/${subscriptionId}`;
    const action = `${page}/coupon`;
    const coupons = `/v1/subscriptions/${subscriptionId}/coupons`;

    // No coupon offered in the portal yet: no form.
    await ok(t, 'POST', '/v1/coupons', {
      Code: 'STAFF50',
      Name: 'Staff',
      PercentOff: 50,
      Duration: 'forever',
    });
    expect((await client.get(page)).text).not.toContain('Coupon code');
    await ok(t, 'POST', '/v1/coupons', {
      Code: 'WEB10',
      Name: 'Web offer',
      PercentOff: 10,
      Duration: 'repeating',
      DurationPeriods: 2,
      PortalRedeemable: true,
    });
    const csrf = await client.csrfOf(page);
    expect((await client.get(page)).text).toContain('<label for="code">Coupon code</label>');

    // A coupon not offered in the portal reads as unknown there, as a code no coupon has.
    for (const code of ['staff50', 'NOPE', 'web 10']) {
      const refused = await client.post(action, { csrf, code });
      expect(refused.status, code).toBe(422);
      expect(refused.text).toContain('<a href="#code">That coupon code is not valid</a>');
    }
    expect(await ok(t, 'GET', coupons)).toEqual([]);

    const applied = await client.post(action, { csrf, code: ' web10 ' });
    expect(applied.status).toBe(303);
    expect(applied.headers.get('location')).toBe(`${page}?done=coupon`);
    const shown = await client.get(`${page}?done=coupon`);
    expect(shown.text).toContain('Your coupon was applied');
    expect(shown.text).toContain('<strong>WEB10</strong>: Web offer, on the next 2 invoices');
    expect((await ok(t, 'GET', coupons)).map((r: any) => [r.Code, r.PeriodsLeft])).toEqual([['WEB10', 2]]);
    // The next invoice, 1 April: 31.00 − 10 % = 27.90.
    expect((await ok(t, 'GET', `/v1/subscriptions/${subscriptionId}/upcoming-invoice`)).Total).toBe(27.9);

    const again = await client.post(action, { csrf, code: 'WEB10' });
    expect(again.status).toBe(422);
    expect(again.text).toContain('That coupon is already applied to this subscription');
    // Another customer's subscription is not found, and gets nothing.
    expect(
      (
        await client.post(`${client.base}subscriptions/${other.subscriptionId}/coupon`, {
          csrf,
          code: 'WEB10',
        })
      ).status,
    ).toBe(404);
    expect(await ok(t, 'GET', `/v1/subscriptions/${other.subscriptionId}/coupons`)).toEqual([]);
  });
});
