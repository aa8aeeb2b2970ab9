import { beforeAll, expect } from 'vitest';
import { createCustomer, createPlan, ok, subscribe } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { defineMetric } from '../usage/usage.fixtures.ts';
import { useTestService } from '../helpers/testService.ts';
import type { FileService } from '../helpers/testService.ts';

/**
 * The entitlements tests' shared setup: one service per file, another account for isolation, and two metrics in
 * the test account (`api_calls`, a sum of `units`; `logins`, a count). Metrics are made in their table as the
 * catalogue would make them (test/usage/usage.fixtures.ts). Read the bindings inside tests.
 */
export let t: FileService;
export let other: TestAccount;

export function useEntitlementService() {
  t = useTestService({ secondAccount: true });
  other = t.other;
  beforeAll(async () => {
    await defineMetric(t.service.storage.db, t.accountId, 'api_calls', 'sum', { property: 'units' });
    await defineMetric(t.service.storage.db, t.accountId, 'logins', 'count');
    await defineMetric(t.service.storage.db, t.accountId, 'peak_seats', 'max', { property: 'seats' });
    await defineMetric(t.service.storage.db, t.accountId, 'eu_calls', 'sum', {
      property: 'units',
      filters: [{ property: 'region', values: ['eu'] }],
    });
    await defineMetric(t.service.storage.db, t.accountId, 'calls_by_model', 'sum', {
      property: 'units',
      groupBy: 'model',
    });
    const retired = await defineMetric(t.service.storage.db, t.accountId, 'retired', 'sum', {
      property: 'units',
    });
    await t.service.storage.db
      .updateTable('billable_metrics')
      .set({ archived_at: '2026-01-02T00:00:00.000Z' })
      .where('id', '=', retired.id)
      .execute();
    await defineMetric(t.service.storage.db, other.accountId, 'api_calls', 'sum', { property: 'units' });
  });
}

let codes = 0;
export const nextCode = (prefix = 'feat') => `${prefix}-${++codes}`;

export async function createFeature(body: Record<string, unknown>, as: TestAccount = t) {
  return ok(as, 'POST', '/v1/features', { Name: 'A feature', ...body });
}

/** A customer on a new plan; the plan's package id and the subscription's id. */
export async function customerOnPlan(as: TestAccount = t) {
  const plan = await createPlan(as);
  const customerId = await createCustomer(as);
  const subscription = await subscribe(as, customerId, plan);
  return { plan, customerId, subscriptionId: subscription.subscriptionID as number };
}

export async function setValue(path: string, body: Record<string, unknown>, as: TestAccount = t) {
  const res = await as.request('PUT', path, { body });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

export async function refused(
  method: string,
  path: string,
  body: unknown,
  status = 422,
  as: TestAccount = t,
) {
  const res = await as.request(method, path, { body });
  expect(res.status, res.text).toBe(status);
  return res.body as { code: string; fields?: { field: string; message: string }[] };
}
