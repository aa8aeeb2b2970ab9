import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { runCli } from '../helpers/cli.ts';
import { eventually } from '../helpers/service.ts';
import { advance, meteredComponent, sendEvents } from '../subscriptions/meteredBilling.fixtures.ts';
import { checkUsageAlerts } from '../../src/modules/usageAlerts/index.ts';
import { parseDatabaseUrl } from '../../src/config.ts';
import { openStorage } from '../../src/storage/database.ts';
import { holdStatement, selectFrom } from '../helpers/heldStatement.ts';
import { accountContext } from '../helpers/context.ts';
import {
  clock,
  evaluate,
  eventsOf,
  alertMailsTo,
  shopWithCalls,
  subscribed,
  t,
  useUsageAlertService,
} from './usageAlerts.fixtures.ts';

// docs/usage.md, "Alerts": a threshold on a subscription's usage so far fires once a period, whoever evaluates and
// however often, with one usage.threshold_crossed event and, when the account wants it, one e-mail.
useUsageAlertService();

const calls = (n: number, customerId: number, subscriptionId: number, at = '2026-03-01T09:00:00Z') =>
  Array.from({ length: n }, () => ({ customerId, subscriptionId, code: 'api', at }));

describe('a quantity alert', () => {
  it('fires once when events reach it, however many evaluations run and even two at once', async () => {
    const { as, calls: api, customerId } = await shopWithCalls('Quantity shop', 'ada@quantity.example');
    await ok(as, 'PUT', '/v1/account', { UsageAlertEmails: true });
    const { subscriptionId } = await subscribed(as, [api.componentId], customerId);
    const path = `/v1/subscriptions/${subscriptionId}/usage-alerts`;
    const alert = await ok(as, 'POST', path, {
      Name: 'Eight calls',
      Kind: 'quantity',
      MetricCode: 'api',
      Threshold: 8,
    });
    expect(alert).toMatchObject({
      subscriptionID: subscriptionId,
      customerID: customerId,
      Kind: 'quantity',
      MetricCode: 'api',
      UsageGroup: null,
      Threshold: '8',
      PeriodStart: '2026-03-01',
      PeriodEnd: '2026-04-01',
      FiredThisPeriod: false,
      LastFiring: null,
    });

    // 7 calls: one short.
    await sendEvents(as, calls(7, customerId, subscriptionId));
    await evaluate();
    expect(await eventsOf(as, 'usage.threshold_crossed')).toEqual([]);

    // The 8th reaches it: two evaluations at once, then three more, fire it once.
    await sendEvents(as, calls(1, customerId, subscriptionId));
    const [first, second] = await Promise.all([evaluate(), evaluate()]);
    expect(first.fired + second.fired).toBe(1);
    for (let i = 0; i < 3; i += 1) expect((await evaluate()).fired).toBe(0);
    await sendEvents(as, calls(5, customerId, subscriptionId));
    expect((await evaluate()).fired).toBe(0);

    const crossed = await eventsOf(as, 'usage.threshold_crossed');
    expect(crossed).toHaveLength(1);
    expect(crossed[0]!.data.object).toMatchObject({
      usageAlertID: alert.usageAlertID,
      subscriptionID: subscriptionId,
      customerID: customerId,
      MetricCode: 'api',
      Kind: 'quantity',
      Threshold: '8',
      FiredThisPeriod: true,
      LastFiring: {
        PeriodStart: '2026-03-01',
        PeriodEnd: '2026-04-01',
        Threshold: '8',
        Value: '8',
        FiredAt: '2026-03-01T10:00:00.000Z',
      },
    });
    expect(await ok(as, 'GET', `${path}/${alert.usageAlertID}`)).toMatchObject({
      FiredThisPeriod: true,
      LastFiring: { Value: '8' },
    });

    // One e-mail, to the customer, saying what was reached.
    const [mail] = await eventually(() => {
      const mails = alertMailsTo('ada@quantity.example');
      return mails.length > 0 ? mails : undefined;
    });
    expect(mail).toContain('Subject: Usage alert: Eight calls');
    expect(mail).toContain('Hello Ada Lovelace,');
    expect(mail).toContain('You have used 8 API calls so far this period, reaching your alert of 8.');
    expect(mail).toContain('Period: 1 Mar 2026 – 31 Mar 2026');

    // The CLI evaluates the same way, as another process: nothing more to fire.
    const cli = await runCli(['check-usage-alerts', '--account', String(as.accountId), '--json'], t.env);
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ alerts: 1, fired: 0, emails: 0, failures: 0 });
    expect(alertMailsTo('ada@quantity.example')).toHaveLength(1);
  }, 60_000);

  it('fires again once in the next period, after the test clock moves; no e-mail when the account wants none', async () => {
    const { as, calls: api, customerId } = await shopWithCalls('Period shop', 'ada@period.example');
    const { subscriptionId } = await subscribed(as, [api.componentId], customerId);
    // Made when the period is already past it: it fires at the next evaluation, here the clock's.
    await sendEvents(as, calls(6, customerId, subscriptionId));
    const path = `/v1/subscriptions/${subscriptionId}/usage-alerts`;
    const alert = await ok(as, 'POST', path, {
      Name: 'Five',
      Kind: 'quantity',
      MetricCode: 'api',
      Threshold: '5',
    });
    expect(alert.FiredThisPeriod).toBe(false);
    await advance(as, '2026-03-01T11:00:00.000Z');
    expect(await ok(as, 'GET', `${path}/${alert.usageAlertID}`)).toMatchObject({
      FiredThisPeriod: true,
      LastFiring: { PeriodStart: '2026-03-01', Value: '6', FiredAt: '2026-03-01T11:00:00.000Z' },
    });

    // April: nothing used yet, so nothing fired in it; March's firing is the last.
    await advance(as, '2026-04-01T12:00:00.000Z');
    expect(await ok(as, 'GET', `${path}/${alert.usageAlertID}`)).toMatchObject({
      PeriodStart: '2026-04-01',
      PeriodEnd: '2026-05-01',
      FiredThisPeriod: false,
      LastFiring: { PeriodStart: '2026-03-01' },
    });
    await sendEvents(as, calls(4, customerId, subscriptionId, '2026-04-01T12:00:00Z'));
    await advance(as, '2026-04-01T13:00:00.000Z');
    expect((await eventsOf(as, 'usage.threshold_crossed')).length).toBe(1);
    await sendEvents(as, calls(1, customerId, subscriptionId, '2026-04-01T12:30:00Z'));
    await advance(as, '2026-04-01T14:00:00.000Z');
    await advance(as, '2026-04-02T14:00:00.000Z');

    const crossed = await eventsOf(as, 'usage.threshold_crossed');
    expect(
      crossed.map((e) => [e.data.object.LastFiring.PeriodStart, e.data.object.LastFiring.Value]),
    ).toEqual([
      ['2026-03-01', '6'],
      ['2026-04-01', '5'],
    ]);
    // UsageAlertEmails is off by default: the events alone.
    await evaluate();
    expect(alertMailsTo('ada@period.example')).toEqual([]);
  }, 60_000);
});

