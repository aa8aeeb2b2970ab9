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
} from './fixtures.ts';

// docs/portal.md, "Pausing": a contact pauses its own subscription in the portal, within the account's limits
// (PortalPause, MaxPauseDays, MaxPausesPerYear); beyond them the page says why and pauses nothing. Each pause is the
// API's (credit none, from the end of the billed period), read back over the API; invoices are computed by hand.

usePortalService();

const day = (wire: string | null | undefined) => (wire ? wire.slice(0, 10) : null);
let shops = 0;

async function pauseShop() {
  clock.set('2026-03-01T10:00:00.000Z');
  const shop = await t.newAccount(`Pause Shop ${++shops}`, { isTest: true });
  await ok(shop, 'PUT', '/v1/account', { PortalSlug: `pause-${process.pid}-${shops}` });
  const plan = await createPlan(shop, { chargePrice: 31 });
  const login = await customerWithLogin(shop);
  const sub = await subscribe(shop, login.customerId, plan);
  const client = new PortalClient(await portalPath(shop), t.url);
  expect((await client.signIn(login.username, login.password)).status).toBe(303);
  const id = sub.subscriptionID as number;
  return {
    shop,
    client,
    id,
    customerId: login.customerId,
    advance: (to: string) => ok(shop, 'POST', '/v1/test-clock/advance', { To: `${to}T10:00:00.000Z` }, 200),
    pausePage: `${client.base}subscriptions/${id}/pause`,
    detailPage: `${client.base}subscriptions/${id}`,
  };
}

const pauseOf = async (shop: TestAccount, id: number) => {
  const s = await ok(shop, 'GET', `/v1/subscriptions/${id}`);
  return {
    status: s.comp_Status,
    pause: day(s.PauseDate),
    resume: day(s.ResumeDate),
    credit: s.PauseCredit ?? null,
  };
};
const invoiceFigures = async (shop: TestAccount, customerId: number) =>
  (await invoicesOf(shop, customerId)).map((i) => [day(i.InvoiceDate), i.Total]);

describe('the pause settings', () => {
  it('are off, 90 days and once a year until set, and refuse values out of range naming the field', async () => {
    const { shop } = await pauseShop();
    const read = async () => {
      const a = await ok(shop, 'GET', '/v1/account');
      return [a.PortalPause, a.MaxPauseDays, a.MaxPausesPerYear];
    };
    expect(await read()).toEqual([false, 90, 1]);
    for (const [field, value] of [
      ['MaxPauseDays', 0],
      ['MaxPauseDays', 366],
      ['MaxPausesPerYear', 0],
      ['MaxPausesPerYear', 13],
      ['PortalPause', 'yes'],
    ] as const) {
      const res = await shop.request('PUT', '/v1/account', { body: { [field]: value } });
      expect(res.status, res.text).toBe(422);
      expect(res.body.fields.map((f: any) => f.field)).toEqual([field]);
    }
    expect(await read()).toEqual([false, 90, 1]);
    await ok(shop, 'PUT', '/v1/account', { PortalPause: true, MaxPauseDays: 365, MaxPausesPerYear: 12 });
    expect(await read()).toEqual([true, 365, 12]);
  });
});

