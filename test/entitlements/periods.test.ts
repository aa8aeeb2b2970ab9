import { beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, createPlan, movableClock, ok, subscribe } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { defineMetric } from '../usage/usage.fixtures.ts';
import { advanceClock } from '../helpers/clock.ts';

// A limit is per billing period, in the account's time zone: Auckland, whose daylight saving time ends on the very
// day the second period starts (5 April 2026, 03:00 NZDT → 02:00 NZST), so that the bound is midnight NZDT,
// 2026-04-04T11:00Z.
const clock = movableClock('2026-03-05T00:00:00.000Z'); // 13:00 on 5 March in Auckland
let shop: TestAccount;

const t = useTestService({ clock });
beforeAll(async () => {
  shop = await t.newAccount('Auckland shop', { isTest: true, timeZone: 'Pacific/Auckland' });
  await defineMetric(t.service.storage.db, shop.accountId, 'api_calls', 'sum', { property: 'units' });
});

const advance = (To: string) => advanceClock(shop, To);

describe('a limit per billing period', () => {
  it("starts afresh at the account's midnight that begins the next period, and not before", async () => {
    await ok(shop, 'POST', '/v1/features', {
      Code: 'calls',
      Name: 'Calls',
      Type: 'limit',
      MetricCode: 'api_calls',
    });
    const plan = await createPlan(shop);
    await ok(shop, 'PUT', `/v1/packages/${plan.packageId}/features/calls`, { Limit: 10 }, 200);
    const customerId = await createCustomer(shop);
    await subscribe(shop, customerId, plan);
    const path = `/v1/customers/${customerId}/entitlements/calls`;
    let tx = 0;
    const consume = (Quantity: number) =>
      shop.request('POST', `${path}/consume`, { body: { Quantity, transaction_id: `tx-${++tx}` } });

    expect((await consume(8)).status).toBe(201);
    expect(await ok(shop, 'GET', path)).toMatchObject({
      Used: '8',
      Remaining: '2',
      PeriodStart: '2026-03-05',
      PeriodEnd: '2026-04-05',
    });

    // 23:30 on 4 April in Auckland: the first period still, whose 8 count.
    await advance('2026-04-04T10:30:00.000Z');
    expect((await consume(2)).status).toBe(201);
    expect((await consume(0.5)).status).toBe(409);

    // 00:30 on 5 April: the second period, nothing used yet.
    await advance('2026-04-04T11:30:00.000Z');
    expect(await ok(shop, 'GET', path)).toMatchObject({
      Used: '0',
      Remaining: '10',
      PeriodStart: '2026-04-05',
      PeriodEnd: '2026-05-05',
    });
    expect((await consume(10)).status).toBe(201);
    expect((await consume(0.0001)).status).toBe(409);
  });
});
