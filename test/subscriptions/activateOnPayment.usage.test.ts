import { describe, expect, it } from 'vitest';
import { earliestActionDate, onBusinessDay, returnWindowEnd } from '../../src/core/bankingDays.ts';
import { createPlan, invoicesOf, ok } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { advanceTo, debitAccount, debitCustomer, plusDays } from '../batches/fixtures.ts';
import { linesOf, meteredComponent, sendEvents } from './meteredBilling.fixtures.ts';

/**
 * Entitlements and usage of a subscription that starts when paid (docs/subscriptions.md, "Subscriptions that start
 * when paid"): no feature while it is incomplete; usage events sent before its payment are stored but not billed.
 * A debit order's payment takes days, so the subscription's start and its activation are days apart.
 */

const t = useTestService();

describe('a subscription that starts when paid, before and after its payment', () => {
  it('gives no feature and bills no usage before the debit settles; both from that day', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const { account, today } = setup;
    const { customerId } = await debitCustomer(setup, 'debit_order', undefined, { followsCustomer: true });
    await ok(account, 'PUT', `/v1/customers/${customerId}`, {
      PaymentMethod: 'debit_order',
      PrimaryGatewayID: setup.gatewayId,
    });
    const { metric, componentId } = await meteredComponent(account, 'calls', 'sum', {
      property: 'n',
      currency: { CurrencyCode: 'ZAR', ComponentBracketPrices: [{ Price: 1, QtyFrom: 1, QtyTill: null }] },
    });
    const plan = await createPlan(account, { chargePrice: 250, currency: 'ZAR' });
    const flag = await ok(account, 'POST', '/v1/features', {
      Name: 'Reports',
      Code: 'reports',
      Type: 'boolean',
    });
    await ok(account, 'PUT', `/v1/packages/${plan.packageId}/features/${flag.Code}`, { Enabled: true }, 200);

    const created = await ok(account, 'POST', '/v1/subscriptions', {
      customerID: customerId,
      packageID: plan.packageId,
      packageRateTermID: plan.rateTermId,
      componentUsage: [{ componentID: componentId }],
      ActivateOnPayment: true,
    });
    const id = created.subscriptionID as number;
    const entitlement = () => ok(account, 'GET', `/v1/customers/${customerId}/entitlements/${flag.Code}`);
    expect(await entitlement()).toMatchObject({ Allowed: false, Subscriptions: [] });

    // Five calls the day after the start, while the debit is pending: stored, never billed.
    const actionDate = onBusinessDay(earliestActionDate('debit_order', today), 'debit_order');
    const settledOn = plusDays(returnWindowEnd('debit_order', actionDate), 1);
    await advanceTo(account, today);
    const [open] = (await ok(account, 'GET', '/v1/batches')).filter((b: any) => b.State === 'open');
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: open.BatchToken, ActionDate: actionDate });
    await sendEvents(account, [
      { customerId, subscriptionId: id, code: metric.code, at: `${plusDays(today, 1)}T09:00:00Z`, n: 5 },
    ]);
    await advanceTo(account, plusDays(settledOn, -1));
    expect((await ok(account, 'GET', `/v1/subscriptions/${id}`)).comp_Status).toBe('Incomplete');
    expect((await entitlement()).Allowed).toBe(false);

    // Paid the day the return window has passed: entitled from then, and three calls that day are billed.
    await advanceTo(account, settledOn);
    expect((await ok(account, 'GET', `/v1/subscriptions/${id}`)).comp_Status).toBe('Active');
    expect(await entitlement()).toMatchObject({ Allowed: true, subscriptionID: id });
    await sendEvents(account, [
      { customerId, subscriptionId: id, code: metric.code, at: `${settledOn}T13:00:00Z`, n: 3 },
    ]);

    // The renewal a month on bills the next month (250.00) and the first month's usage counted from the payment
    // day: 3 calls × 1.00 = 3.00; the 5 calls before it are left out.
    const renewal = (await ok(account, 'GET', `/v1/subscriptions/${id}`)).nextRenewDate.slice(
      0,
      10,
    ) as string;
    await advanceTo(account, renewal);
    const invoices = await invoicesOf(account, customerId);
    expect(invoices).toHaveLength(2);
    const usageLines = linesOf(invoices[1]).filter((line: unknown[]) => line.length > 2);
    expect(usageLines).toEqual([['API calls: 3 calls', 3, metric.code, '', '3', today, renewal]]);
    expect(invoices[1].Total).toBe(253);
  });
});
