import { afterEach, describe, expect, it } from 'vitest';
import { createPlan, invoicesOf, ok, subscribe } from '../helpers/billing.ts';
import { START, clock, customerWithLogin, other, signedIn, t, usePortalService } from './fixtures.ts';
import type { PortalClient } from './fixtures.ts';

// docs/portal.md, "What customers may change": subscriptions, cancelling at the end of the period, changing
// package. Every change made in the portal is read back through the API.

usePortalService();

afterEach(async () => {
  await ok(t, 'PUT', '/v1/account', { PortalAllowCancel: true, PortalSwitchPackageIDs: [] });
});

/** A customer with a login, subscribed since 1 March to a USD 31.00 monthly plan (March billed at once). */
async function subscribedCustomer(plan?: { packageId: number; rateTermId: number }) {
  const login = await customerWithLogin();
  const chosen = plan ?? (await createPlan(t, { chargePrice: 31 }));
  clock.set('2026-03-01T10:00:00.000Z');
  const sub = await subscribe(t, login.customerId, chosen, { StartDate: '2026-03-01' });
  clock.set(START);
  return { login, plan: chosen, subscriptionId: sub.subscriptionID as number };
}

const csrfOf = (client: PortalClient, id: number) => client.csrfOf(`${client.base}subscriptions/${id}`);

/** The net amount a change's confirmation carries, in minor units, as its preview page wrote it. */
const expectedOf = (previewPage: { text: string }) =>
  /name="expected" value="(-?\d+)"/.exec(previewPage.text)![1]!;

