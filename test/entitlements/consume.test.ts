import Big from 'big.js';
import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { startAnotherInstance } from '../helpers/service.ts';
import type { ApiResponse } from '../helpers/service.ts';
import { recordEvents, usageAccount } from '../usage/usage.fixtures.ts';
import {
  createFeature,
  customerOnPlan,
  nextCode,
  other,
  refused,
  setValue,
  t,
  useEntitlementService,
} from './entitlements.fixtures.ts';

useEntitlementService();

/** A limit feature on `metric` with `limit` per period on a new plan, and a customer subscribed to it. */
async function limitedCustomer(limit: number | string | null, metric = 'api_calls') {
  const feature = await createFeature({ Code: nextCode('l'), Type: 'limit', MetricCode: metric });
  const { plan, customerId, subscriptionId } = await customerOnPlan();
  await setValue(`/v1/packages/${plan.packageId}/features/${feature.Code}`, { Limit: limit });
  const path = `/v1/customers/${customerId}/entitlements/${feature.Code}`;
  return { feature, customerId, subscriptionId, path, consume: `${path}/consume` };
}

/** The raw usage events recorded for the customer, as the usage module stored them (none lost, none doubled). */
async function recordedEvents(customerId: number) {
  return t.service.storage.db
    .selectFrom('usage_events')
    .select(['transaction_id', 'value', 'subscription_id'])
    .where('account_id', '=', t.accountId)
    .where('customer_id', '=', customerId)
    .execute();
}

