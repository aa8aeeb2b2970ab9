import { describe, expect, it } from 'vitest';
import { createPlan, invoicesOf, ok, subscribe } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import {
  PortalClient,
  clock,
  customerWithLogin,
  hiddenFieldsOf,
  portalPath,
  t,
  usePortalService,
} from '../portal/fixtures.ts';
import { advanceToDay } from '../helpers/clock.ts';

// docs/portal.md, "Cancel with a way to stay", over HTTP on both databases: the portal's cancel asks the reason,
// shows the reason's first offer (a retention coupon, a cheaper package), takes it without cancelling or cancels
// anyway; every offer shown, taken or declined is an event, the cancel carries its reason, and the retention report
// counts them by month. One test account whose clock the file moves, so the tests run in order.

usePortalService();

let shop: TestAccount;
let plans: { full: Awaited<ReturnType<typeof createPlan>>; cheaper: Awaited<ReturnType<typeof createPlan>> };
let couponId: number;

const advance = (to: string) => advanceToDay(shop, to);

/** A signed-in customer subscribed since 1 March to the USD 31.00 monthly plan (March billed at once). */
async function subscribedCustomer() {
  const login = await customerWithLogin(shop);
  const sub = await subscribe(shop, login.customerId, plans.full);
  const client = new PortalClient(await portalPath(shop), t.url);
  expect((await client.signIn(login.username, login.password)).status).toBe(303);
  const detail = await client.get(`${client.base}subscriptions/${sub.subscriptionID}`);
  const form = hiddenFieldsOf(detail.text, `${client.base}subscriptions/${sub.subscriptionID}/cancel`);
  return { login, client, csrf: form['csrf']!, subscriptionId: sub.subscriptionID as number };
}

/** The account's events of one type, oldest first. */
async function eventsOf(type: string) {
  return ((await ok(shop, 'GET', `/v1/events?type=${type}&page_size=200`)) as any[]).reverse();
}

