import { describe, expect, it } from 'vitest';
import { createCustomer, movableClock, ok } from '../helpers/billing.ts';
import { eventually } from '../helpers/service.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import {
  meteredComponent,
  meteredSubscription,
  sendEvents,
} from '../subscriptions/meteredBilling.fixtures.ts';

// docs/design/usage.md, "Alerts": the service's own worker evaluates alerts every USAGE_ALERT_INTERVAL_MS, finding
// the customers whose events arrived since its last rounds and the alerts made since, with nobody asking.
const clock = movableClock('2026-03-01T10:00:00.000Z');

const t = useTestService({ clock, env: { USAGE_ALERT_INTERVAL_MS: '50' } });

async function crossed(as: TestAccount): Promise<any[]> {
  return ok(as, 'GET', '/v1/events?type=usage.threshold_crossed');
}

describe('the usage alert worker', () => {
  it('fires an alert when its events arrive, and one made past its threshold', async () => {
    const as = await t.newAccount('Worker shop', { isTest: true });
    const { componentId } = await meteredComponent(as, 'api', 'count');
    const customerId = await createCustomer(as);
    const { subscriptionId } = await meteredSubscription(as, [componentId], customerId);
    const path = `/v1/subscriptions/${subscriptionId}/usage-alerts`;
    const three = await ok(as, 'POST', path, {
      Name: 'Three',
      Kind: 'quantity',
      MetricCode: 'api',
      Threshold: 3,
    });
    const event = { customerId, subscriptionId, code: 'api', at: '2026-03-01T09:00:00Z' };

    // Three calls reach it (that two do not is usageAlerts.firing.test.ts's; here nothing but the worker evaluates).
    await sendEvents(as, [event, event, event]);
    const [fired] = await eventually(async () => {
      const events = await crossed(as);
      return events.length > 0 ? events : undefined;
    });
    expect(fired.data.object).toMatchObject({ usageAlertID: three.usageAlertID, LastFiring: { Value: '3' } });

    // Made when 3 calls are counted: the next round fires it without a new event.
    const two = await ok(as, 'POST', path, {
      Name: 'Two',
      Kind: 'quantity',
      MetricCode: 'api',
      Threshold: 2,
    });
    const all = await eventually(async () => {
      const events = await crossed(as);
      return events.length >= 2 ? events : undefined;
    });
    expect(all.map((e) => e.data.object.usageAlertID).sort()).toEqual(
      [three.usageAlertID, two.usageAlertID].sort(),
    );
  }, 30_000);
});
