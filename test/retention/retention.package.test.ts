import { describe, expect, it } from 'vitest';
import { createPlan, invoicesOf, ok, subscribe } from '../helpers/billing.ts';
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

// docs/portal.md, "Cancel with a way to stay": a cheaper package taken in the portal's cancel is set for the next
// renewal (nothing charged today, nothing cancelled) and billed from then; the same subscription cancelled through
// the API within 30 days of the take is not counted as kept by the retention report.

usePortalService();

describe('a package offered to stay', () => {
  it('is taken for the next renewal, and a cancel through the API within 30 days is not kept', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const shop = await t.newAccount('Package Shop', { isTest: true });
    const advance = (to: string) => advanceToDay(shop, to);
    await ok(shop, 'PUT', '/v1/account', { PortalSlug: `package-${process.pid}` });
    const full = await createPlan(shop, { chargePrice: 31 });
    const cheaper = await createPlan(shop, { chargePrice: 20 });
    await ok(
      shop,
      'PUT',
      '/v1/account/retention',
      {
        Reasons: [
          {
            Code: 'other',
            Label: 'Another reason',
            Offers: [
              { Kind: 'package', packageID: cheaper.packageId, packageRateTermID: cheaper.rateTermId },
            ],
          },
        ],
      },
      200,
    );
    const login = await customerWithLogin(shop);
    const sub = await subscribe(shop, login.customerId, full);
    await advance('2026-03-15');

    const client = new PortalClient(await portalPath(shop), t.url);
    expect((await client.signIn(login.username, login.password)).status).toBe(303);
    const detail = await client.get(`${client.base}subscriptions/${sub.subscriptionID}`);
    // The account's one reason is the only choice.
    expect(detail.text).toContain('<option value="other">Another reason</option>');
    expect(detail.text).not.toContain('value="too_expensive"');
    const cancel = `${client.base}subscriptions/${sub.subscriptionID}/cancel`;
    const csrf = hiddenFieldsOf(detail.text, cancel)['csrf']!;
    // A reason the account does not list is refused, naming the field.
    const unknown = await client.post(cancel, { csrf, reason: 'too_expensive', details: '' });
    expect(unknown.status).toBe(422);
    expect(unknown.text).toContain('<a href="#reason">Choose why you are cancelling</a>');

    const offer = await client.post(cancel, { csrf, reason: 'other', details: '' });
    expect(offer.text).toContain(`Move to ${cheaper.name} instead`);
    const take = `${client.base}subscriptions/${sub.subscriptionID}/retention`;
    const fields = hiddenFieldsOf(offer.text, take);
    // An offer the rules do not make for the reason is refused, and nothing changes.
    const forged = await client.post(take, {
      ...fields,
      offer: `package-${full.packageId}-${full.rateTermId}`,
    });
    expect(forged.status).toBe(409);
    expect((await ok(shop, 'GET', `/v1/subscriptions/${sub.subscriptionID}`)).isFutureChange).toBe(false);

    const taken = await client.post(take, fields);
    expect(taken.status).toBe(303);
    expect(taken.headers.get('location')).toBe(
      `${client.base}subscriptions/${sub.subscriptionID}?done=changed`,
    );
    const changed = await ok(shop, 'GET', `/v1/subscriptions/${sub.subscriptionID}`);
    expect([changed.packageID, changed.isFutureChange, changed.CancelDate]).toEqual([
      full.packageId,
      true,
      null,
    ]);
    // Taken once: a second cancel shows the plain confirmation, the change already set for the renewal.
    const again = await client.post(cancel, { csrf, reason: 'other', details: '' });
    expect(again.text).not.toContain('Move to');
    expect(again.text).toContain('name="confirm" value="yes"');
    // Nothing charged on the take: March's invoice alone.
    expect((await invoicesOf(shop, login.customerId)).map((i: any) => i.Total)).toEqual([31]);

    // 1 April: the renewal on the cheaper plan, 20.00.
    await advance('2026-04-01');
    const april = (await invoicesOf(shop, login.customerId)).at(-1);
    expect([april.Charges[0].Descrip, april.Total]).toEqual([cheaper.name, 20]);
    // 10 April, within the 30 days after 15 March: cancelled through the API.
    await advance('2026-04-10');
    await ok(shop, 'PUT', `/v1/subscriptions/${sub.subscriptionID}/cancel/renewal`);
    await advance('2026-04-20');

    const report = await ok(shop, 'GET', '/v1/reports/retention?from=2026-03-01&to=2026-03-31');
    expect(report.Months).toEqual([
      {
        Month: '2026-03',
        Cancels: 0,
        CancelsByReason: [],
        OffersShown: { coupon: 0, package: 1, pause: 0 },
        OffersTaken: { coupon: 0, package: 1, pause: 0 },
        OffersDeclined: { coupon: 0, package: 0, pause: 0 },
        Kept: 0,
        KeptPending: 0,
      },
    ]);
    const bad = await shop.request('GET', '/v1/reports/retention?from=yesterday&to=2026-03-31');
    expect(bad.status).toBe(422);
    expect(bad.body.fields.map((f: any) => f.field)).toEqual(['from']);
  });
});
