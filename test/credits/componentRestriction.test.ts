import { describe, expect, it } from 'vitest';
import { createComponent, createPlan, invoicesOf, ok, subscribe } from '../helpers/billing.ts';
import { advance } from '../subscriptions/meteredBilling.fixtures.ts';
import { expectJournalBalances, grant, grantOf, useCreditsService, walletOf } from './credits.fixtures.ts';

// docs/credits.md, "Grants" (AppliesTo.ComponentIDs): a grant restricted to components pays only the usage lines of
// those components, recorded (PUT .../components/recordusage) or read from events; the plan's line is not its.
useCreditsService();

describe('a grant restricted to a component', () => {
  it('pays only the recorded usage of that component on the bill run’s invoice', async () => {
    const { as, customerId, walletId } = await walletOf('Component shop', { isTest: true });
    const sms = await createComponent(as, {
      name: 'SMS bundle',
      currency: { ComponentBracketPrices: [{ Price: 0.5, QtyFrom: 1, QtyTill: null }] },
    });
    const minutes = await createComponent(as, { name: 'Minutes', unitName: 'min' });
    const plan = await createPlan(as, { chargePrice: 30 });
    const sub = await subscribe(as, customerId, plan, {
      componentUsage: [{ componentID: sms.componentID }, { componentID: minutes.componentID }],
    });
    const path = `/v1/subscriptions/${sub.subscriptionID}`;
    await ok(as, 'PUT', `${path}/components/recordusage`, [
      { componentID: sms.componentID, NumUnits: 7 },
      { componentID: minutes.componentID, NumUnits: 4 },
    ]);
    const forSms = await grant(as, walletId, {
      Amount: 100,
      AppliesTo: { ComponentIDs: [sms.componentID] },
    });
    expect(forSms.AppliesTo).toEqual({ MetricCodes: null, ComponentIDs: [sms.componentID] });

    // 1 April: April's plan 30.00, and March's 7 sms at 0.50 = 3.50 and 4 minutes at 1.00 = 4.00: 37.50. The grant
    // pays the sms line's 3.50 and nothing else.
    const preview = await ok(as, 'GET', `${path}/upcoming-invoice`);
    expect(preview).toMatchObject({ Total: 37.5, PrepaidCreditApplied: 3.5, AmountDueAfterCredit: 34 });
    await advance(as, '2026-04-01T12:00:00Z');
    const april = (await invoicesOf(as, customerId)).at(-1);
    expect(april).toMatchObject({ Total: 37.5, TotalNegativeAdjs: 3.5, Balance: 34 });
    expect(await grantOf(as, forSms.creditGrantID)).toMatchObject({
      Remaining: 96.5,
      Consumed: 3.5,
      Invoices: [{ invoiceID: april.invoiceID, Amount: 3.5 }],
    });
    await expectJournalBalances(as, walletId);
  });

  it('refuses components of nobody, or an AppliesTo naming nothing, naming the field', async () => {
    const { as, walletId } = await walletOf('Component refusals');
    const other = await walletOf('Component owner');
    const theirs = await createComponent(other.as);
    const refused = async (AppliesTo: unknown) => {
      const res = await as.request('POST', `/v1/wallets/${walletId}/grants`, {
        body: { Amount: 5, AppliesTo },
      });
      expect(res.status, res.text).toBe(422);
      return (res.body as { fields: { field: string }[] }).fields.map((f) => f.field);
    };
    expect(await refused({ ComponentIDs: [theirs.componentID] })).toEqual(['AppliesTo.ComponentIDs']);
    expect(await refused({})).toEqual(['AppliesTo']);
    expect(await ok(as, 'GET', `/v1/wallets/${walletId}/grants`)).toEqual([]);
  });
});
