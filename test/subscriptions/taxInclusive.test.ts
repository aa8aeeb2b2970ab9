import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
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
import { billedContent, upcomingOf } from './trial.helpers.ts';
import { advanceClock } from '../helpers/clock.ts';

// Tax-inclusive prices end to end (docs/pricing.md, "Tax-inclusive prices"): the account's default, a package
// rate and a component version currency that override it, billed by the bill run, previewed by the upcoming
// invoice, and credited on cancellation. Each test account's clock starts on Mar 1 2026; 15% VAT.

const clock = movableClock('2026-03-01T10:00:00.000Z');
const t = useTestService({ clock });

async function shop(accountInclusive: boolean) {
  const as = await t.newAccount('Shop', { isTest: true });
  await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
  if (accountInclusive) await ok(as, 'PUT', '/v1/account', { isTaxInclusive: true }, 204);
  const customerId = await createCustomer(as);
  return { as, customerId };
}

function component(as: TestAccount, isTaxInclusive?: boolean) {
  return createComponent(as, {
    currency: {
      ...(isTaxInclusive === undefined ? {} : { isTaxInclusive }),
      ComponentBracketPrices: [{ Price: 1, QtyFrom: 1, QtyTill: null }],
    },
  });
}

/** [Descrip, UnitCostEx, UnitCostInc, isTaxInclusive, AmountEx, AmountInc] of each line. */
const linesOf = (invoice: any) =>
  invoice.Charges.map((c: any) => [
    c.Descrip,
    c.UnitCostEx,
    c.UnitCostInc,
    c.isTaxInclusive,
    c.AmountEx,
    c.AmountInc,
  ]);

describe('an account whose prices include tax', () => {
  it('bills the package and usage at the listed prices, the preview equal to the invoice', async () => {
    const { as, customerId } = await shop(true);
    expect((await ok(as, 'GET', '/v1/account')).isTaxInclusive).toBe(true);
    const plan = await createPlan(as, { chargePrice: 31, setupFee: 11.5 });
    // The rate leaves isTaxInclusive out: it follows the account, and reads as it was sent.
    const pkg = await ok(as, 'GET', `/v1/packages/${plan.packageId}`);
    expect(pkg.PackageVersions[0].packageVersionRates[0]).not.toHaveProperty('isTaxInclusive');
    const sms = await component(as);
    const sub = await subscribe(as, customerId, plan, { componentUsage: [{ componentID: sms.componentID }] });
    const path = `/v1/subscriptions/${sub.subscriptionID}`;

    // Mar 1, at once: setup 11.50 / 1.15 = 10.00 + 1.50; 31.00 / 1.15 = 26.9565… → 26.96 + 4.04.
    // Total 42.50: exactly the listed prices, no tax on top.
    const [first] = await invoicesOf(as, customerId);
    expect(linesOf(first)).toEqual([
      [expect.stringMatching(/setup fee$/), 10, 11.5, true, 10, 11.5],
      // UnitCostEx shown: 31 / 1.15 = 26.95652… → 26.9565
      [expect.stringMatching(/^Plan \d+$/), 26.9565, 31, true, 26.96, 31],
    ]);
    expect(first).toMatchObject({ Total: 42.5, Taxes: [{ Name: 'VAT', Perc: 0.15 }] });

    // 7 sms in March at 1.00 with the tax in it; the preview of Apr 1 before the bill run makes it.
    await advanceClock(as, '2026-03-20T10:00:00Z');
    await ok(as, 'PUT', `${path}/components/recordusage`, [{ componentID: sms.componentID, NumUnits: 7 }]);
    const upcoming = await upcomingOf(as, sub.subscriptionID);
    await advanceClock(as, '2026-04-01T10:00:00Z');
    const renewal = (await invoicesOf(as, customerId)).at(-1);
    // 31.00 → 26.96 + 4.04; 7.00 / 1.15 = 6.0869… → 6.09 + 0.91. Total 38.00 = 31.00 + 7.00.
    expect(linesOf(renewal)).toEqual([
      [expect.stringMatching(/^Plan \d+$/), 26.9565, 31, true, 26.96, 31],
      ['SMS: 7 sms', 6.087, 7, true, 6.09, 7],
    ]);
    expect(renewal.Total).toBe(38);
    expect(billedContent(upcoming)).toEqual(billedContent({ ...renewal, Status: upcoming.Status }));
    expect(upcoming.Status).toBe('Due');

    // Cancelled on Apr 21 pro rata: Apr 21 – May 1 unused, 31.00 × 10 / 30 = 10.333… → 10.33 given back, tax
    // included (net 10.33 / 1.15 = 8.98, tax 1.35): the customer paid 31.00 − 10.33 = 20.67 for 20 of 30 days.
    await advanceClock(as, '2026-04-21T10:00:00Z');
    await ok(as, 'PUT', `${path}/cancel/prorata`);
    expect((await ok(as, 'GET', `${path}/credits`)).map((c: any) => c.Amount)).toEqual([10.33]);
  });

  it('lets a package rate and a component currency say their prices exclude tax', async () => {
    const { as, customerId } = await shop(true);
    const plan = await createPlan(as, { chargePrice: 31 });
    const version = await ok(as, 'GET', `/v1/packages/${plan.packageId}`);
    const rate = version.PackageVersions[0].packageVersionRates[0];
    const exclusive = await ok(as, 'POST', `/v1/packages/${plan.packageId}/versions`, {
      VersionName: 'Net',
      isActive: true,
      isDefault: true,
      packageVersionRates: [
        {
          CurrencyCode: 'USD',
          SetupFee: 0,
          TrialFee: 0,
          TrialPeriod: 0,
          TrialPeriodType: 'days',
          isTaxInclusive: false,
          PackageRateTerms: [
            { ChargePrice: rate.PackageRateTerms[0].ChargePrice, ChargeTerm: 1, ChargeTermType: 'months' },
          ],
        },
      ],
    });
    expect(exclusive.packageVersionRates[0].isTaxInclusive).toBe(false);
    const sms = await component(as, false);
    expect(sms.ComponentVersions[0].ComponentVersionCurrencies[0].isTaxInclusive).toBe(false);
    await subscribe(
      as,
      customerId,
      {
        packageId: plan.packageId,
        rateTermId: exclusive.packageVersionRates[0].PackageRateTerms[0].packageRateTermID,
      },
      { componentUsage: [{ componentID: sms.componentID, NumUnits: 4 }] },
    );
    await advanceClock(as, '2026-04-01T10:00:00Z');
    const renewal = (await invoicesOf(as, customerId)).at(-1);
    // As before tax-inclusive prices: 31.00 + 4.65 = 35.65; 4 × 1.00 + 0.60 = 4.60.
    expect(
      renewal.Charges.map((c: any) => [c.UnitCostEx, c.AmountEx, c.AmountInc, 'isTaxInclusive' in c]),
    ).toEqual([
      [31, 31, 35.65, false],
      [4, 4, 4.6, false],
    ]);
    expect(renewal.Total).toBe(40.25);
  });
});

