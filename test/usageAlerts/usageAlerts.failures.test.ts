import { describe, expect, it } from 'vitest';
import { usageAlertRounds } from '../../src/billing/usageAlerts.ts';
import { ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { sendEvents } from '../subscriptions/meteredBilling.fixtures.ts';
import {
  evaluate,
  evaluationDeps,
  eventsOf,
  shopWithCalls,
  subscribed,
  t,
  useUsageAlertService,
} from './usageAlerts.fixtures.ts';

// src/billing/usageAlerts.ts (docs/design/usage.md, "Alerts"): one account whose alerts cannot be evaluated is
// logged and counted as a failure; the other accounts' alerts are still evaluated and fire, and the failed account's
// fire once it can be read again. The failure is a real one: the account's stored time zone is not a zone, so
// reading its usage periods throws.
useUsageAlertService();

/** A shop whose customer has an alert at 3 calls and has made 3: it fires at the next evaluation. */
async function shopAboutToFire(name: string, email: string) {
  const { as, calls, customerId } = await shopWithCalls(name, email);
  const { subscriptionId } = await subscribed(as, [calls.componentId], customerId);
  await ok(as, 'POST', `/v1/subscriptions/${subscriptionId}/usage-alerts`, {
    Name: 'Three',
    Kind: 'quantity',
    MetricCode: 'api',
    Threshold: 3,
  });
  const call = { customerId, subscriptionId, code: 'api', at: '2026-03-01T09:00:00Z' };
  await sendEvents(as, [call, call, call]);
  return as;
}

async function setTimeZone(as: TestAccount, zone: string) {
  await t.service.storage.db
    .updateTable('accounts')
    .set({ time_zone: zone })
    .where('id', '=', as.accountId)
    .execute();
}

const fired = async (as: TestAccount) => (await eventsOf(as, 'usage.threshold_crossed')).length;

describe('an account whose alerts cannot be evaluated', () => {
  it('fails alone in a sweep: the others fire, and it fires once mended', async () => {
    const broken = await shopAboutToFire('Broken zone shop', 'ada@broken.example');
    const sound = await shopAboutToFire('Sound shop', 'ada@sound.example');
    await setTimeZone(broken, 'Not/A_Zone');

    const summary = await evaluate();
    expect(summary.failures).toBe(1);
    expect(summary.fired).toBe(1);
    expect(await fired(sound)).toBe(1);

    await setTimeZone(broken, 'UTC');
    expect(await fired(broken)).toBe(0);
    expect(await evaluate()).toMatchObject({ fired: 1, failures: 0 });
    expect(await fired(broken)).toBe(1);
    expect(await fired(sound)).toBe(1);
  }, 60_000);

  it("fails alone in the worker's rounds, and its alerts are read again in a later round", async () => {
    const rounds = usageAlertRounds(evaluationDeps());
    // The first round is a sweep: the alerts made before it are read and settled.
    await rounds.nextRound();
    const broken = await shopAboutToFire('Broken rounds shop', 'ada@broken-rounds.example');
    const sound = await shopAboutToFire('Sound rounds shop', 'ada@sound-rounds.example');
    await setTimeZone(broken, 'Not/A_Zone');

    const round = await rounds.nextRound();
    expect(round).toMatchObject({ fired: 1, failures: 1 });
    expect(await fired(sound)).toBe(1);
    expect(await fired(broken)).toBe(0);

    await setTimeZone(broken, 'UTC');
    // Its alert was never checked, so the next round reads it again (an alert not checked yet is flagged).
    expect(await rounds.nextRound()).toMatchObject({ fired: 1, failures: 0 });
    expect(await fired(broken)).toBe(1);
    expect(await fired(sound)).toBe(1);
  }, 60_000);
});
