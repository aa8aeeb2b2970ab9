import { describe, expect, it } from 'vitest';
import {
  createComponent,
  createCustomer,
  createPlan,
  invoicesOf,
  movableClock,
  ok,
  subscribe,
} from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';

// modules/invoicing/invoiceMath.ts, invoiceBoundsProblem: usage priced beyond the bound of an amount parks its subscription
// rather than issuing figures no double holds exactly, and the preview answers a problem, not a 500.
const clock = movableClock('2026-03-01T10:00:00.000Z');

const t = useTestService({ clock });

const BOUND = 'Qty × unit price must be at most 99999999999.9999 in size';

describe('usage priced beyond the bound of an amount', () => {
  it('is refused by the preview, parks its subscription alone, and is billed once mended and unparked', async () => {
    const shop = await t.newAccount('Shop bounds', { isTest: true });
    const plan = await createPlan(shop, { chargePrice: 30 });
    const component = await createComponent(shop, {
      name: 'API',
      type: 'metered',
      scheme: 'unit',
      unitName: 'calls',
      currency: { ComponentBracketPrices: [{ Price: 99999, QtyFrom: 1 }] },
    });
    const recordUsage = (subscriptionId: number, units: number) =>
      ok(
        shop,
        'PUT',
        `/v1/subscriptions/${subscriptionId}/components/recordusage`,
        [{ componentID: component.componentID, NumUnits: units, isSetUnits: true }],
        204,
      );
    const huge = await createCustomer(shop);
    const hugeSub = await subscribe(shop, huge, plan, {
      componentUsage: [{ componentID: component.componentID }],
    });
    const plain = await createCustomer(shop);
    const plainSub = await subscribe(shop, plain, plan, {
      componentUsage: [{ componentID: component.componentID }],
    });
    await recordUsage(hugeSub.subscriptionID, 99_999_999_999); // × 99 999.00 ≈ 10^16
    await recordUsage(plainSub.subscriptionID, 2);

    const preview = await shop.request('GET', `/v1/subscriptions/${hugeSub.subscriptionID}/upcoming-invoice`);
    expect(preview.status, preview.text).toBe(409);
    expect(preview.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(preview.body.code).toBe('subscription_invalid');
    expect(preview.body.detail).toContain(`its invoice of 2026-04-01: line 2: ${BOUND}`);

    const run = await ok(shop, 'POST', '/v1/test-clock/advance', { To: '2026-04-01T01:00:00Z' }, 200);
    expect(run.Billed).toMatchObject({ invoices: 1, parked: 1 });
    const parked = await ok(shop, 'GET', `/v1/subscriptions/${hugeSub.subscriptionID}`);
    expect(parked).toMatchObject({ isParked: true });
    expect(parked.ParkedReason).toContain(BOUND);
    // Its first term's invoice only; the other customer's renewal billed its usage: 30.00 + 2 × 99 999.00.
    expect((await invoicesOf(shop, huge)).map((i) => i.Total)).toEqual([30]);
    expect((await invoicesOf(shop, plain)).map((i) => i.Total)).toEqual([30, 200028]);

    // Still parked the next day, and not tried again.
    const nextDay = await ok(shop, 'POST', '/v1/test-clock/advance', { To: '2026-04-02T01:00:00Z' }, 200);
    expect(nextDay.Billed).toMatchObject({ invoices: 0, parked: 0 });

    // March's usage mended by the operator (a past period has no usage API) and the subscription unparked:
    // billed at once for the period due.
    await t.service.storage.db
      .updateTable('subscription_usage')
      .set({ num_units: '3' })
      .where('subscription_id', '=', hugeSub.subscriptionID)
      .where('invoice_id', 'is', null)
      .execute();
    await ok(shop, 'PUT', `/v1/subscriptions/${hugeSub.subscriptionID}/unpark`);
    expect((await ok(shop, 'GET', `/v1/subscriptions/${hugeSub.subscriptionID}`)).isParked).toBe(false);
    expect((await invoicesOf(shop, huge)).map((i) => i.Total)).toEqual([30, 300027]);
  });
});