describe('a change made now on tax-inclusive prices', () => {
  it('credits and charges so that the customer pays exactly one price per day, as previewed', async () => {
    const { as, customerId } = await shop(true);
    const plan = await createPlan(as, { chargePrice: 31 });
    const cheaper = await createPlan(as, { chargePrice: 12.4 });
    const sub = await subscribe(as, customerId, plan);
    const path = `/v1/subscriptions/${sub.subscriptionID}`;
    await advanceClock(as, '2026-03-21T10:00:00Z');
    const request = { packageID: cheaper.packageId, packageRateTermID: cheaper.rateTermId };
    const previewed = await ok(as, 'PUT', `${path}/changePackage?preview=true`, request, 200);
    await ok(as, 'PUT', `${path}/changePackage`, request);

    // Mar 21 – Apr 1 unused on 31.00 (1.00 a day with the tax in it): 31.00 × 11 / 31 = 11.00 back.
    const credits = await ok(as, 'GET', `${path}/credits`);
    expect(credits.map((c: any) => c.Amount)).toEqual([11]);
    expect(previewed.Credits.map((c: any) => c.Amount)).toEqual([11]);
    // The new price for the same 11 days: 12.40 × 11 / 31 = 4.40, tax included (4.40 / 1.15 = 3.826… → 3.83
    // + 0.57). So March costs 20 × 1.00 + 11 × 0.40 = 24.40 = 31.00 − 11.00 + 4.40, to the cent.
    const invoice = (await invoicesOf(as, customerId)).at(-1);
    expect(invoice.Charges.map((c: any) => [c.isTaxInclusive, c.AmountEx, c.AmountInc])).toEqual([
      [true, 3.83, 4.4],
    ]);
    expect(previewed.Invoices.map((i: any) => i.Total)).toEqual([4.4]);
    expect(previewed.Invoices[0].Charges.map((c: any) => [c.AmountEx, c.AmountInc])).toEqual([[3.83, 4.4]]);
  });
});