describe('a pause in the portal', () => {
  it('is refused while the account does not allow it, and no link is shown', async () => {
    const { shop, client, id, pausePage, detailPage } = await pauseShop();
    const detail = await client.get(detailPage);
    expect(detail.text).not.toContain('Pause this subscription');
    const page = await client.get(pausePage);
    expect(page.status).toBe(403);
    expect(page.text).toContain('does not take pauses in the portal');
    const csrf = hiddenFieldsOf(detail.text, `${client.base}subscriptions/${id}/cancel`)['csrf']!;
    const posted = await client.post(pausePage, { csrf, resume: '2026-04-15', confirm: 'yes' });
    expect(posted.status).toBe(403);
    expect(await pauseOf(shop, id)).toEqual({ status: 'Active', pause: null, resume: null, credit: null });
  });

  it('within the limits: from the end of the billed month to the day chosen; too long or too often refused', async () => {
    const { shop, client, id, customerId, advance, pausePage, detailPage } = await pauseShop();
    await ok(shop, 'PUT', '/v1/account', { PortalPause: true, MaxPauseDays: 60, MaxPausesPerYear: 2 });
    await advance('2026-03-10');
    const detail = await client.get(detailPage);
    expect(detail.text).toContain(`href="${pausePage}">Pause this subscription</a>`);

    // 1 Mar – 1 Apr was invoiced on 1 Mar: the pause starts on 1 Apr; 60 days later is 31 May.
    const form = await client.get(pausePage);
    expect(form.status).toBe(200);
    expect(form.text).toContain('Your pause starts on <strong>2026-04-01</strong>');
    expect(form.text).toContain('min="2026-04-02" max="2026-05-31" value="2026-05-31"');
    const csrf = hiddenFieldsOf(form.text, pausePage)['csrf']!;

    // A day that does not exist is refused, naming the field, and nothing is paused.
    const noDay = await client.post(pausePage, { csrf, resume: '2026-02-31', confirm: 'yes' });
    expect(noDay.status).toBe(422);
    expect(noDay.text).toContain('<a href="#resume">Choose a resume date: it ');
    // 1 Jun is 61 days after 1 Apr: refused, naming the latest day, and nothing is paused.
    const tooLong = await client.post(pausePage, { csrf, resume: '2026-06-01' });
    expect(tooLong.status).toBe(422);
    expect(tooLong.text).toContain('Nothing was paused');
    expect(tooLong.text).toContain(
      'must be at most 60 days after the pause starts (2026-04-01): on or before 2026-05-31',
    );
    expect(await pauseOf(shop, id)).toEqual({ status: 'Active', pause: null, resume: null, credit: null });
    const forged = await client.post(pausePage, { csrf, resume: '2026-06-01', confirm: 'yes' });
    expect(forged.status).toBe(422);
    expect(await pauseOf(shop, id)).toEqual({ status: 'Active', pause: null, resume: null, credit: null });

    // 1 May: the confirmation shows the pause's days and the invoice of the new cycle from 1 May, 31.00.
    const confirm = await client.post(pausePage, { csrf, resume: '2026-05-01' });
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('<dt>Pause starts on</dt><dd>2026-04-01</dd>');
    expect(confirm.text).toContain('<dt>Resumes on</dt><dd>2026-05-01</dd>');
    expect(confirm.text).toContain('<dt>Next invoice</dt><dd>USD 31.00 incl. tax on 2026-05-01</dd>');
    // The confirmation was a preview: nothing is paused yet.
    expect(await pauseOf(shop, id)).toEqual({ status: 'Active', pause: null, resume: null, credit: null });
    const paused = await client.post(pausePage, hiddenFieldsOf(confirm.text, pausePage));
    expect(paused.status).toBe(303);
    expect(paused.headers.get('location')).toBe(`${detailPage}?done=paused`);
    expect(await pauseOf(shop, id)).toEqual({
      status: 'Active',
      pause: '2026-04-01',
      resume: '2026-05-01',
      credit: 'none',
    });
    const after = await client.get(`${detailPage}?done=paused`);
    expect(after.text).toContain('A pause of this subscription starts on 2026-04-01 until 2026-05-01');
    expect(after.text).toContain('Resume now');
    expect(after.text).not.toContain('Pause this subscription');

    await advance('2026-04-10');
    expect((await pauseOf(shop, id)).status).toBe('Paused');
    // Nothing for April: March's 31.00 alone.
    expect(await invoiceFigures(shop, customerId)).toEqual([['2026-03-01', 31]]);
    // 1 May: a new cycle from the resume day, 1 May – 1 Jun, 31.00.
    await advance('2026-05-01');
    expect(await invoiceFigures(shop, customerId)).toEqual([
      ['2026-03-01', 31],
      ['2026-05-01', 31],
    ]);

    // A second pause (2 of 2 in 365 days): from 1 Jun, resumed now on 5 Jun from the page.
    await advance('2026-05-20');
    const second = await client.post(pausePage, { csrf, resume: '2026-07-01' });
    expect(second.text).toContain('<dt>Pause starts on</dt><dd>2026-06-01</dd>');
    expect((await client.post(pausePage, hiddenFieldsOf(second.text, pausePage))).status).toBe(303);
    await advance('2026-06-05');
    expect(await pauseOf(shop, id)).toEqual({
      status: 'Paused',
      pause: '2026-06-01',
      resume: '2026-07-01',
      credit: 'none',
    });
    const pausedPage = await client.get(detailPage);
    expect(pausedPage.text).toContain('This subscription is paused until 2026-07-01');
    const resume = `${detailPage}/resume`;
    const resumed = await client.post(resume, hiddenFieldsOf(pausedPage.text, resume));
    expect(resumed.status).toBe(303);
    expect(resumed.headers.get('location')).toBe(`${detailPage}?done=resumed`);
    expect(await pauseOf(shop, id)).toEqual({
      status: 'Active',
      pause: '2026-06-01',
      resume: '2026-06-05',
      credit: 'none',
    });
    // Resumed on 5 Jun on a new cycle (resume_day): 5 Jun – 5 Jul, 31.00, invoiced today.
    expect(await invoiceFigures(shop, customerId)).toEqual([
      ['2026-03-01', 31],
      ['2026-05-01', 31],
      ['2026-06-05', 31],
    ]);
    // Resuming again is refused: it is not paused.
    expect((await client.post(resume, { csrf })).status).toBe(409);

    // Two pauses made since 10 Mar, within 365 days: a third is refused, saying why, and nothing is paused.
    await advance('2026-06-10');
    const refused = await client.get(pausePage);
    expect(refused.status).toBe(409);
    expect(refused.text).toContain(
      'at most 2 times in 365 days, and this one was paused 2 times in that time',
    );
    expect(refused.text).toContain('Nothing was paused');
    const posted = await client.post(pausePage, { csrf, resume: '2026-07-15', confirm: 'yes' });
    expect(posted.status).toBe(409);
    expect(await pauseOf(shop, id)).toEqual({
      status: 'Active',
      pause: '2026-06-01',
      resume: '2026-06-05',
      credit: 'none',
    });
    expect(await invoiceFigures(shop, customerId)).toHaveLength(3);
  });

  it('counts the last 365 days: once a year, the next pause is allowed a year after the first', async () => {
    const { shop, client, id, advance, pausePage } = await pauseShop();
    await ok(shop, 'PUT', '/v1/account', { PortalPause: true, MaxPauseDays: 30 });
    const form = await client.get(pausePage);
    const csrf = hiddenFieldsOf(form.text, pausePage)['csrf']!;
    // Made on 1 Mar: 1 Apr – 1 May (30 days, the most).
    const confirm = await client.post(pausePage, { csrf, resume: '2026-05-01' });
    expect((await client.post(pausePage, hiddenFieldsOf(confirm.text, pausePage))).status).toBe(303);
    expect(await pauseOf(shop, id)).toMatchObject({ pause: '2026-04-01', resume: '2026-05-01' });
    // 28 Feb 2027 is day 365 of the window that holds 1 Mar 2026: refused. 1 Mar 2027 is not: allowed.
    await advance('2027-02-28');
    expect((await client.get(pausePage)).status).toBe(409);
    await advance('2027-03-01');
    expect((await client.get(pausePage)).status).toBe(200);
  });

  it("answers 404 for another customer's subscription and pauses nothing", async () => {
    const { shop, client, id, pausePage } = await pauseShop();
    await ok(shop, 'PUT', '/v1/account', { PortalPause: true });
    const plan = await createPlan(shop, { chargePrice: 10 });
    const stranger = await customerWithLogin(shop);
    const theirs = await subscribe(shop, stranger.customerId, plan);
    const csrf = hiddenFieldsOf((await client.get(pausePage)).text, pausePage)['csrf']!;
    const path = `${client.base}subscriptions/${theirs.subscriptionID}/pause`;
    expect((await client.get(path)).status).toBe(404);
    expect((await client.post(path, { csrf, resume: '2026-04-15', confirm: 'yes' })).status).toBe(404);
    expect((await pauseOf(shop, theirs.subscriptionID)).pause).toBeNull();
    expect((await pauseOf(shop, id)).pause).toBeNull();
  });
});
