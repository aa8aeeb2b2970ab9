import { expect } from 'vitest';
import { createPlan, subscribe } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { ok } from '../helpers/resourceEvents.ts';
import { PortalClient, hiddenFieldsOf } from '../portal/fixtures.ts';
import { t } from './catalogueWalk.fixtures.ts';

/**
 * retention: two customers cancel in the portal for a reason that offers a retention coupon (docs/portal.md,
 * "Cancel with a way to stay"); the first takes it, the second cancels anyway.
 */
export async function walkRetention(account: TestAccount) {
  const coupon = await ok(account, 'POST', '/v1/coupons', {
    Code: 'STAY',
    Name: 'Stay with us',
    PercentOff: 50,
    Duration: 'once',
    IsRetention: true,
  });
  await ok(account, 'PUT', '/v1/account/retention', {
    Reasons: [
      {
        Code: 'too_expensive',
        Label: 'It costs too much',
        Offers: [{ Kind: 'coupon', couponID: coupon.couponID }],
      },
      { Code: 'other', Label: 'Another reason' },
    ],
  });
  await ok(account, 'PUT', '/v1/account', { PortalSlug: `walk-${process.pid}` });
  const portal = new URL((await ok(account, 'GET', '/v1/account')).PortalURL).pathname;
  const plan = await createPlan(account, { chargePrice: 30 });
  for (const [n, choice] of [
    [1, 'take'],
    [2, 'decline'],
  ] as const) {
    const customerID = (await ok(account, 'POST', '/v1/customers', { Name: `Leaving ${n}` })).customerID;
    const username = `leaving${n}-${process.pid}`;
    await ok(account, 'POST', '/v1/customercontacts', {
      customerID,
      Name: 'Lee',
      LastName: 'Leaving',
      Email: `leaving${n}@example.com`,
      Username: username,
      Password: 'secret123',
    });
    const sub = await subscribe(account, customerID, plan);
    const client = new PortalClient(portal, t.url);
    expect((await client.signIn(username, 'secret123')).status).toBe(303);
    const cancel = `${client.base}subscriptions/${sub.subscriptionID}/cancel`;
    const csrf = await client.csrfOf(`${client.base}subscriptions/${sub.subscriptionID}`);
    const offer = await client.post(cancel, { csrf, reason: 'too_expensive', details: '' });
    const action = choice === 'take' ? `${client.base}subscriptions/${sub.subscriptionID}/retention` : cancel;
    const done = await client.post(action, hiddenFieldsOf(offer.text, action));
    expect(done.status, done.text).toBe(303);
  }
}