describe('check-and-record', () => {
  it('records usage within the limit and refuses the quantity that would pass it, naming Quantity', async () => {
    const { customerId, subscriptionId, path, consume } = await limitedCustomer(10);
    const first = await ok(t, 'POST', consume, { Quantity: 7.5, transaction_id: nextCode('tx') });
    expect(first).toEqual({
      transaction_id: expect.any(String),
      customerID: customerId,
      FeatureCode: expect.any(String),
      subscriptionID: subscriptionId,
      Quantity: '7.5',
      Limit: '10',
      Used: '7.5',
      Remaining: '2.5',
      PeriodStart: expect.any(String),
      PeriodEnd: expect.any(String),
    });
    const over = await refused('POST', consume, { Quantity: 2.6, transaction_id: nextCode('tx') }, 409);
    expect(over.code).toBe('limit_exceeded');
    expect(over.fields).toEqual([{ field: 'Quantity', message: expect.stringContaining('2.5 remaining') }]);
    // Reaching the limit exactly is allowed.
    await ok(t, 'POST', consume, { Quantity: '2.5', transaction_id: nextCode('tx') });
    const check = await ok(t, 'GET', path);
    expect(check).toMatchObject({ Allowed: true, Limit: '10', Used: '10', Remaining: '0' });
    expect(check.PeriodStart).toBe(first.PeriodStart);
    expect((await recordedEvents(customerId)).length).toBe(2);
  });

  it("counts the customer's usage events that name no subscription in the used amount", async () => {
    const { customerId, path, consume } = await limitedCustomer(10);
    const [outcome] = await recordEvents(t.service.storage.db, usageAccount(t.accountId), new Date(), [
      {
        transactionId: nextCode('ext'),
        customerId,
        subscriptionId: null,
        code: 'api_calls',
        timestamp: new Date().toISOString(),
        properties: { units: 6 },
      },
    ]);
    expect(outcome?.status).toBe('accepted');
    expect(await ok(t, 'GET', path)).toMatchObject({ Used: '6', Remaining: '4' });
    const over = await refused('POST', consume, { Quantity: 5, transaction_id: nextCode('tx') }, 409);
    expect(over.code).toBe('limit_exceeded');
  });

  it('counts events sent to POST /v1/usage-events, and refuses a transaction_id one of them used', async () => {
    const { customerId, path, consume } = await limitedCustomer(10);
    const transaction_id = nextCode('ext');
    const sent = await t.request('POST', '/v1/usage-events', {
      body: { transaction_id, customerID: customerId, code: 'api_calls', properties: { units: 3 } },
    });
    expect(sent.status, sent.text).toBe(201);
    expect(await ok(t, 'GET', path)).toMatchObject({ Used: '3', Remaining: '7' });
    const reused = await refused('POST', consume, { Quantity: 1, transaction_id }, 409);
    expect(reused.fields).toEqual([
      { field: 'transaction_id', message: expect.stringContaining('usage event') },
    ]);
    expect(await ok(t, 'GET', path)).toMatchObject({ Used: '3' });
  });

  it('answers a retried transaction_id with its first result, without a new check or a second event', async () => {
    const { customerId, consume } = await limitedCustomer(5);
    const transaction_id = nextCode('tx');
    const first = await ok(t, 'POST', consume, { Quantity: 5, transaction_id });
    expect(first.Remaining).toBe('0');
    // The limit is now full: a new check would refuse; the retry answers as the first time.
    expect(await ok(t, 'POST', consume, { Quantity: 5, transaction_id })).toEqual(first);
    expect((await recordedEvents(customerId)).length).toBe(1);
    const reused = await refused('POST', consume, { Quantity: 4, transaction_id }, 409);
    expect(reused.code).toBe('transaction_id_reused');
    expect(reused.fields?.[0]?.field).toBe('transaction_id');
  });

  it('answers a repeated Idempotency-Key with the stored response', async () => {
    const { customerId, consume } = await limitedCustomer(100);
    const headers = { 'Idempotency-Key': nextCode('key') };
    const body = { Quantity: 3, transaction_id: nextCode('tx') };
    const first = await t.request('POST', consume, { body, headers });
    const again = await t.request('POST', consume, { body, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect((await recordedEvents(customerId)).length).toBe(1);
  });

  it('never passes the limit with 50 parallel consumers at its edge, and loses no event', async () => {
    const { customerId, path, consume } = await limitedCustomer(20);
    await ok(t, 'POST', consume, { Quantity: 1, transaction_id: nextCode('tx') });
    const ids = Array.from({ length: 50 }, () => nextCode('par'));
    const send = (id: string) => t.request('POST', consume, { body: { Quantity: 1, transaction_id: id } });
    const answers = await Promise.all(ids.map(send));
    const accepted = answers.filter((a) => a.status === 201);
    const refusedAnswers = answers.filter((a) => a.status === 409);
    expect(accepted.length + refusedAnswers.length, answers.map((a) => a.text).join('\n')).toBe(50);
    // 19 left after the first unit: exactly 19 of the 50 fit.
    expect(accepted.length).toBe(19);
    expect(refusedAnswers.every((a) => a.body.code === 'limit_exceeded')).toBe(true);
    expect(await ok(t, 'GET', path)).toMatchObject({ Used: '20', Remaining: '0' });
    const events = await recordedEvents(customerId);
    expect(events.length).toBe(20);
    const acceptedIds = new Set(accepted.map((a) => a.body.transaction_id));
    expect(events.filter((e) => acceptedIds.has(e.transaction_id)).length).toBe(19);

    // Every consumer retries at once: the accepted answer as before, the refused are checked again and refused.
    const retries = await Promise.all(ids.map(send));
    retries.forEach((retry, i) => {
      const firstAnswer = answers[i]!;
      expect(retry.status).toBe(firstAnswer.status);
      if (firstAnswer.status === 201) expect(retry.body).toEqual(firstAnswer.body);
    });
    expect((await recordedEvents(customerId)).length).toBe(20);
  });

  it('never passes the limit with 50 consumers split over two processes of the service', async () => {
    const { customerId, path, consume } = await limitedCustomer(25);
    const second = await startAnotherInstance(t);
    try {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          (i % 2 === 0 ? t : second).request('POST', consume, {
            body: { Quantity: 1, transaction_id: nextCode('proc') },
          }),
        ),
      );
      expect(
        answers.every((a) => a.status === 201 || a.status === 409),
        answers.map((a) => a.text).join('\n'),
      ).toBe(true);
      expect(answers.filter((a) => a.status === 201).length).toBe(25);
    } finally {
      await second.close();
    }
    expect(await ok(t, 'GET', path)).toMatchObject({ Used: '25', Remaining: '0' });
    expect((await recordedEvents(customerId)).length).toBe(25);
  });

  it('never passes the limit with 50 parallel consumers of different quantities', async () => {
    const { customerId, path, consume } = await limitedCustomer('40.5');
    const quantities = Array.from({ length: 50 }, (_, i) => ['0.5', '1', '2.25', '3'][i % 4]!);
    const answers: ApiResponse[] = await Promise.all(
      quantities.map((Quantity) =>
        t.request('POST', consume, { body: { Quantity, transaction_id: nextCode('mix') } }),
      ),
    );
    const acceptedSum = answers
      .map((a, i) => (a.status === 201 ? new Big(quantities[i]!) : new Big(0)))
      .reduce((sum, q) => sum.plus(q), new Big(0));
    expect(answers.every((a) => a.status === 201 || a.status === 409)).toBe(true);
    expect(acceptedSum.lte('40.5')).toBe(true);
    const check = await ok(t, 'GET', path);
    expect(check.Used).toBe(acceptedSum.toFixed());
    // Each refusal saw less remaining than its quantity, and what remains only shrinks.
    const refusedQuantities = quantities.filter((_, i) => answers[i]!.status === 409).map((q) => new Big(q));
    for (const q of refusedQuantities) expect(new Big(check.Remaining).lt(q)).toBe(true);
    const recorded = (await recordedEvents(customerId)).reduce(
      (sum, e) => sum.plus(new Big(String(e.value)).div(10_000)),
      new Big(0),
    );
    expect(recorded.eq(acceptedSum)).toBe(true);
  });

  it("limits a grouped metric's total over every group", async () => {
    const { path, consume } = await limitedCustomer(10, 'calls_by_model');
    const send = (Quantity: number, model: string) =>
      t.request('POST', consume, {
        body: { Quantity, transaction_id: nextCode('grp'), properties: { model } },
      });
    expect((await send(6, 'small')).status).toBe(201);
    expect((await send(4, 'large')).status).toBe(201);
    expect((await send(1, 'small')).status).toBe(409);
    expect(await ok(t, 'GET', path)).toMatchObject({ Used: '10', Remaining: '0' });
  });

  it('consumes without end from an unlimited limit, and one at a time from a count metric', async () => {
    const unlimited = await limitedCustomer(null);
    const big = await ok(t, 'POST', unlimited.consume, { Quantity: 1000000, transaction_id: nextCode('tx') });
    expect(big).toMatchObject({ Limit: null, Used: '1000000', Remaining: null });

    const counted = await limitedCustomer(2, 'logins');
    await ok(t, 'POST', counted.consume, { Quantity: 1, transaction_id: nextCode('tx') });
    const two = await refused('POST', counted.consume, { Quantity: 2, transaction_id: nextCode('tx') });
    expect(two.fields?.[0]?.field).toBe('Quantity');
    await ok(t, 'POST', counted.consume, { Quantity: 1, transaction_id: nextCode('tx') });
    expect(
      (await refused('POST', counted.consume, { Quantity: 1, transaction_id: nextCode('tx') }, 409)).code,
    ).toBe('limit_exceeded');
    expect(await ok(t, 'GET', counted.path)).toMatchObject({ Used: '2', Remaining: '0' });
  });

  it('uses the override of the subscription over its package, and refuses when it turns the feature off', async () => {
    const { subscriptionId, feature, consume } = await limitedCustomer(1);
    const override = `/v1/subscriptions/${subscriptionId}/features/${feature.Code}`;
    await setValue(override, { Limit: 3 });
    expect(await ok(t, 'POST', consume, { Quantity: 3, transaction_id: nextCode('tx') })).toMatchObject({
      Limit: '3',
    });
    await setValue(override, { Limit: 3, Enabled: false });
    expect((await refused('POST', consume, { Quantity: 1, transaction_id: nextCode('tx') }, 409)).code).toBe(
      'feature_not_allowed',
    );
  });

  it.each([
    [{ Quantity: 0 }, 'Quantity'],
    [{ Quantity: -2 }, 'Quantity'],
    [{ Quantity: '1.00001' }, 'Quantity'],
    [{ Quantity: 'lots' }, 'Quantity'],
    [{ Quantity: 2000000000 }, 'Quantity'],
    [{ Quantity: 1, transaction_id: '' }, 'transaction_id'],
    [{ Quantity: 1, properties: { units: 4 } }, 'properties.units'],
  ])('refuses %j with a 422 naming %s, recording nothing', async (body, field) => {
    const { customerId, consume } = await limitedCustomer(10);
    const problem = await refused('POST', consume, { transaction_id: nextCode('tx'), ...body });
    expect(problem.fields?.map((f) => f.field)).toContain(field);
    expect(await recordedEvents(customerId)).toEqual([]);
  });

  it("refuses usage a metric's filters would not count, naming the property", async () => {
    const { customerId, consume } = await limitedCustomer(10, 'eu_calls');
    const problem = await refused('POST', consume, {
      Quantity: 1,
      transaction_id: nextCode('tx'),
      properties: { region: 'us' },
    });
    expect(problem.fields?.[0]?.field).toBe('properties.region');
    await ok(t, 'POST', consume, {
      Quantity: 1,
      transaction_id: nextCode('tx'),
      properties: { region: 'eu' },
    });
    expect((await recordedEvents(customerId)).length).toBe(1);
  });

  it('refuses a feature that is not a limit, and one the customer has no subscription for (409)', async () => {
    const flag = await createFeature({ Code: nextCode('b'), Type: 'boolean' });
    const { plan, customerId } = await customerOnPlan();
    await setValue(`/v1/packages/${plan.packageId}/features/${flag.Code}`, { Enabled: true });
    const base = `/v1/customers/${customerId}/entitlements`;
    const body = { Quantity: 1, transaction_id: nextCode('tx') };
    expect((await refused('POST', `${base}/${flag.Code}/consume`, body, 409)).code).toBe('feature_not_limit');
    const limit = await createFeature({ Code: nextCode('l'), Type: 'limit', MetricCode: 'api_calls' });
    expect((await refused('POST', `${base}/${limit.Code}/consume`, body, 409)).code).toBe(
      'feature_not_allowed',
    );
  });

  it('consumes a metric made through the catalogue API, and refuses once the metric is archived', async () => {
    const metric = await ok(t, 'POST', '/v1/billable-metrics', {
      Code: nextCode('tokens'),
      Name: 'Tokens',
      Aggregation: 'sum',
      Property: 'tokens',
    });
    const feature = await createFeature({ Code: nextCode('l'), Type: 'limit', MetricCode: metric.Code });
    const { plan, customerId } = await customerOnPlan();
    await setValue(`/v1/packages/${plan.packageId}/features/${feature.Code}`, { Limit: 1000 });
    const path = `/v1/customers/${customerId}/entitlements/${feature.Code}`;
    await ok(t, 'POST', `${path}/consume`, { Quantity: 250, transaction_id: nextCode('tx') });
    await ok(t, 'DELETE', `/v1/billable-metrics/${metric.billableMetricID}`, undefined, 204);
    const archived = await refused(
      'POST',
      `${path}/consume`,
      { Quantity: 1, transaction_id: nextCode('tx') },
      409,
    );
    expect(archived.code).toBe('feature_metric_archived');
    expect(await ok(t, 'GET', path)).toMatchObject({ Used: '250', Remaining: '750' });
  });

  it("answers 404 for another account's customer, recording nothing", async () => {
    const { customerId, feature, consume } = await limitedCustomer(10);
    const res = await other.request('POST', consume, {
      body: { Quantity: 1, transaction_id: nextCode('tx') },
    });
    expect(res.status).toBe(404);
    await createFeature({ Code: feature.Code, Type: 'limit', MetricCode: 'api_calls' }, other);
    const again = await other.request('POST', consume, {
      body: { Quantity: 1, transaction_id: nextCode('tx') },
    });
    expect(again.status).toBe(404);
    expect(await recordedEvents(customerId)).toEqual([]);
  });
});
