import { describe, expect, it } from 'vitest';
import { createCustomer, createPlan, invoicesOf, ok, subscribe } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { billedContent, upcomingOf } from '../subscriptions/trial.helpers.ts';
import { advanceTo, createCoupon, eventsOf, linesOf, t, useCouponService } from './coupons.fixtures.ts';

// Coupons applied by the bill run (docs/credits.md, "Coupons"), hand-computed, through the test clock: each test
// account's clock starts on 1 March 2026. The upcoming-invoice preview shows the discount the bill run then makes.
useCouponService();

async function shop(options: { vat?: boolean; inclusive?: boolean } = {}) {
  const as = await t.newAccount('Coupon shop', { isTest: true });
  if (options.vat) await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
  if (options.inclusive) await ok(as, 'PUT', '/v1/account', { isTaxInclusive: true }, 204);
  const customerId = await createCustomer(as);
  return { as, customerId };
}

const redemptionsOf = (as: TestAccount, path: string) => ok(as, 'GET', path) as Promise<any[]>;

describe('coupons on the bill run', () => {
  it('discounts 3 billed periods of a subscription, across a change of package', async () => {
    const { as, customerId } = await shop();
    const silver = await createPlan(as, { chargePrice: 30 });
    const gold = await createPlan(as, { chargePrice: 60 });
    const sub = await subscribe(as, customerId, silver);
    const path = `/v1/subscriptions/${sub.subscriptionID}`;
    await createCoupon(as, { Code: 'Q3', PercentOff: 25, Duration: 'repeating', DurationPeriods: 3 });
    await ok(as, 'POST', `${path}/coupons`, { Code: 'Q3' });

    // Mar 1, before the redemption: 30.00, no discount.
    const upcoming = await upcomingOf(as, sub.subscriptionID);
    await advanceTo(as, '2026-04-01');
    // Apr 1, period 1 of 3: 30.00 − 25 % = 30.00 − 7.50 = 22.50; the preview showed exactly this invoice.
    const april = (await invoicesOf(as, customerId)).at(-1);
    expect(linesOf(april)).toEqual([
      [silver.name, 30, 30],
      ['Q3: −25 %', -7.5, -7.5],
    ]);
    expect(april.Total).toBe(22.5);
    expect(billedContent(upcoming)).toEqual(billedContent({ ...april, Status: upcoming.Status }));

    // Changed to Gold from May 1: the redemption stays with the subscription.
    await advanceTo(as, '2026-04-10');
    await ok(as, 'PUT', `${path}/changePackage`, {
      packageID: gold.packageId,
      packageRateTermID: gold.rateTermId,
      isFutureChange: true,
    });
    const mayPreview = await upcomingOf(as, sub.subscriptionID);
    await advanceTo(as, '2026-07-01');
    // May 1 and Jun 1, periods 2 and 3: 60.00 − 15.00 = 45.00; Jul 1: used up, 60.00.
    const invoices = await invoicesOf(as, customerId);
    expect(invoices.map((i) => i.Total)).toEqual([30, 22.5, 45, 45, 60]);
    expect(linesOf(invoices[2])).toEqual([
      [gold.name, 60, 60],
      ['Q3: −25 %', -15, -15],
    ]);
    expect(mayPreview.Total).toBe(45);
    expect(linesOf(mayPreview)).toEqual(linesOf(invoices[2]));
    expect((await redemptionsOf(as, `${path}/coupons`))[0]).toMatchObject({
      PeriodsUsed: 3,
      PeriodsLeft: 0,
      Ended: true,
    });
    // Used up by the bill run of Jun 1: ended, as a redemption ended by hand is, and told once.
    const ended = await eventsOf(as, 'coupon.ended');
    expect(ended).toHaveLength(1);
    expect(ended[0]!.data.object).toMatchObject({ Code: 'Q3', PeriodsUsed: 3, Ended: true });
  });

  it('takes a 100 % coupon to a Total of 0.00, its tax with it', async () => {
    const { as, customerId } = await shop({ vat: true });
    const plan = await createPlan(as, { chargePrice: 30 });
    await createCoupon(as, { Code: 'FREE', PercentOff: 100 });
    await ok(as, 'POST', `/v1/customers/${customerId}/coupons`, { Code: 'FREE' });
    await subscribe(as, customerId, plan);
    await advanceTo(as, '2026-04-01');
    // Mar 1: 30.00 + 4.50 VAT; the discount −30.00 − 4.50 VAT: Total 0.00, paid as it stands.
    // Apr 1: the coupon was for one period: 30.00 + 4.50 = 34.50.
    const [march, april] = await invoicesOf(as, customerId);
    expect(linesOf(march)).toEqual([
      [plan.name, 30, 34.5],
      ['FREE: −100 %', -30, -34.5],
    ]);
    expect([march.Total, march.Status]).toEqual([0, 'Paid']);
    expect(april.Total).toBe(34.5);
  });

  it('credits a cancelled period with what its discounted invoice charged, not the list price', async () => {
    const { as, customerId } = await shop();
    const plan = await createPlan(as, { chargePrice: 30 });
    await createCoupon(as, { Code: 'Q', PercentOff: 25 });
    await ok(as, 'POST', `/v1/customers/${customerId}/coupons`, { Code: 'Q' });
    const sub = await subscribe(as, customerId, plan);
    const path = `/v1/subscriptions/${sub.subscriptionID}`;
    // Mar 1: 30.00 − 7.50 = 22.50 charged; cancelled with full credit: 22.50 back, not 30.00.
    expect((await invoicesOf(as, customerId)).map((i) => i.Total)).toEqual([22.5]);
    await advanceTo(as, '2026-03-10');
    await ok(as, 'PUT', `${path}/cancel/fullcredit`);
    expect((await ok(as, 'GET', `${path}/credits`)).map((c: any) => c.Amount)).toEqual([22.5]);
  });

  it('stops a fixed coupon larger than the invoice at a Total of 0.00', async () => {
    const { as, customerId } = await shop({ vat: true });
    const plan = await createPlan(as, { chargePrice: 30 });
    await createCoupon(as, { Code: 'BIG', AmountOff: 50, CurrencyCode: 'USD' });
    await ok(as, 'POST', `/v1/customers/${customerId}/coupons`, { Code: 'BIG' });
    await subscribe(as, customerId, plan);
    // 50.00 off 30.00: only 30.00 is taken (and its 4.50 VAT); what is left of the coupon is not carried over.
    const [march] = await invoicesOf(as, customerId);
    expect(linesOf(march)).toEqual([
      [plan.name, 30, 34.5],
      ['BIG: −50.00 USD', -30, -34.5],
    ]);
    expect(march.Total).toBe(0);
    await advanceTo(as, '2026-04-01');
    expect((await invoicesOf(as, customerId)).map((i) => i.Total)).toEqual([0, 34.5]);
  });

  it('takes the discount from a tax-inclusive price and splits the tax again', async () => {
    const { as, customerId } = await shop({ vat: true, inclusive: true });
    const plan = await createPlan(as, { chargePrice: 31 });
    await createCoupon(as, { Code: 'SAVE10', PercentOff: 10, Duration: 'forever' });
    await ok(as, 'POST', `/v1/customers/${customerId}/coupons`, { Code: 'SAVE10' });
    await subscribe(as, customerId, plan);
    // 31.00 includes its VAT: 31.00 / 1.15 = 26.9565… → 26.96 + 4.04. 10 % off the inclusive 31.00 = 3.10,
    // split the same way: 3.10 / 1.15 = 2.6956… → 2.70 + 0.40. Total 27.90 = 31.00 − 3.10, VAT 4.04 − 0.40 = 3.64.
    const [march] = await invoicesOf(as, customerId);
    expect(linesOf(march)).toEqual([
      [plan.name, 26.96, 31],
      ['SAVE10: −10 %', -2.7, -3.1],
    ]);
    expect(march.Total).toBe(27.9);
    const vat = march.Charges.reduce((sum: number, c: any) => sum + c.AmountInc - c.AmountEx, 0);
    expect(vat).toBeCloseTo(3.64, 10);
  });

  it('prorates a fixed coupon over a stub period with the stub’s fraction', async () => {
    const { as, customerId } = await shop();
    const plan = await createPlan(as, { chargePrice: 30 });
    await createCoupon(as, { Code: 'FLAT', AmountOff: 10, CurrencyCode: 'USD', Duration: 'forever' });
    await ok(as, 'POST', `/v1/customers/${customerId}/coupons`, { Code: 'FLAT' });
    await advanceTo(as, '2026-03-22');
    const sub = await subscribe(as, customerId, plan, {
      isProRata: true,
      firstProrataSyncDate: '2026-04-01',
    });
    // Mar 22 – Apr 1 is 10 of the 31 days of Mar 1 – Apr 1: 30.00 × 10 / 31 = 9.677… → 9.68, and the coupon
    // 10.00 × 10 / 31 = 3.225… → 3.23. Total 6.45. Apr 1, a whole month: 30.00 − 10.00 = 20.00.
    const upcoming = await upcomingOf(as, sub.subscriptionID);
    await advanceTo(as, '2026-04-01');
    const [stub, april] = await invoicesOf(as, customerId);
    expect(linesOf(stub)).toEqual([
      [`${plan.name} (pro-rated, 10 of 31 days)`, 9.68, 9.68],
      ['FLAT: −10.00 USD pro-rated, 10 of 31 days', -3.23, -3.23],
    ]);
    expect(stub.Total).toBe(6.45);
    expect(linesOf(april)).toEqual([
      [plan.name, 30, 30],
      ['FLAT: −10.00 USD', -10, -10],
    ]);
    expect(upcoming.Total).toBe(20);
    expect((await redemptionsOf(as, `/v1/customers/${customerId}/coupons`))[0]).toMatchObject({
      PeriodsUsed: 2,
      PeriodsLeft: null,
      Ended: false,
    });
  });

  it('counts a customer’s redemption over all its subscriptions together', async () => {
    const { as, customerId } = await shop();
    const plan = await createPlan(as, { chargePrice: 30 });
    await createCoupon(as, {
      Code: 'TWICE',
      AmountOff: 5,
      CurrencyCode: 'USD',
      Duration: 'repeating',
      DurationPeriods: 2,
    });
    await ok(as, 'POST', `/v1/customers/${customerId}/coupons`, { Code: 'TWICE' });
    await subscribe(as, customerId, plan);
    await subscribe(as, customerId, plan);
    await advanceTo(as, '2026-04-01');
    // Mar 1: each subscription's first invoice, 30.00 − 5.00 = 25.00: the coupon's two periods. Apr 1: 30.00 each.
    expect((await invoicesOf(as, customerId)).map((i) => i.Total)).toEqual([25, 25, 30, 30]);
    expect((await redemptionsOf(as, `/v1/customers/${customerId}/coupons`))[0]).toMatchObject({
      PeriodsUsed: 2,
      PeriodsLeft: 0,
      Ended: true,
    });
  });

  it('discounts only the lines its AppliesTo names, and no invoice once ended', async () => {
    const { as, customerId } = await shop();
    const silver = await createPlan(as, { chargePrice: 30 });
    const gold = await createPlan(as, { chargePrice: 60 });
    await createCoupon(as, {
      Code: 'GOLD20',
      PercentOff: 20,
      Duration: 'forever',
      AppliesTo: { PackageIDs: [gold.packageId] },
    });
    const redeemed = await ok(as, 'POST', `/v1/customers/${customerId}/coupons`, { Code: 'GOLD20' });
    await subscribe(as, customerId, silver);
    await subscribe(as, customerId, gold);
    // Mar 1: Silver 30.00 untouched; Gold 60.00 − 12.00 = 48.00.
    expect((await invoicesOf(as, customerId)).map((i) => i.Total)).toEqual([30, 48]);
    await ok(
      as,
      'DELETE',
      `/v1/customers/${customerId}/coupons/${redeemed.couponRedemptionID}`,
      undefined,
      200,
    );
    await advanceTo(as, '2026-04-01');
    expect(
      (await invoicesOf(as, customerId))
        .slice(2)
        .map((i) => i.Total)
        .sort(),
    ).toEqual([30, 60]);
  });
});
