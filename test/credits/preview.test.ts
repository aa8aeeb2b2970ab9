import { describe, expect, it } from 'vitest';
import { invoicesOf, ok } from '../helpers/billing.ts';
import {
  advance,
  meteredComponent,
  meteredSubscription,
  sendEvents,
} from '../subscriptions/meteredBilling.fixtures.ts';
import { upcomingOf } from '../subscriptions/trial.helpers.ts';
import { expectJournalBalances, grant, journalOf, useCreditsService, walletOf } from './credits.fixtures.ts';

// docs/credits.md, "The upcoming invoice": the preview shows the prepaid credit the bill run will apply, by the
// same consumption rules, and consumes nothing; the bill run then applies exactly that.
useCreditsService();

describe('prepaid credit in the upcoming-invoice preview', () => {
  it('shows what the bill run applies: priority, restriction to a metric, expiry by the invoice date', async () => {
    const { as, customerId, walletId } = await walletOf('Preview shop', { isTest: true });
    const { componentId } = await meteredComponent(as, 'api', 'count');
    const { subscriptionId } = await meteredSubscription(as, [componentId], customerId);
    await sendEvents(
      as,
      Array.from({ length: 5 }, (_, i) => ({
        customerId,
        subscriptionId,
        code: 'api',
        at: `2026-03-01T09:0${i}:00Z`,
      })),
    );
    await grant(as, walletId, { Amount: 100, AppliesTo: { MetricCodes: ['api'] } });
    // March's plan invoice of 30.00, open when the grants come, is paid by the first that may pay a plan line
    // (docs/credits.md, "Consumption order"): 50.00 − 30.00 = 20.00 left of it.
    await grant(as, walletId, { Amount: 50, ExpiresAt: '2026-04-01' });
    await grant(as, walletId, { Amount: 12, Priority: 2 });
    const journalBefore = await journalOf(as, walletId);

    const upcoming = await upcomingOf(as, subscriptionId);
    // 1 April: March's 5 calls at 1.00 = 5.00, and April's plan 30.00: 35.00. The 50.00 expires at the start of
    // 1 April, so pays nothing; the api grant pays its 5.00 of lines only; the priority 2 grant 12.00:
    // 5.00 + 12.00 = 17.00 applied, 35.00 − 17.00 = 18.00 due.
    expect(upcoming).toMatchObject({ Total: 35, PrepaidCreditApplied: 17, AmountDueAfterCredit: 18 });
    // The preview consumed nothing: 100.00 + 20.00 + 12.00 = 132.00 held.
    expect(await journalOf(as, walletId)).toEqual(journalBefore);
    expect((await ok(as, 'GET', `/v1/wallets/${walletId}`)).Balance).toBe(132);

    await advance(as, '2026-04-01T12:00:00Z');
    const april = (await invoicesOf(as, customerId)).at(-1);
    expect(april).toMatchObject({ Total: 35, TotalNegativeAdjs: 17, Balance: 18 });
    await expectJournalBalances(as, walletId);
  });

  it("keeps the customer's own unapplied money first, as the issue does", async () => {
    const { as, customerId, walletId } = await walletOf('Money-first shop', { isTest: true });
    const { subscriptionId } = await meteredSubscription(as, [], customerId);
    // 40.00 paid by hand and left unapplied: the customer's own money, kept first. The grant pays nothing of
    // March's open 30.00, which that money covers, and the next day's run applies 30.00 of it there, leaving 10.00
    // (docs/credits.md, "Consumption order").
    await ok(as, 'POST', '/v1/payments', {
      customerID: customerId,
      Amount: 40,
      CurrencyCode: 'USD',
      Date: '2026-03-01',
      Method: 'cash',
      allocations: [],
    });
    await grant(as, walletId, { Amount: 100 });
    await advance(as, '2026-03-02T12:00:00Z');
    expect((await invoicesOf(as, customerId)).at(-1)).toMatchObject({ Total: 30, TotalActualPaid: 30 });
    expect((await ok(as, 'GET', `/v1/wallets/${walletId}`)).Balance).toBe(100);
    // 1 April's 30.00: 10.00 kept for the customer's money, so credit pays 30.00 − 10.00 = 20.00.
    expect(await upcomingOf(as, subscriptionId)).toMatchObject({
      Total: 30,
      PrepaidCreditApplied: 20,
      AmountDueAfterCredit: 10,
    });
    // The issue applies exactly that, and the day's run the customer's 10.00.
    await advance(as, '2026-04-01T12:00:00Z');
    expect((await invoicesOf(as, customerId)).at(-1)).toMatchObject({
      Total: 30,
      TotalNegativeAdjs: 20,
      TotalActualPaid: 10,
      Balance: 0,
    });
  });
});
