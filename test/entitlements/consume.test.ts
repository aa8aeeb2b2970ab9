import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { createFeature, customerOnPlan, nextCode, refused, setValue, t, useEntitlementService } from './entitlements.fixtures.ts';

useEntitlementService();

describe('check-and-record', () => {
  it('records usage within the limit and refuses the quantity that would pass it', async () => {
    const code = nextCode();
    await createFeature({ Code: code, Type: 'limit', MetricCode: 'api_calls' });
    const { plan, customerId, subscriptionId } = await customerOnPlan();
    await setValue(`/v1/packages/${plan.packageId}/features/${code}`, { Limit: 10 });
    const path = `/v1/customers/${customerId}/entitlements/${code}`;
    const first = await ok(t, 'POST', `${path}/consume`, { Quantity: 7.5, transaction_id: nextCode('tx') });
    expect(first).toMatchObject({ customerID: customerId, subscriptionID: subscriptionId, Quantity: '7.5', Limit: '10', Used: '7.5', Remaining: '2.5' });
    const over = await refused('POST', `${path}/consume`, { Quantity: 2.6, transaction_id: nextCode('tx') }, 409);
    expect(over.code).toBe('limit_exceeded');
    expect(over.fields?.[0]?.field).toBe('Quantity');
    expect(over.fields?.[0]?.message).toContain('2.5 remaining');
    const check = await ok(t, 'GET', path);
    expect(check).toMatchObject({ Allowed: true, Limit: '10', Used: '7.5', Remaining: '2.5' });
  });
});
