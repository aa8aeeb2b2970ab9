import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { meteredComponent } from '../subscriptions/meteredBilling.fixtures.ts';
import { eventsOf, shopWithCalls, subscribed, t, useUsageAlertService } from './usageAlerts.fixtures.ts';

// docs/usage.md, "Alerts": making, reading, changing and deleting alerts; what is refused (a 422 naming the field,
// nothing made); another account's subscriptions and alerts are 404.
useUsageAlertService();

async function refused(
  as: Parameters<typeof ok>[0],
  method: string,
  path: string,
  body: unknown,
  status = 422,
) {
  const res = await as.request(method, path, { body });
  expect(res.status, res.text).toBe(status);
  return res.body as { code: string; fields?: { field: string; message: string }[] };
}
const fieldsOf = (problem: { fields?: { field: string }[] }) => problem.fields?.map((f) => f.field);

describe('usage alerts through the API', () => {
  it('are made, listed, replaced and deleted, each with its event', async () => {
    const { as, calls, customerId } = await shopWithCalls('Crud shop', 'ada@crud.example');
    const { subscriptionId } = await subscribed(as, [calls.componentId], customerId);
    const path = `/v1/subscriptions/${subscriptionId}/usage-alerts`;
    const made = await ok(as, 'POST', path, {
      Name: 'Half',
      Kind: 'quantity',
      MetricCode: 'api',
      Threshold: 500,
    });
    await ok(as, 'POST', path, { Name: 'Spend', Kind: 'amount', Threshold: 25.5 });
    const listed = await ok(as, 'GET', `${path}?page=1&page_size=1`);
    expect(listed.map((a: any) => a.Name)).toEqual(['Half']);
    expect(
      (await ok(as, 'GET', `${path}?page=2&page_size=1`)).map((a: any) => [a.Name, a.Threshold]),
    ).toEqual([['Spend', '25.50']]);

    const replaced = await ok(
      as,
      'PUT',
      `${path}/${made.usageAlertID}`,
      { Name: 'Most', Kind: 'quantity', MetricCode: 'api', Threshold: '900.5' },
      200,
    );
    expect(replaced).toMatchObject({ Name: 'Most', Threshold: '900.5' });
    await ok(as, 'DELETE', `${path}/${made.usageAlertID}`);
    expect((await as.request('GET', `${path}/${made.usageAlertID}`)).status).toBe(404);
    expect((await as.request('DELETE', `${path}/${made.usageAlertID}`)).status).toBe(404);
    expect((await ok(as, 'GET', path)).map((a: any) => a.Name)).toEqual(['Spend']);

    expect((await eventsOf(as, 'usage_alert.updated'))[0]!.data).toMatchObject({
      object: { Name: 'Most', Threshold: '900.5' },
      previous: { Name: 'Half', Threshold: '500' },
    });
    expect((await eventsOf(as, 'usage_alert.deleted'))[0]!.data.object).toMatchObject({ Name: 'Most' });
    expect(await eventsOf(as, 'usage_alert.created')).toHaveLength(2);
  });

  it('refuses what cannot be an alert, naming the field, and makes nothing', async () => {
    const { as, calls, customerId } = await shopWithCalls('Refusing shop', 'ada@refusing.example');
    const byModel = await meteredComponent(as, 'by_model', 'unique_count', {
      property: 'user',
      groupBy: 'model',
    });
    const { subscriptionId } = await subscribed(as, [calls.componentId, byModel.componentId], customerId);
    // A metric of the account that no component of this subscription links.
    await meteredComponent(as, 'elsewhere', 'count');
    const path = `/v1/subscriptions/${subscriptionId}/usage-alerts`;
    const quantity = { Name: 'Q', Kind: 'quantity', MetricCode: 'api', Threshold: 10 };

    const cases: [Record<string, unknown>, string, string?][] = [
      [{ ...quantity, MetricCode: null }, 'MetricCode', 'a quantity alert must name a metric'],
      [{ ...quantity, MetricCode: 'elsewhere' }, 'MetricCode'],
      [{ ...quantity, MetricCode: 'nothing' }, 'MetricCode'],
      [{ ...quantity, Threshold: 0 }, 'Threshold', 'must be greater than 0'],
      [{ ...quantity, Threshold: -5 }, 'Threshold'],
      [{ ...quantity, Threshold: '1.00001' }, 'Threshold', 'must have at most 4 decimal places'],
      [{ ...quantity, Threshold: '10^3' }, 'Threshold'],
      [{ ...quantity, Threshold: '2000000000000000' }, 'Threshold', 'must be at most 10^15'],
      [
        { Name: 'A', Kind: 'amount', Threshold: '10.005' },
        'Threshold',
        'must have at most 2 decimals in USD',
      ],
      [{ Name: 'A', Kind: 'amount', Threshold: '100000000000' }, 'Threshold'],
      [{ ...quantity, Name: '   ' }, 'Name'],
      [{ ...quantity, UsageGroup: 'large' }, 'UsageGroup'],
      [{ Name: 'A', Kind: 'amount', UsageGroup: 'large', Threshold: 5 }, 'UsageGroup'],
      [{ ...quantity, MetricCode: 'by_model' }, 'UsageGroup'],
      [{ ...quantity, Kind: 'seats' }, 'Kind'],
      [{ Name: 'Q', Kind: 'quantity', MetricCode: 'api' }, 'Threshold'],
      [{ ...quantity, Threshold: true }, 'Threshold'],
    ];
    for (const [body, field, message] of cases) {
      const problem = await refused(as, 'POST', path, body);
      expect(fieldsOf(problem), JSON.stringify(body)).toContain(field);
      if (message) expect(problem.fields!.find((f) => f.field === field)).toMatchObject({ message });
    }
    expect(await ok(as, 'GET', path)).toEqual([]);
    expect(await eventsOf(as, 'usage_alert.created')).toEqual([]);

    // A unique_count is per group: one group of it is fine.
    const grouped = await ok(as, 'POST', path, { ...quantity, MetricCode: 'by_model', UsageGroup: 'large' });
    expect(grouped).toMatchObject({ MetricCode: 'by_model', UsageGroup: 'large' });
    // A PUT is checked as a POST is, and changes nothing when refused.
    const problem = await refused(as, 'PUT', `${path}/${grouped.usageAlertID}`, {
      ...quantity,
      Threshold: 0,
    });
    expect(fieldsOf(problem)).toEqual(['Threshold']);
    expect(await ok(as, 'GET', `${path}/${grouped.usageAlertID}`)).toMatchObject({ Threshold: '10' });
  });

  it('keeps a subscription to 25 alerts, even made at once', async () => {
    const { as, calls, customerId } = await shopWithCalls('Many shop', 'ada@many.example');
    const { subscriptionId } = await subscribed(as, [calls.componentId], customerId);
    const path = `/v1/subscriptions/${subscriptionId}/usage-alerts`;
    for (let i = 1; i <= 20; i += 1)
      await ok(as, 'POST', path, { Name: `Step ${i}`, Kind: 'amount', Threshold: i });
    // Ten at once for the last five places: on PostgreSQL each counts in its own transaction, the subscription held.
    const atOnce = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        as.request('POST', path, { body: { Name: `Rush ${i}`, Kind: 'amount', Threshold: 100 + i } }),
      ),
    );
    expect(atOnce.map((r) => r.status).sort()).toEqual([...Array(5).fill(201), ...Array(5).fill(409)]);
    expect(await ok(as, 'GET', `${path}?page_size=100`)).toHaveLength(25);
    const problem = await refused(as, 'POST', path, { Name: 'One more', Kind: 'amount', Threshold: 26 }, 409);
    expect(problem.code).toBe('usage_alert_limit_reached');
  });

  it("answers 404 for another account's subscription or alert, and for an alert of another subscription", async () => {
    const mine = await shopWithCalls('Own shop', 'ada@own.example');
    const { subscriptionId } = await subscribed(mine.as, [mine.calls.componentId], mine.customerId);
    const path = `/v1/subscriptions/${subscriptionId}/usage-alerts`;
    const alert = await ok(mine.as, 'POST', path, { Name: 'Mine', Kind: 'amount', Threshold: 5 });
    const second = await subscribed(mine.as, [mine.calls.componentId], mine.customerId);

    const other = await shopWithCalls('Other shop', 'ada@other.example');
    const body = { Name: 'Theirs', Kind: 'amount', Threshold: 5 };
    expect((await other.as.request('GET', path)).status).toBe(404);
    expect((await other.as.request('POST', path, { body })).status).toBe(404);
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const options = method === 'PUT' ? { body } : {};
      const res = await other.as.request(method, `${path}/${alert.usageAlertID}`, options);
      expect(res.status, method).toBe(404);
      const wrongSubscription = `/v1/subscriptions/${second.subscriptionId}/usage-alerts/${alert.usageAlertID}`;
      expect((await mine.as.request(method, wrongSubscription, options)).status, method).toBe(404);
    }
    expect(await ok(mine.as, 'GET', `${path}/${alert.usageAlertID}`)).toMatchObject({ Name: 'Mine' });
    expect(t.accountId).toBeGreaterThan(0);
  });
});