describe('subscriptions pages', () => {
  it("lists the customer's subscriptions with the next invoice the bill run will make, and only its own", async () => {
    const { login, subscriptionId } = await subscribedCustomer();
    const theirs = await subscribedCustomer();
    const upcoming = await ok(t, 'GET', `/v1/subscriptions/${subscriptionId}/upcoming-invoice`);
    // The next invoice: 1 April, for April, USD 31.00.
    expect(upcoming.Total).toBe(31);

    const client = await signedIn(login);
    const list = await client.get(`${client.base}subscriptions`);
    expect(list.status).toBe(200);
    expect(list.text).toContain(`href="${client.base}subscriptions/${subscriptionId}"`);
    expect(list.text).not.toContain(`subscriptions/${theirs.subscriptionId}"`);
    expect(list.text).toContain('USD 31.00 excl. tax every month');
    expect(list.text).toContain('2026-03-01');
    expect(list.text).toContain('USD 31.00 incl. tax<br><span class="muted">on 2026-04-01</span>');
    expect(list.text).toContain('aria-current="page">Subscriptions');

    const detail = await client.get(`${client.base}subscriptions/${subscriptionId}`);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain('USD 31.00 incl. tax on 2026-04-01');
    expect(detail.text).toContain('Cancel at the end of the period');
    // The overview's next invoice is the same figure, the earliest of the customer's subscriptions.
    const overview = await client.get(client.base);
    expect(overview.text).toContain('<dt>Next invoice</dt><dd>USD 31.00 incl. tax on 2026-04-01</dd>');

    for (const path of [
      `subscriptions/${theirs.subscriptionId}`,
      'subscriptions/99999999',
      'subscriptions/not-a-number',
    ]) {
      expect((await client.get(`${client.base}${path}`)).status, path).toBe(404);
    }
    const csrf = await csrfOf(client, subscriptionId);
    const refused = await client.post(`${client.base}subscriptions/${theirs.subscriptionId}/cancel`, {
      csrf,
      reason: 'too_expensive',
      confirm: 'yes',
    });
    expect(refused.status).toBe(404);
    const untouched = await ok(t, 'GET', `/v1/subscriptions/${theirs.subscriptionId}`);
    expect(untouched.CancelDate).toBeNull();
  });

  it('cancels at the end of the period after a confirmation that says when service ends', async () => {
    const { login, subscriptionId } = await subscribedCustomer();
    const client = await signedIn(login);
    const path = `${client.base}subscriptions/${subscriptionId}/cancel`;
    const csrf = await csrfOf(client, subscriptionId);

    const noReason = await client.post(path, { csrf, reason: '', details: '' });
    expect(noReason.status).toBe(422);
    expect(noReason.text).toContain('<a href="#reason">Choose why you are cancelling</a>');
    expect(noReason.text).toContain('aria-invalid="true"');
    const tooLong = await client.post(path, { csrf, reason: 'other', details: 'x'.repeat(501) });
    expect(tooLong.status).toBe(422);
    expect(tooLong.text).toContain('href="#details"');

    const confirm = await client.post(path, { csrf, reason: 'too_expensive', details: 'Budget cut\nfor Q2' });
    expect(confirm.status).toBe(200);
    // March is billed; the cancellation takes effect where the billed time ends, 1 April.
    expect(confirm.text).toContain('<strong>2026-04-01</strong>');
    expect(confirm.text).toContain('name="confirm" value="yes"');
    expect(confirm.text).toContain('It costs too much');
    // The confirmation changed nothing yet.
    expect((await ok(t, 'GET', `/v1/subscriptions/${subscriptionId}`)).CancelDate).toBeNull();

    const done = await client.post(path, {
      csrf,
      reason: 'too_expensive',
      details: 'Budget cut for Q2',
      confirm: 'yes',
    });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${client.base}subscriptions/${subscriptionId}?done=cancelled`);

    const api = await ok(t, 'GET', `/v1/subscriptions/${subscriptionId}`);
    expect(api.CancelType).toBe('renewal');
    expect(api.CancelDate.slice(0, 10)).toBe('2026-04-01');
    expect(api.comp_Status).toBe('Active');
    // The reason is in the audit log, with the change the portal made (a hosted page's actor: widget).
    const audit = await ok(
      t,
      'GET',
      `/v1/auditlog?resourceType=subscription&resourceID=${subscriptionId}&actorType=widget`,
    );
    expect(audit.length).toBeGreaterThan(0);
    for (const entry of audit) {
      expect(entry.Operation).toContain('reason: It costs too much; Budget cut for Q2');
      // Which of the customer's contacts asked: the portal session's.
      expect(entry.Operation).toContain(`[customer contact ${login.contactId}]`);
    }

    const after = await client.get(done.headers.get('location')!);
    expect(after.text).toContain('set to cancel at the end of its period, on 2026-04-01');
    expect(after.text).not.toContain('Cancel at the end of the period</h2>');
    // A second cancellation is refused: it is already ending.
    const again = await client.post(path, { csrf, reason: 'other', confirm: 'yes' });
    expect(again.status).toBe(409);
  });

  it('refuses to cancel when the account turned PortalAllowCancel off', async () => {
    const { login, subscriptionId } = await subscribedCustomer();
    const client = await signedIn(login);
    const csrf = await csrfOf(client, subscriptionId);
    await ok(t, 'PUT', '/v1/account', { PortalAllowCancel: false });
    expect((await ok(t, 'GET', '/v1/account')).PortalAllowCancel).toBe(false);

    const detail = await client.get(`${client.base}subscriptions/${subscriptionId}`);
    expect(detail.status).toBe(200);
    expect(detail.text).not.toContain('/cancel"');
    const refused = await client.post(`${client.base}subscriptions/${subscriptionId}/cancel`, {
      csrf,
      reason: 'too_expensive',
      confirm: 'yes',
    });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('cannot be cancelled here');
    expect((await ok(t, 'GET', `/v1/subscriptions/${subscriptionId}`)).CancelDate).toBeNull();
  });

  it("changes package with a preview equal to the API's, to the cent, then applies it", async () => {
    const target = await createPlan(t, { chargePrice: 62 });
    const notAllowed = await createPlan(t, { chargePrice: 5 });
    const { login, subscriptionId } = await subscribedCustomer();
    await ok(t, 'PUT', '/v1/account', { PortalSwitchPackageIDs: [target.packageId] });
    const client = await signedIn(login);
    const detailPath = `${client.base}subscriptions/${subscriptionId}`;
    const detail = await client.get(detailPath);
    const value = `${target.packageId}-${target.versionId}-${target.rateTermId}`;
    expect(detail.text).toContain(`value="${value}"`);
    expect(detail.text).not.toContain(`value="${notAllowed.packageId}-`);
    const csrf = await csrfOf(client, subscriptionId);

    const previewPage = await client.post(`${detailPath}/change`, { csrf, choice: value });
    expect(previewPage.status).toBe(200);
    const api = await ok(
      t,
      'PUT',
      `/v1/subscriptions/${subscriptionId}/changePackage?preview=true`,
      { packageID: target.packageId, packageRateTermID: target.rateTermId },
      200,
    );
    // 15 March to 1 April is 17 of March's 31 days: USD 17.00 of 31.00 credited, 17/31 of 62.00 = 34.00 charged.
    const creditCents = api.Credits.reduce((sum: number, c: any) => sum + Math.round(c.Amount * 100), 0);
    const chargeCents = api.Invoices.reduce((sum: number, i: any) => sum + Math.round(i.Total * 100), 0);
    expect(creditCents).toBe(1700);
    expect(chargeCents).toBe(3400);
    const figure = (name: string) =>
      new RegExp(`<dt>${name}</dt><dd>([^<]+)</dd>`).exec(previewPage.text)?.[1];
    expect(figure('Credit for unused time')).toBe('USD 17.00 incl. tax');
    expect(figure('Charge for the new terms')).toBe('USD 34.00 incl. tax');
    expect(figure('Net amount due now')).toBe('USD 17.00 incl. tax');
    expect(previewPage.text).toContain('name="confirm" value="yes"');
    // The preview changed nothing.
    expect((await ok(t, 'GET', `/v1/subscriptions/${subscriptionId}`)).packageID).not.toBe(target.packageId);

    expect(expectedOf(previewPage)).toBe('1700');
    const done = await client.post(`${detailPath}/change`, {
      csrf,
      choice: value,
      confirm: 'yes',
      expected: expectedOf(previewPage),
    });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${detailPath}?done=changed`);
    const changed = await ok(t, 'GET', `/v1/subscriptions/${subscriptionId}`);
    expect(changed.packageID).toBe(target.packageId);
    expect(changed.packageRateTermID).toBe(target.rateTermId);
    const credits = await ok(t, 'GET', `/v1/subscriptions/${subscriptionId}/credits`);
    expect(credits.map((c: any) => c.Amount)).toEqual(api.Credits.map((c: any) => c.Amount));
    const events = await ok(t, 'GET', `/v1/events?page_size=100`);
    expect(
      events.some(
        (e: any) => e.type === 'subscription.updated' && e.data?.object?.subscriptionID === subscriptionId,
      ),
    ).toBe(true);
  });

  it('refuses a confirmation whose amount moved since the preview, and shows the new preview', async () => {
    const target = await createPlan(t, { chargePrice: 62 });
    const { login, subscriptionId } = await subscribedCustomer();
    await ok(t, 'PUT', '/v1/account', { PortalSwitchPackageIDs: [target.packageId] });
    const client = await signedIn(login);
    const detailPath = `${client.base}subscriptions/${subscriptionId}`;
    const value = `${target.packageId}-${target.versionId}-${target.rateTermId}`;
    const csrf = await csrfOf(client, subscriptionId);
    const previewPage = await client.post(`${detailPath}/change`, { csrf, choice: value });
    // On 15 March: 17 days of 31 left, USD 34.00 charged less USD 17.00 credited.
    expect(previewPage.text).toContain('<dt>Net amount due now</dt><dd>USD 17.00 incl. tax</dd>');
    const before = await ok(t, 'GET', `/v1/subscriptions/${subscriptionId}`);
    try {
      clock.set('2026-03-16T10:00:00.000Z');
      const stale = await client.post(`${detailPath}/change`, {
        csrf,
        choice: value,
        confirm: 'yes',
        expected: expectedOf(previewPage),
      });
      expect(stale.status).toBe(422);
      expect(stale.text).toContain('role="alert"');
      expect(stale.text).toContain('The amounts changed since you looked');
      // On 16 March: 16 days left, USD 32.00 charged less USD 16.00 credited.
      expect(stale.text).toContain('<dt>Net amount due now</dt><dd>USD 16.00 incl. tax</dd>');
      expect(expectedOf(stale)).toBe('1600');
      // Nothing changed: the same subscription, no credits, no new invoice.
      expect(await ok(t, 'GET', `/v1/subscriptions/${subscriptionId}`)).toEqual(before);
      expect(await ok(t, 'GET', `/v1/subscriptions/${subscriptionId}/credits`)).toEqual([]);
      // A form without the amount (an older page) is refused the same way.
      const bare = await client.post(`${detailPath}/change`, { csrf, choice: value, confirm: 'yes' });
      expect(bare.status).toBe(422);

      const done = await client.post(`${detailPath}/change`, {
        csrf,
        choice: value,
        confirm: 'yes',
        expected: expectedOf(stale),
      });
      expect(done.status, done.text).toBe(303);
      const credits = await ok(t, 'GET', `/v1/subscriptions/${subscriptionId}/credits`);
      expect(credits.map((c: any) => c.Amount)).toEqual([16]);
    } finally {
      clock.set(START);
    }
  });

  it("changes the term within the package, priced as the API's changeterm preview", async () => {
    const plan = await createPlan(t, {
      chargePrice: 31,
      extraTerms: [{ ChargePrice: 300, ChargeTerm: 12, ChargeTermType: 'months' }],
    });
    const { login, subscriptionId } = await subscribedCustomer(plan);
    await ok(t, 'PUT', '/v1/account', { PortalSwitchPackageIDs: [plan.packageId] });
    const yearly = plan.rateTermIds[1]!;
    const client = await signedIn(login);
    const detailPath = `${client.base}subscriptions/${subscriptionId}`;
    const detail = await client.get(detailPath);
    // The term it has is not offered; the yearly one is.
    expect(detail.text).not.toContain(`value="${plan.packageId}-${plan.versionId}-${plan.rateTermId}"`);
    const value = `${plan.packageId}-${plan.versionId}-${yearly}`;
    expect(detail.text).toContain(`value="${value}"`);
    expect(detail.text).toContain('USD 300.00 every 12 months');
    const csrf = await csrfOf(client, subscriptionId);

    const previewPage = await client.post(`${detailPath}/change`, { csrf, choice: value });
    expect(previewPage.status).toBe(200);
    const api = await ok(
      t,
      'PUT',
      `/v1/subscriptions/${subscriptionId}/changeterm?preview=true`,
      { packageRateTermID: yearly },
      200,
    );
    // A term of another length starts a new term today: 17 unused March days credited (USD 17.00), a whole year
    // charged (USD 300.00), USD 283.00 due.
    const cents = (amounts: number[]) => amounts.reduce((sum, a) => sum + Math.round(a * 100), 0);
    expect(cents(api.Credits.map((c: any) => c.Amount))).toBe(1700);
    expect(cents(api.Invoices.map((i: any) => i.Total))).toBe(30000);
    expect(previewPage.text).toContain('<dt>Net amount due now</dt><dd>USD 283.00 incl. tax</dd>');

    const done = await client.post(`${detailPath}/change`, {
      csrf,
      choice: value,
      confirm: 'yes',
      expected: expectedOf(previewPage),
    });
    expect(done.status).toBe(303);
    const changed = await ok(t, 'GET', `/v1/subscriptions/${subscriptionId}`);
    expect(changed.packageRateTermID).toBe(yearly);
    expect(changed.nextRenewDate.slice(0, 10)).toBe('2027-03-15');
  });

  it('confirms at most 5 package changes a day per contact, then refuses the 6th and changes nothing', async () => {
    const plan = await createPlan(t, { chargePrice: 31 });
    const other = await createPlan(t, { chargePrice: 62 });
    const { login, subscriptionId } = await subscribedCustomer(plan);
    await ok(t, 'PUT', '/v1/account', { PortalSwitchPackageIDs: [plan.packageId, other.packageId] });
    const client = await signedIn(login);
    const csrf = await csrfOf(client, subscriptionId);
    const path = `${client.base}subscriptions/${subscriptionId}/change`;
    const choiceOf = (p: typeof plan) => `${p.packageId}-${p.versionId}-${p.rateTermId}`;
    const changeTo = async (p: typeof plan) => {
      const previewPage = await client.post(path, { csrf, choice: choiceOf(p) });
      expect(previewPage.status).toBe(200);
      return client.post(path, {
        csrf,
        choice: choiceOf(p),
        confirm: 'yes',
        expected: expectedOf(previewPage),
      });
    };
    // Back and forth: each change issues an invoice (or a credit), its events and its e-mail.
    for (const to of [other, plan, other, plan, other]) expect((await changeTo(to)).status).toBe(303);
    const invoicesBefore = await invoicesOf(t, login.customerId);

    const refused = await changeTo(plan);
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('at most 5 times a day');
    expect((await ok(t, 'GET', `/v1/subscriptions/${subscriptionId}`)).packageID).toBe(other.packageId);
    expect(await invoicesOf(t, login.customerId)).toEqual(invoicesBefore);
  });

  it('refuses a package the account does not allow, and every change when it allows none', async () => {
    const allowed = await createPlan(t, { chargePrice: 62 });
    const notAllowed = await createPlan(t, { chargePrice: 5 });
    const { login, subscriptionId, plan } = await subscribedCustomer();
    const client = await signedIn(login);
    const csrf = await csrfOf(client, subscriptionId);
    const path = `${client.base}subscriptions/${subscriptionId}/change`;
    const forged = `${notAllowed.packageId}-${notAllowed.versionId}-${notAllowed.rateTermId}`;

    const none = await client.post(path, { csrf, choice: forged, confirm: 'yes' });
    expect(none.status).toBe(403);

    await ok(t, 'PUT', '/v1/account', { PortalSwitchPackageIDs: [allowed.packageId] });
    const refused = await client.post(path, { csrf, choice: forged, confirm: 'yes' });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('<a href="#choice">Choose one of the packages offered</a>');
    const api = await ok(t, 'GET', `/v1/subscriptions/${subscriptionId}`);
    expect(api.packageID).toBe(plan.packageId);
    expect((await ok(t, 'GET', `/v1/subscriptions/${subscriptionId}/credits`)).length).toBe(0);
  });
});

describe('the portal settings of PUT /v1/account', () => {
  it('default to cancelling allowed and no switching, and refuse packages the account does not have', async () => {
    const fresh = await t.newAccount();
    const account = await ok(fresh, 'GET', '/v1/account');
    expect(account.PortalAllowCancel).toBe(true);
    expect(account.PortalSwitchPackageIDs).toEqual([]);

    const mine = await createPlan(t);
    const theirs = await createPlan(other);
    for (const ids of [[theirs.packageId], [mine.packageId, 99999999]]) {
      const res = await t.request('PUT', '/v1/account', { body: { PortalSwitchPackageIDs: ids } });
      expect(res.status, res.text).toBe(422);
      expect(res.text).toContain('PortalSwitchPackageIDs');
    }
    expect((await ok(t, 'GET', '/v1/account')).PortalSwitchPackageIDs).toEqual([]);
    await ok(t, 'PUT', '/v1/account', { PortalSwitchPackageIDs: [mine.packageId, mine.packageId] });
    expect((await ok(t, 'GET', '/v1/account')).PortalSwitchPackageIDs).toEqual([mine.packageId]);
  });
});