describe('an account whose prices exclude tax (the default)', () => {
  it('bills a tax-inclusive rate and component currency inclusive, the rest as before', async () => {
    const { as, customerId } = await shop(false);
    expect(await ok(as, 'GET', '/v1/account')).toHaveProperty('isTaxInclusive', false);
    const group = await ok(as, 'POST', '/v1/packagegroups', { GroupName: 'Plans' });
    const pkg = await ok(as, 'POST', '/v1/packages', {
      packageGroupID: group.packageGroupID,
      packageCode: 'GROSS',
      Name: 'Gross',
      isActive: true,
      PackageVersion: {
        VersionName: 'Standard',
        isActive: true,
        isDefault: true,
        packageVersionRates: [
          {
            CurrencyCode: 'USD',
            SetupFee: 0,
            TrialFee: 0,
            TrialPeriod: 0,
            TrialPeriodType: 'days',
            isTaxInclusive: true,
            PackageRateTerms: [{ ChargePrice: 9.99, ChargeTerm: 1, ChargeTermType: 'months' }],
          },
        ],
      },
    });
    const rate = pkg.PackageVersions[0].packageVersionRates[0];
    expect(rate.isTaxInclusive).toBe(true);
    const inclusiveSms = await component(as, true);
    const plainSms = await component(as);
    const sub = await subscribe(
      as,
      customerId,
      { packageId: pkg.packageID, rateTermId: rate.PackageRateTerms[0].packageRateTermID },
      {
        componentUsage: [
          { componentID: inclusiveSms.componentID, NumUnits: 3 },
          { componentID: plainSms.componentID, NumUnits: 3 },
        ],
      },
    );
    const upcoming = await upcomingOf(as, sub.subscriptionID);
    await advanceClock(as, '2026-04-01T10:00:00Z');
    const renewal = (await invoicesOf(as, customerId)).at(-1);
    // 9.99 / 1.15 = 8.6869… → 8.69 + 1.30 = 9.99; 3.00 / 1.15 = 2.6086… → 2.61 + 0.39 = 3.00;
    // exclusive 3.00 + 0.45 = 3.45. Total 9.99 + 3.00 + 3.45 = 16.44; VAT 1.30 + 0.39 + 0.45 = 2.14.
    expect(renewal.Charges.map((c: any) => [c.AmountEx, c.AmountInc, c.isTaxInclusive ?? false])).toEqual([
      [8.69, 9.99, true],
      [2.61, 3, true],
      [3, 3.45, false],
    ]);
    expect(renewal.Total).toBe(16.44);
    expect(billedContent(upcoming)).toEqual(billedContent({ ...renewal, Status: upcoming.Status }));

    // Later settings never reprice an issued invoice: the account turns inclusive, the invoice reads the same.
    await ok(as, 'PUT', '/v1/account', { isTaxInclusive: true }, 204);
    const again = await ok(as, 'GET', `/v1/invoices/${renewal.invoiceID}`);
    expect(again.Charges.map((c: any) => [c.AmountEx, c.AmountInc])).toEqual([
      [8.69, 9.99],
      [2.61, 3],
      [3, 3.45],
    ]);
  });

  it('refuses to change whether the prices of a version in use include tax (409)', async () => {
    const { as, customerId } = await shop(false);
    const plan = await createPlan(as, { chargePrice: 20 });
    await subscribe(as, customerId, plan);
    const pkg = await ok(as, 'GET', `/v1/packages/${plan.packageId}`);
    const version = pkg.PackageVersions[0];
    const rate = version.packageVersionRates[0];
    const res = await as.request('PUT', `/v1/packages/${plan.packageId}/versions/${version.VersionNo}`, {
      body: {
        VersionName: version.VersionName,
        isActive: true,
        isDefault: true,
        packageVersionRates: [
          {
            CurrencyCode: 'USD',
            SetupFee: rate.SetupFee,
            TrialFee: rate.TrialFee,
            TrialPeriod: rate.TrialPeriod,
            TrialPeriodType: rate.TrialPeriodType,
            isTaxInclusive: true,
            PackageRateTerms: rate.PackageRateTerms.map((term: any) => ({
              ChargePrice: term.ChargePrice,
              ChargeTerm: term.ChargeTerm,
              ChargeTermType: term.ChargeTermType,
            })),
          },
        ],
      },
    });
    expect(res.status, res.text).toBe(409);
  });
});
