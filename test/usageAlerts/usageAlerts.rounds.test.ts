import { describe, expect, it } from 'vitest';
import { ROUNDS_PER_SWEEP, usageAlertRounds } from '../../src/billing/usageAlerts.ts';
import { createCustomer, ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { sendEvents } from '../subscriptions/meteredBilling.fixtures.ts';
import {
  evaluate,
  evaluationDeps,
  shopWithCalls,
  subscribed,
  useUsageAlertService,
} from './usageAlerts.fixtures.ts';

// docs/design/usage.md, "Alerts": the worker's rounds read the customers whose events arrived after an event id, a
// round behind the last one they saw; every 60th round, and the first, reads every alert.
useUsageAlertService();

/** A customer subscribed to the shop's calls, with an alert far from reached. */
async function customerWithAlert(as: TestAccount, componentId: number, customerId?: number) {
  const customer = customerId ?? (await createCustomer(as));
  const { subscriptionId } = await subscribed(as, [componentId], customer);
  await ok(as, 'POST', `/v1/subscriptions/${subscriptionId}/usage-alerts`, {
    Name: 'A thousand',
    Kind: 'quantity',
    MetricCode: 'api',
    Threshold: 1000,
  });
  const call = { customerId: customer, subscriptionId, code: 'api', at: '2026-03-01T09:00:00Z' };
  return { send: () => sendEvents(as, [call]) };
}

describe("the usage alert worker's rounds", () => {
  it('start with a sweep, then read only the events that arrive after it', async () => {
    const { as, calls, customerId } = await shopWithCalls('Restart shop', 'ada@restart.example');
    const ada = await customerWithAlert(as, calls.componentId, customerId);
    const bob = await customerWithAlert(as, calls.componentId);
    await customerWithAlert(as, calls.componentId);
    await ada.send();
    await bob.send();
    const everyAlert = (await evaluate()).alerts;

    // The first round is a sweep, reading every alert, Cleo's (no events) too ...
    const rounds = usageAlertRounds(evaluationDeps());
    expect((await rounds.nextRound()).alerts).toBe(everyAlert);
    // ... and the rounds after it read what arrives from then on: Ada's and Bob's events are older.
    expect((await rounds.nextRound()).alerts).toBe(0);
    await bob.send();
    expect((await rounds.nextRound()).alerts).toBe(1);
  }, 60_000);

  it('after a sweep, read again the events of the round before it', async () => {
    const { as, calls, customerId } = await shopWithCalls('Sweep shop', 'ada@sweep.example');
    const ada = await customerWithAlert(as, calls.componentId, customerId);
    await evaluate();
    const rounds = usageAlertRounds(evaluationDeps());
    for (let round = 0; round < ROUNDS_PER_SWEEP; round += 1) await rounds.nextRound();

    // Ada's event arrives just before the next sweep. On PostgreSQL one with a lower id may commit only after the
    // sweep read her usage: the round after the sweep reads from where the round before it did, and sees hers.
    await ada.send();
    const sweep = await rounds.nextRound();
    expect(sweep.alerts).toBe((await evaluate()).alerts);
    expect((await rounds.nextRound()).alerts).toBe(1);
    expect((await rounds.nextRound()).alerts).toBe(0);
  }, 60_000);
});