describe('amount alerts', () => {
  it('fire on the price so far, of one metric and of every metered component, priced by their tiers', async () => {
    const { as, calls: api, customerId } = await shopWithCalls('Amount shop', 'ada@amount.example');
    const storage = await meteredComponent(as, 'storage', 'sum', {
      property: 'gb',
      currency: { ComponentBracketPrices: [{ Price: 2, QtyFrom: 1, QtyTill: null }] },
    });
    const { subscriptionId } = await subscribed(as, [api.componentId, storage.componentId], customerId);
    const path = `/v1/subscriptions/${subscriptionId}/usage-alerts`;
    const ofCalls = await ok(as, 'POST', path, {
      Name: 'Calls cost 11',
      Kind: 'amount',
      MetricCode: 'api',
      Threshold: 11,
    });
    const overall = await ok(as, 'POST', path, {
      Name: 'Usage costs 20',
      Kind: 'amount',
      Threshold: '20.00',
    });
    expect(overall).toMatchObject({ MetricCode: null, Threshold: '20.00', CurrencyCode: 'USD' });

    // 11 calls: 10 × 1.00 + 1 × 0.50 = 10.50, under both.
    await sendEvents(as, calls(11, customerId, subscriptionId));
    expect((await evaluate()).fired).toBe(0);

    // 12 calls: 10.00 + 2 × 0.50 = 11.00 reaches the first; with 4.5 GB at 2.00 (9.00), 20.00 reaches the second.
    await sendEvents(as, [
      ...calls(1, customerId, subscriptionId),
      { customerId, subscriptionId, code: 'storage', at: '2026-03-01T09:30:00Z', gb: 4.5 },
    ]);
    const usage = await ok(as, 'GET', `/v1/subscriptions/${subscriptionId}/usage`);
    expect(usage.Usage.map((u: any) => [u.MetricCode, u.Quantity, u.Amount])).toEqual([
      ['api', '12', 11],
      ['storage', '4.5', 9],
    ]);
    expect((await evaluate()).fired).toBe(2);
    const fired = await eventsOf(as, 'usage.threshold_crossed');
    expect(
      fired.map((e) => [
        e.data.object.usageAlertID,
        e.data.object.LastFiring.Threshold,
        e.data.object.LastFiring.Value,
      ]),
    ).toEqual([
      [ofCalls.usageAlertID, '11.00', '11.00'],
      [overall.usageAlertID, '20.00', '20.00'],
    ]);
  }, 60_000);
});

