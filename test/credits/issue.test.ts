import { describe, expect, it } from 'vitest';
import { createPlan, invoicesOf, ok, subscribe } from '../helpers/billing.ts';
import { advance } from '../subscriptions/meteredBilling.fixtures.ts';
import { expectJournalBalances, grant, grantOf, useCreditsService, walletOf } from './credits.fixtures.ts';

// docs/credits.md, "Consumption order": credit pays an invoice in the transaction that issues it, whatever issues
// it; here a recurring invoice billed by the daily run and a subscription change's invoice. Test accounts start on
// 1 March 2026 (UTC).
useCreditsService();

describe('credit consumed as invoices are issued', () => {
  it("pays a recurring invoice's invoice when the daily run issues it", async () => {
    const { as, customerId, walletId } = await walletOf('Recurring credit shop', { isTest: true });
    const g = await grant(as, walletId, { Amount: 20 });
    const recurring = await ok(as, 'POST', '/v1/recurring-invoices', {
      customerID: customerId,
      StartDate: '2026-03-05',
      RecurInvoiceCharges: [{ Descrip: 'Hosting', Qty: 1, UnitCostEx: 12 }],
    });
    expect((await grantOf(as, g.creditGrantID)).Remaining).toBe(20);
    await advance(as, '2026-03-05T10:00:00Z');
    // 5 March: 12.00 issued and paid from the grant: 20.00 − 12.00 = 8.00 left.
    const [issued] = await invoicesOf(as, customerId);
    expect(issued).toMatchObject({ Total: 12, TotalNegativeAdjs: 12, Balance: 0, Status: 'Paid' });
    expect(await grantOf(as, g.creditGrantID)).toMatchObject({
      Remaining: 8,
      Invoices: [{ invoiceID: issued.invoiceID, Amount: 12 }],
    });
    // 5 April: the next 12.00, of which the 8.00 left pays 8.00: 4.00 due.
    await advance(as, '2026-04-05T10:00:00Z');
    const april = (await invoicesOf(as, customerId)).at(-1);
    expect(april).toMatchObject({ Total: 12, TotalNegativeAdjs: 8, Balance: 4 });
    expect((await ok(as, 'GET', `/v1/recurring-invoices/${recurring.recurInvoiceID}`)).lastInvDate).toMatch(
      /^2026-04-05/,
    );
    await expectJournalBalances(as, walletId);
  });

  it("pays a subscription change's invoice when the change is made", async () => {
    const { as, customerId, walletId } = await walletOf('Change credit shop', { isTest: true });
    const g = await grant(as, walletId, { Amount: 50 });
    const silver = await createPlan(as, { chargePrice: 30 });
    const gold = await createPlan(as, { chargePrice: 60 });
    const sub = await subscribe(as, customerId, silver);
    // 1 March: Silver's 30.00 paid from the grant: 20.00 left.
    expect((await grantOf(as, g.creditGrantID)).Remaining).toBe(20);
    await advance(as, '2026-03-16T10:00:00Z');
    await ok(as, 'PUT', `/v1/subscriptions/${sub.subscriptionID}/changePackage`, {
      packageID: gold.packageId,
      packageRateTermID: gold.rateTermId,
    });
    // docs/spec-decisions.md (changePackage made now): 16 of March's 31 days left. Silver's unused part is credited,
    // 30.00 × 16 / 31 = 15.48; Gold is charged 60.00 × 16 / 31 = 30.97, invoiced at once. The customer's own money,
    // the 15.48 credit, goes first; the grant pays the other 30.97 − 15.48 = 15.49: 20.00 − 15.49 = 4.51 left.
    const change = (await invoicesOf(as, customerId)).at(-1);
    expect(change.Total).toBe(30.97);
    expect(await grantOf(as, g.creditGrantID)).toMatchObject({
      Remaining: 4.51,
      Invoices: [
        { invoiceID: expect.any(Number), Amount: 30 },
        { invoiceID: change.invoiceID, Amount: 15.49 },
      ],
    });
    expect((await ok(as, 'GET', `/v1/customers/${customerId}`)).Balance).toBe(0);
    await expectJournalBalances(as, walletId);
  });
});
