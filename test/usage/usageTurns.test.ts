import { describe, expect, it } from 'vitest';
import { createCustomer } from '../helpers/billing.ts';
import { holdStatement, insertInto } from '../helpers/heldStatement.ts';
import { eventually, startAnotherInstance } from '../helpers/service.ts';
import type { ApiResponse } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { usageLanes } from '../../src/modules/usage/index.ts';
import { defineMetric } from './usage.fixtures.ts';

// An account's usage calls take turns in a process, usageLanes transactions at a time, in a bounded line (docs/usage.md,
// "Sending events"): past it a call is refused with 503 usage_busy and Retry-After, having recorded nothing, while
// another account is served.

// The workers stay idle: on SQLite a worker's poll is a write, which would wait for the held transaction.
const t = useTestService({ env: { MONEY_QUEUE_PER_CUSTOMER: '1', WORKER_INTERVAL_MS: '3600000' } });

describe("an account's line of usage calls", () => {
  it('refuses what does not fit with 503 usage_busy, records nothing for it, and lets others through', async () => {
    await defineMetric(t.service.storage.db, t.accountId, 'calls', 'count');
    const customerId = await createCustomer(t);
    const other = await t.newAccount('Reader');
    const otherCustomerId = await createCustomer(other);
    // An insert held in each of the account's lanes (usageLanes: two on PostgreSQL).
    const lanes = usageLanes(t.service.storage.db);
    const held = holdStatement(insertInto('usage_events'), lanes);
    const instance = await startAnotherInstance(t, { queryPlugins: [held.plugin] });
    const batch = (tx: string) => ({
      events: [
        { transaction_id: tx, customerID: customerId, code: 'calls', timestamp: new Date().toISOString() },
      ],
    });
    try {
      const send = (tx: string) => instance.request('POST', '/v1/usage-events/batch', { body: batch(tx) });
      // This month's partitions made on PostgreSQL before any insert is held: a held insert making them would hold
      // their lock (usagePartitions.ts), and the other lane's insert would wait for it.
      const warmUp = await t.request('POST', '/v1/usage-events/batch', { body: batch('warm-up') });
      expect(warmUp.status, warmUp.text).toBe(200);
      const firstOfLanes = Array.from({ length: lanes }, (_, lane) => `u0-${lane}`);
      const first = firstOfLanes.map(send);
      await held.reached;
      // Three more: one waits in line (MONEY_QUEUE_PER_CUSTOMER=1), the two others are refused at once.
      const answered: { tx: string; response: ApiResponse }[] = [];
      const more = ['u1', 'u2', 'u3'].map((tx) =>
        send(tx).then((response) => {
          answered.push({ tx, response });
          return response;
        }),
      );
      await eventually(() => (answered.length >= 2 ? true : undefined));
      for (const { response } of answered) {
        expect(response.status, response.text).toBe(503);
        expect(response.headers.get('retry-after')).toBe('1');
        expect(response.body).toMatchObject({ status: 503, code: 'usage_busy' });
      }

      const read = await instance.request('GET', `/v1/customers/${otherCustomerId}`, {
        auth: { accountId: other.accountId, apiKey: other.apiKey },
      });
      expect(read.status, read.text).toBe(200);

      held.release();
      expect((await Promise.all(first)).map((r) => r.status)).toEqual(firstOfLanes.map(() => 200));
      expect((await Promise.all(more)).map((r) => r.status).sort()).toEqual([200, 503, 503]);
      const refused = answered.filter((a) => a.response.status === 503).map((a) => a.tx);
      const listed = await t.request('GET', `/v1/customers/${customerId}/usage-events`);
      const recorded = listed.body.map((e: { transaction_id: string }) => e.transaction_id).sort();
      const sent = ['warm-up', ...firstOfLanes, 'u1', 'u2', 'u3'];
      expect(recorded).toEqual(sent.filter((tx) => !refused.includes(tx)).sort());
    } finally {
      held.release();
      await instance.close();
    }
  });
});
