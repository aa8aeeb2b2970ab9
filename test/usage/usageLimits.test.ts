import { beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, movableClock } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { defineMetric } from './usage.fixtures.ts';

// What one account may send of usage events (docs/usage.md, "Limits"): its rate, in events and bytes per second,
// and what an event's properties may hold. The wall clock is moved, not waited on.

const clock = movableClock('2026-11-20T12:00:00.000Z');
const wallClock = movableClock('2026-11-20T12:00:00.000Z');
let customerId: number;
let theirCustomer: number;

const t = useTestService({ clock, wallClock, env: { USAGE_EVENTS_PER_SECOND: '10' }, secondAccount: true });
const { other } = t;
beforeAll(async () => {
  await defineMetric(t.service.storage.db, t.accountId, 'api_calls', 'count');
  await defineMetric(t.service.storage.db, other.accountId, 'api_calls', 'count');
  customerId = await createCustomer(t);
  theirCustomer = await createCustomer(other);
});

const batch = (customer: number, prefix: string, count: number) => ({
  events: Array.from({ length: count }, (_, i) => ({
    transaction_id: `${prefix}-${i}`,
    customerID: customer,
    code: 'api_calls',
  })),
});

describe('an account sending usage events', () => {
  it('is answered 429 past its rate, with when to send again, while another account is not', async () => {
    // At 10 a second, a full batch of 100 may gather while the account is idle; the next waits ten seconds.
    const first = await t.request('POST', '/v1/usage-events/batch', { body: batch(customerId, 'a', 100) });
    expect(first.status, first.text).toBe(200);
    const past = await t.request('POST', '/v1/usage-events/batch', { body: batch(customerId, 'b', 100) });
    expect(past.status, past.text).toBe(429);
    expect(past.body).toMatchObject({ status: 429, code: 'usage_rate_exceeded' });
    expect(past.headers.get('retry-after')).toBe('10');
    const theirs = await other.request('POST', '/v1/usage-events/batch', {
      body: batch(theirCustomer, 'c', 100),
    });
    expect(theirs.status, theirs.text).toBe(200);
    // Nothing of the refused batch was kept; ten seconds on, it is taken.
    const read = await t.request('GET', `/v1/customers/${customerId}/usage-events?page_size=200`);
    expect(read.body.map((event: { transaction_id: string }) => event.transaction_id)).not.toContain('b-0');
    wallClock.set('2026-11-20T12:00:10.000Z');
    const later = await t.request('POST', '/v1/usage-events/batch', { body: batch(customerId, 'b', 100) });
    expect(later.status, later.text).toBe(200);
    wallClock.set('2026-11-20T12:00:30.000Z');
  });

  it('has its properties bounded in keys, depth and bytes, the refusal naming the property', async () => {
    const send = (transactionId: string, properties: Record<string, unknown>) =>
      t.request('POST', '/v1/usage-events', {
        body: { transaction_id: transactionId, customerID: customerId, code: 'api_calls', properties },
      });
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`p${i}`, i]));
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [many, 'properties', /has 51 properties; at most 50/],
      [{ region: 'eu', tree: { a: { b: { c: 1 } } } }, 'properties.tree', /nests deeper than 3 levels/],
      [{ region: 'eu', blob: 'x'.repeat(9800) }, 'properties.blob', /at most 4096 together/],
    ];
    for (const [properties, field, message] of cases) {
      const refused = await send(`bounded-${field}`, properties);
      expect(refused.status, refused.text).toBe(422);
      expect(refused.body.fields).toEqual([{ field, message: expect.stringMatching(message) }]);
    }
    // As deep as a body may nest (64 levels): refused by the properties' own bound, naming the property.
    let deep: unknown = 1;
    for (let level = 0; level < 60; level += 1) deep = [deep];
    const nested = await send('bounded-deep', { deep: deep as unknown[] });
    expect(nested.body.fields).toEqual([{ field: 'properties.deep', message: expect.any(String) }]);
    const kept = await send('bounded-ok', { region: 'eu', tree: { a: { b: 1 } }, note: 'x'.repeat(3000) });
    expect(kept.status, kept.text).toBe(201);
  });
});
