import { describe, expect, it } from 'vitest';
import { createCustomer, createPlan, invoicesOf, ok, subscribe } from '../helpers/billing.ts';
import {
  meteredComponent,
  meteredSubscription,
  sendEvents,
} from '../subscriptions/meteredBilling.fixtures.ts';
import { upcomingOf } from '../subscriptions/trial.helpers.ts';
import { advanceTo, createCoupon, linesOf, t, useCouponService } from './coupons.fixtures.ts';

// A coupon and prepaid credit on one invoice (docs/credits.md, "Tax" and "How a discount shows on an invoice"): the
// coupon takes its share off before tax, and credit, applied after tax as a payment is, pays the discounted Total.
// The upcoming-invoice preview shows both before the bill run makes the invoice. Test accounts start on 1 March 2026.
useCouponService();

describe('a coupon and prepaid credit on one invoice', () => {
  it('discounts before tax, and credit pays the discounted Total, as the preview said', async () => {
    const as = await t.newAccount('Coupon and credit shop', { isTest: true });
    await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
    const customerId = await createCustomer(as);
    const plan = await createPlan(as, { chargePrice: 30 });
    const sub = await subscribe(as, customerId, plan);
    // Redeemed and granted after the subscription's first invoice (1 March, 34.50), which the coupon does not touch;
    // the grant pays it at once (docs/credits.md, "Consumption order"), leaving 74.50 − 34.50 = 40.00.
    await createCoupon(as, { Code: 'QUARTER', PercentOff: 25, Duration: 'forever' });
    await ok(as, 'POST', `/v1/subscriptions/${sub.subscriptionID}/coupons`, { Code: 'QUARTER' });
    const wallet = await ok(as, 'POST', `/v1/customers/${customerId}/wallets`, { CurrencyCode: 'USD' });
    const grant = await ok(as, 'POST', `/v1/wallets/${wallet.walletID}/grants`, { Amount: 74.5 });

    // 1 April: 30.00 + 4.50 VAT = 34.50; 25 % off before tax: −7.50 and −1.125 → −1.13 of VAT, −8.63. Total
    // 34.50 − 8.63 = 25.87 (VAT 3.37 on the discounted 22.50). Credit pays all of it: 25.87, leaving 40.00 −
    // 25.87 = 14.13, and nothing is due.
    const april = await upcomingOf(as, sub.subscriptionID);
    expect(linesOf(april)).toEqual([
      [plan.name, 30, 34.5],
      ['QUARTER: −25 %', -7.5, -8.63],
    ]);
    expect(april).toMatchObject({ Total: 25.87, PrepaidCreditApplied: 25.87, AmountDueAfterCredit: 0 });
    await advanceTo(as, '2026-04-01');
    const [march, issued] = await invoicesOf(as, customerId);
    expect(march).toMatchObject({ Total: 34.5, TotalNegativeAdjs: 34.5, Balance: 0 });
    expect(linesOf(issued)).toEqual(linesOf(april));
    expect(issued).toMatchObject({ Total: 25.87, TotalNegativeAdjs: 25.87, Balance: 0, Status: 'Paid' });
    // 34.50 + 25.87 = 60.37 consumed.
    expect(await ok(as, 'GET', `/v1/credit-grants/${grant.creditGrantID}`)).toMatchObject({
      Remaining: 14.13,
      Consumed: 60.37,
      Invoices: [
        { invoiceID: march.invoiceID, Amount: 34.5 },
        { invoiceID: issued.invoiceID, Amount: 25.87 },
      ],
    });

    // 1 May: the same 25.87; what is left of the credit, 14.13, pays part of it: 25.87 − 14.13 = 11.74 due.
    const may = await upcomingOf(as, sub.subscriptionID);
    expect(may).toMatchObject({ Total: 25.87, PrepaidCreditApplied: 14.13, AmountDueAfterCredit: 11.74 });
    await advanceTo(as, '2026-05-01');
    const mayIssued = (await invoicesOf(as, customerId)).at(-1);
    expect(linesOf(mayIssued)).toEqual(linesOf(may));
    expect(mayIssued).toMatchObject({ Total: 25.87, TotalNegativeAdjs: 14.13, Balance: 11.74 });
    expect((await ok(as, 'GET', `/v1/wallets/${wallet.walletID}`)).Balance).toBe(0);
    // The customer owes May's 11.74.
    expect((await ok(as, 'GET', `/v1/customers/${customerId}`)).Balance).toBe(11.74);
  });

  it('lets a grant restricted to a metric pay only its lines’ share of the discounted Total', async () => {
    const as = await t.newAccount('Coupon and metric credit shop', { isTest: true });
    const { componentId } = await meteredComponent(as, 'api', 'count');
    const { customerId, subscriptionId, plan } = await meteredSubscription(as, [componentId]);
    await createCoupon(as, { Code: 'HALF', PercentOff: 50, Duration: 'forever' });
    await ok(as, 'POST', `/v1/subscriptions/${subscriptionId}/coupons`, { Code: 'HALF' });
    const wallet = await ok(as, 'POST', `/v1/customers/${customerId}/wallets`, { CurrencyCode: 'USD' });
    const grant = await ok(as, 'POST', `/v1/wallets/${wallet.walletID}/grants`, {
      Amount: 100,
      AppliesTo: { MetricCodes: ['api'] },
    });
    await sendEvents(
      as,
      Array.from({ length: 10 }, (_, i) => ({
        customerId,
        subscriptionId,
        code: 'api',
        at: `2026-03-02T09:0${i}:00Z`,
      })),
    );

    // docs/credits.md, "Consumption order": 1 April is April's plan 30.00 and March's 10 calls, 10.00, and 50 % off
    // the 40.00: −20.00, Total 20.00. The discount names no metric, so it lowers both lines in proportion: the api
    // grant pays at most 10.00 × 20.00 / 40.00 = 5.00, and 15.00 is due.
    const upcoming = await upcomingOf(as, subscriptionId);
    expect(upcoming).toMatchObject({ Total: 20, PrepaidCreditApplied: 5, AmountDueAfterCredit: 15 });
    await advanceTo(as, '2026-04-01');
    const april = (await invoicesOf(as, customerId)).at(-1);
    expect(linesOf(april)).toEqual(linesOf(upcoming));
    expect(linesOf(april).at(-1)).toEqual(['HALF: −50 %', -20, -20]);
    expect(linesOf(april)[0]).toEqual([plan.name, 30, 30]);
    expect(april).toMatchObject({ Total: 20, TotalNegativeAdjs: 5, Balance: 15 });
    expect(await ok(as, 'GET', `/v1/credit-grants/${grant.creditGrantID}`)).toMatchObject({
      Remaining: 95,
      Invoices: [{ invoiceID: april.invoiceID, Amount: 5 }],
    });
  });
});