describe('cancel with a way to stay, in the portal', () => {
  it('sets up a test account on 1 March with a retention coupon, a cheaper plan and rules', async () => {
    // The account's test clock starts where the service's clock stands.
    clock.set('2026-03-01T10:00:00.000Z');
    shop = await t.newAccount('Stay Shop', { isTest: true });
    await ok(shop, 'PUT', '/v1/account', { PortalSlug: `stay-${process.pid}` });
    plans = {
      full: await createPlan(shop, { chargePrice: 31 }),
      cheaper: await createPlan(shop, { chargePrice: 20 }),
    };
    const coupon = await ok(shop, 'POST', '/v1/coupons', {
      Code: 'STAY50',
      Name: 'Half off to stay',
      PercentOff: 50,
      Duration: 'once',
      IsRetention: true,
    });
    couponId = coupon.couponID;
    await ok(
      shop,
      'PUT',
      '/v1/account/retention',
      {
        Reasons: [
          {
            Code: 'too_expensive',
            Label: 'It costs too much',
            Offers: [{ Kind: 'coupon', couponID: couponId }],
          },
          {
            Code: 'not_using',
            Label: 'We hardly use it',
            Offers: [
              { Kind: 'pause' },
              {
                Kind: 'package',
                packageID: plans.cheaper.packageId,
                packageRateTermID: plans.cheaper.rateTermId,
              },
            ],
          },
          { Code: 'other', Label: 'Another reason' },
        ],
      },
      200,
    );
  });

  it('takes a retention coupon instead of cancelling: nothing cancelled, the next invoice discounted', async () => {
    const { client, csrf, subscriptionId, login } = await subscribedCustomer();
    await advance('2026-03-15');
    const cancel = `${client.base}subscriptions/${subscriptionId}/cancel`;
    const detail = await client.get(`${client.base}subscriptions/${subscriptionId}`);
    // The select lists the account's reasons.
    expect(detail.text).toContain('<option value="not_using">We hardly use it</option>');

    const offer = await client.post(cancel, { csrf, reason: 'too_expensive', details: '' });
    expect(offer.status).toBe(200);
    expect(offer.text).toContain('Stay and get 50 % off');
    expect(offer.text).toContain('Keep Plan');
    expect(offer.text).toContain('your next invoice (coupon STAY50)');
    // Cancelling stays one tap away, on the same page: the end is the end of March's billed period.
    expect(offer.text).toContain('<strong>2026-04-01</strong>');
    expect(offer.text).toContain('Cancel anyway');
    const take = hiddenFieldsOf(offer.text, `${client.base}subscriptions/${subscriptionId}/retention`);
    expect(take).toEqual({ csrf, reason: 'too_expensive', offer: `coupon-${couponId}` });

    // Another customer's subscription is not found; nothing is redeemed on it.
    const stranger = await subscribedCustomer();
    const refused = await client.post(
      `${client.base}subscriptions/${stranger.subscriptionId}/retention`,
      take,
    );
    expect(refused.status).toBe(404);

    const taken = await client.post(`${client.base}subscriptions/${subscriptionId}/retention`, take);
    expect(taken.status, taken.text).toBe(303);
    expect(taken.headers.get('location')).toBe(`${client.base}subscriptions/${subscriptionId}?done=coupon`);
    const api = await ok(shop, 'GET', `/v1/subscriptions/${subscriptionId}`);
    expect([api.CancelDate, api.CancelReason]).toEqual([null, null]);
    expect(
      (await ok(shop, 'GET', `/v1/subscriptions/${subscriptionId}/coupons`)).map((r: any) => r.Code),
    ).toEqual(['STAY50']);
    expect((await ok(shop, 'GET', `/v1/subscriptions/${stranger.subscriptionId}/coupons`)).length).toBe(0);
    // Taken once: the same offer is not offered again while it still discounts (the plain confirmation instead).
    const again = await client.post(cancel, { csrf, reason: 'too_expensive', details: '' });
    expect(again.text).not.toContain('Stay and get');
    expect(again.text).toContain('name="confirm" value="yes"');

    // 1 April: April's 31.00 − 50 % = 31.00 − 15.50 = 15.50 (no tax on the account).
    await advance('2026-04-01');
    const april = (await invoicesOf(shop, login.customerId)).at(-1);
    expect(april.Charges.map((c: any) => [c.Descrip, c.AmountEx])).toEqual([
      [plans.full.name, 31],
      ['STAY50: −50 %', -15.5],
    ]);
    expect(april.Total).toBe(15.5);

    const [shown] = await eventsOf('retention.offer_shown');
    expect(shown.data.object).toMatchObject({
      subscriptionID: subscriptionId,
      Reason: 'too_expensive',
      Offer: { Kind: 'coupon', couponID: couponId },
      Date: '2026-03-15',
    });
    const [takenEvent] = await eventsOf('retention.offer_taken');
    expect(takenEvent.data.object).toMatchObject({
      subscriptionID: subscriptionId,
      Reason: 'too_expensive',
      Offer: { Kind: 'coupon', couponID: couponId },
    });
  });

  it('declines a cheaper package and cancels: the reason on the subscription and its cancelled event', async () => {
    const { client, csrf, subscriptionId } = await subscribedCustomer();
    await advance('2026-04-10');
    const cancel = `${client.base}subscriptions/${subscriptionId}/cancel`;
    // The pause comes first in the rules, but the account does not let customers pause (PortalPause off): the
    // package is the first offer shown.
    const offer = await client.post(cancel, { csrf, reason: 'not_using', details: 'Team shrank' });
    expect(offer.status).toBe(200);
    expect(offer.text).toContain('Move to Plan');
    expect(offer.text).toContain('USD 20.00 excl. tax every month, from your next renewal');
    const anyway = hiddenFieldsOf(offer.text, cancel);
    expect(anyway).toMatchObject({
      reason: 'not_using',
      details: 'Team shrank',
      declined: `package-${plans.cheaper.packageId}-${plans.cheaper.rateTermId}`,
      confirm: 'yes',
    });
    const done = await client.post(cancel, anyway);
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${client.base}subscriptions/${subscriptionId}?done=cancelled`);
    const api = await ok(shop, 'GET', `/v1/subscriptions/${subscriptionId}`);
    // Subscribed on 1 April, April billed: the cancellation ends it on 1 May, on the package it has.
    expect([api.CancelType, api.CancelDate.slice(0, 10), api.CancelReason]).toEqual([
      'renewal',
      '2026-05-01',
      'not_using',
    ]);
    expect(api.packageID).toBe(plans.full.packageId);

    const [declined] = await eventsOf('retention.offer_declined');
    expect(declined.data.object).toMatchObject({
      subscriptionID: subscriptionId,
      Reason: 'not_using',
      Offer: {
        Kind: 'package',
        packageID: plans.cheaper.packageId,
        packageRateTermID: plans.cheaper.rateTermId,
      },
      Date: '2026-04-10',
    });
    // 1 May: the cancellation takes effect, and its event carries the reason.
    await advance('2026-05-01');
    const cancelled = (await eventsOf('subscription.cancelled')).filter(
      (e) => e.data.object.subscriptionID === subscriptionId,
    );
    expect(cancelled.map((e) => e.data.object.CancelReason)).toEqual(['not_using']);
  });

  it('counts cancels, offers and subscriptions kept by month in the retention report', async () => {
    const report = (to: string) => ok(shop, 'GET', `/v1/reports/retention?from=2026-03-01&to=${to}`);
    const zero = { coupon: 0, package: 0, pause: 0 };
    // 1 May: the coupon taken on 15 March kept its subscription past 14 April (30 days): kept.
    expect(await report('2026-05-31')).toEqual({
      From: '2026-03-01',
      To: '2026-05-31',
      Months: [
        {
          Month: '2026-03',
          Cancels: 0,
          CancelsByReason: [],
          // Shown on the first cancel, taken; the second cancel of March showed nothing (the coupon was on it).
          OffersShown: { ...zero, coupon: 1 },
          OffersTaken: { ...zero, coupon: 1 },
          OffersDeclined: zero,
          Kept: 1,
          KeptPending: 0,
        },
        {
          Month: '2026-04',
          Cancels: 1,
          CancelsByReason: [{ Reason: 'not_using', Count: 1 }],
          OffersShown: { ...zero, package: 1 },
          OffersTaken: zero,
          OffersDeclined: { ...zero, package: 1 },
          Kept: 0,
          KeptPending: 0,
        },
        {
          Month: '2026-05',
          Cancels: 0,
          CancelsByReason: [],
          OffersShown: zero,
          OffersTaken: zero,
          OffersDeclined: zero,
          Kept: 0,
          KeptPending: 0,
        },
      ],
    });
    const bad = await shop.request('GET', '/v1/reports/retention?from=2026-05-01&to=2026-03-01');
    expect(bad.status).toBe(422);
    expect(bad.body.fields).toEqual([
      { field: 'from', message: 'must not be after to (2026-05-01 > 2026-03-01)' },
    ]);
    // Another account's report counts nothing of this one's.
    const elsewhere = await ok(t, 'GET', '/v1/reports/retention?from=2026-03-01&to=2026-03-31');
    expect(elsewhere.Months).toEqual([
      {
        Month: '2026-03',
        Cancels: 0,
        CancelsByReason: [],
        OffersShown: zero,
        OffersTaken: zero,
        OffersDeclined: zero,
        Kept: 0,
        KeptPending: 0,
      },
    ]);
  });
});