describe('what an evaluation reads', () => {
  it('finds the alerts of customers among more arrivals than one statement can name', async () => {
    const { as, calls: api, customerId } = await shopWithCalls('Crowd shop', 'ada@crowd.example');
    const { subscriptionId } = await subscribed(as, [api.componentId], customerId);
    await ok(as, 'POST', `/v1/subscriptions/${subscriptionId}/usage-alerts`, {
      Name: 'Three',
      Kind: 'quantity',
      MetricCode: 'api',
      Threshold: 3,
    });
    // Read once as made: from now on only its customer's arrivals bring it back.
    await evaluate();
    await sendEvents(as, calls(3, customerId, subscriptionId));

    // A busy round: 70,000 customers' events arrived, more than SQLite (32,766) or PostgreSQL (65,535) binds in one
    // statement, and this customer's among them.
    const arrived = [...Array.from({ length: 70_000 }, (_, i) => 10_000_000 + i), customerId];
    const summary = await checkUsageAlerts(await accountContext(t, as.accountId, clock), {
      customerIds: arrived,
    });
    expect(summary).toEqual({ alerts: 1, fired: 1, emails: 0, failures: 0 });
  }, 60_000);

  it('checks again an alert edited while an evaluation read it, though the test clock stood still', async () => {
    const { as, calls: api, customerId } = await shopWithCalls('Frozen shop', 'ada@frozen.example');
    const { subscriptionId } = await subscribed(as, [api.componentId], customerId);
    const path = `/v1/subscriptions/${subscriptionId}/usage-alerts`;
    const alert = await ok(as, 'POST', path, {
      Name: 'Ten',
      Kind: 'quantity',
      MetricCode: 'api',
      Threshold: 10,
    });
    await sendEvents(as, calls(3, customerId, subscriptionId));

    // An evaluation (here in a second connection to the database) reads the new alert; before it marks it checked,
    // the alert is lowered to what is used, at the same instant on the account's frozen clock.
    const held = holdStatement(selectFrom('usage_alerts'));
    const other = openStorage(parseDatabaseUrl(t.env.DATABASE_URL, t.dataDir));
    try {
      const reading = {
        ...(await accountContext(t, as.accountId, clock)),
        db: other.db.withPlugin(held.plugin),
      };
      const evaluation = checkUsageAlerts(reading, { customerIds: [] });
      await held.reached;
      const edited = { Name: 'Three', Kind: 'quantity', MetricCode: 'api', Threshold: 3 };
      await ok(as, 'PUT', `${path}/${alert.usageAlertID}`, edited, 200);
      held.release();
      // It read the threshold of 10, not reached.
      expect(await evaluation).toMatchObject({ alerts: 1, fired: 0 });
    } finally {
      held.release();
      await other.close();
    }

    // The edit still asks for its own check: the next evaluation reads it, with no event, and it fires.
    const summary = await checkUsageAlerts(await accountContext(t, as.accountId, clock), { customerIds: [] });
    expect(summary).toMatchObject({ alerts: 1, fired: 1 });
  }, 60_000);
});
