import { describe, expect, it } from 'vitest';
import { usageQuantities } from '../../src/modules/usage/index.ts';
import { createCustomer } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { defineMetric, recordEvents, usageAccount } from './usage.fixtures.ts';

// weighted_sum's total carried into a period: the stored hours before it summed by the database, the partial hours
// at the claims' and the period's edges from their raw events (docs/design/usage.md, "Storage: summed fast, exact").

const t = useTestService();

describe('the total weighted_sum carries into a period', () => {
  it('adds every earlier event, whole hours and partial ones, inside the claimed time only', async () => {
    const db = t.service.storage.db;
    const customerId = await createCustomer(t);
    const seats = await defineMetric(db, t.accountId, 'carried_seats', 'weighted_sum', { property: 'n' });
    const event = (transactionId: string, timestamp: string, n: number) => ({
      transactionId,
      customerId,
      subscriptionId: null,
      code: 'carried_seats',
      timestamp,
      properties: { n },
    });
    await recordEvents(db, usageAccount(t.accountId), '2026-11-20T03:00:00.000Z', [
      event('c1', '2026-11-17T10:00:00Z', 100), // before the claimed time: not this subscription's
      event('c2', '2026-11-18T05:10:00Z', 10),
      event('c3', '2026-11-19T23:45:00Z', 5),
      event('c4', '2026-11-20T00:10:00Z', 3), // in the period's first, partial hour, before it starts
      event('c5', '2026-11-20T01:30:00Z', 4),
    ]);
    // Claimed from 18 Nov 05:00; the period 00:30 to 02:30 (a zone whose midnight falls on the half hour).
    const quantities = await usageQuantities(db, t.accountId, {
      customerId,
      subscriptionId: 1,
      metric: seats,
      from: '2026-11-20T00:30:00.000Z',
      to: '2026-11-20T02:30:00.000Z',
      claimed: [{ from: Date.parse('2026-11-18T05:00:00Z'), to: Date.parse('2026-11-21T00:00:00Z') }],
    });
    // Carried 10 + 5 + 3 = 18; then +4 for the last hour of two: 18 + 4 × 1/2 = 20.
    expect([...quantities]).toEqual([['', '20']]);
  });

  it('is exact when the hours it adds pass 64 bits together, each within them', async () => {
    const db = t.service.storage.db;
    const customerId = await createCustomer(t);
    const seats = await defineMetric(db, t.accountId, 'huge_seats', 'weighted_sum', { property: 'n' });
    const event = (transactionId: string, timestamp: string) => ({
      transactionId,
      customerId,
      subscriptionId: null,
      code: 'huge_seats',
      timestamp,
      properties: { n: 1 },
    });
    await recordEvents(db, usageAccount(t.accountId), '2026-11-20T03:00:00.000Z', [
      event('h1', '2026-11-18T05:10:00Z'),
      event('h2', '2026-11-19T05:10:00Z'),
    ]);
    // Each hour's sum moved by hand to 6·10^18 ten-thousandths: 1.2·10^19 together, past 2^63 − 1 (SQLite's
    // sum() of integers fails there: "integer overflow").
    await db
      .updateTable('usage_rollups')
      .set({ value_sum: 6_000_000_000_000_000_000n })
      .where('account_id', '=', t.accountId)
      .where('metric_id', '=', seats.id)
      .execute();
    const quantities = await usageQuantities(db, t.accountId, {
      customerId,
      subscriptionId: 1,
      metric: seats,
      from: '2026-11-20T00:00:00.000Z',
      to: '2026-11-20T02:00:00.000Z',
      claimed: [{ from: Date.parse('2026-11-18T00:00:00Z'), to: Date.parse('2026-11-21T00:00:00Z') }],
    });
    // Carried 2 × 6·10^14, no event in the period: held all through it.
    expect([...quantities]).toEqual([['', '1200000000000000']]);
  });
});
