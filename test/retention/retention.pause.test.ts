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

// docs/portal.md, "Cancel with a way to stay" and "Pausing": a pause offered to stay, when the account lets its
// customers pause (PortalPause), is a pause of MaxPauseDays from the end of the billed period; taking it cancels
// nothing, counts against MaxPausesPerYear, and the report counts it as a pause taken.

usePortalService();

const day = (wire: string | null | undefined) => (wire ? wire.slice(0, 10) : null);

describe('a pause offered to stay', () => {
  it('pauses for MaxPauseDays from the end of the billed month, and is not offered beyond the limit', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const shop = await t.newAccount('Pause Offer Shop', { isTest: true });
    const advance = (to: string) => advanceToDay(shop, to);
    await ok(shop, 'PUT', '/v1/account', {
      PortalSlug: `pause-offer-${process.pid}`,
      PortalPause: true,
      MaxPauseDays: 45,
      MaxPausesPerYear: 1,
    });
    const plan = await createPlan(shop, { chargePrice: 31 });
    await ok(
      shop,
      'PUT',
      '/v1/account/retention',
      { Reasons: [{ Code: 'other', Label: 'Another reason', Offers: [{ Kind: 'pause' }] }] },
      200,
    );
    const login = await customerWithLogin(shop);
    const sub = await subscribe(shop, login.customerId, plan);
    const id = sub.subscriptionID as number;
    await advance('2026-03-15');

    const client = new PortalClient(await portalPath(shop), t.url);
    expect((await client.signIn(login.username, login.password)).status).toBe(303);
    const detail = await client.get(`${client.base}subscriptions/${id}`);
    const cancel = `${client.base}subscriptions/${id}/cancel`;
    const csrf = hiddenFieldsOf(detail.text, cancel)['csrf']!;
    const offer = await client.post(cancel, { csrf, reason: 'other', details: '' });
    expect(offer.status).toBe(200);
    // 1 Mar – 1 Apr is billed: the pause starts on 1 Apr and lasts 45 days, to 16 May.
    expect(offer.text).toContain('Pause instead');
    expect(offer.text).toContain(
      `Keep ${plan.name} until 2026-04-01, the end of the period already billed, then pause it until 2026-05-16.`,
    );
    const take = `${client.base}subscriptions/${id}/retention`;
    const taken = await client.post(take, hiddenFieldsOf(offer.text, take));
    expect(taken.status).toBe(303);
    expect(taken.headers.get('location')).toBe(`${client.base}subscriptions/${id}?done=paused`);
    const paused = await ok(shop, 'GET', `/v1/subscriptions/${id}`);
    expect([day(paused.PauseDate), day(paused.ResumeDate), paused.PauseCredit, paused.CancelDate]).toEqual([
      '2026-04-01',
      '2026-05-16',
      'none',
      null,
    ]);

    // Nothing is invoiced from 1 Apr to 16 May; on 16 May a new cycle, 16 May – 16 Jun, 31.00.
    await advance('2026-05-16');
    expect((await invoicesOf(shop, login.customerId)).map((i: any) => [day(i.InvoiceDate), i.Total])).toEqual(
      [
        ['2026-03-01', 31],
        ['2026-05-16', 31],
      ],
    );

    // Once in 365 days is the account's limit: a second cancel is not offered a pause.
    await advance('2026-05-20');
    const again = await client.post(cancel, { csrf, reason: 'other', details: '' });
    expect(again.text).not.toContain('Pause instead');
    expect(again.text).toContain('name="confirm" value="yes"');
    // The pause form says the same.
    expect((await client.get(`${client.base}subscriptions/${id}/pause`)).status).toBe(409);

    const report = await ok(shop, 'GET', '/v1/reports/retention?from=2026-03-01&to=2026-03-31');
    // Taken on 15 Mar and not cancelled in the 30 days after: kept.
    expect(report.Months).toEqual([
      {
        Month: '2026-03',
        Cancels: 0,
        CancelsByReason: [],
        OffersShown: { coupon: 0, package: 0, pause: 1 },
        OffersTaken: { coupon: 0, package: 0, pause: 1 },
        OffersDeclined: { coupon: 0, package: 0, pause: 0 },
        Kept: 1,
        KeptPending: 0,
      },
    ]);
  });
});
