import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { clock, grant, grantOf, invoiceOf, useCreditsService, walletOf } from './credits.fixtures.ts';

// docs/credits.md, "Paid top-ups" and "Tax": a top-up is an invoice of one line "Prepaid credit" with the customer's
// taxes, never paid with credit; its paid grant comes into being once, when the invoice is paid in full.
useCreditsService();

describe('paid top-ups', () => {
  it('make a taxed invoice that credit never pays, and a paid grant once it is paid in full', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const { as, customerId, walletId } = await walletOf('Top-up shop');
    const tax = await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
    expect(tax.taxSettingID).toBeGreaterThan(0);
    await grant(as, walletId, { Amount: 500 });
    const topUp = await ok(as, 'POST', `/v1/wallets/${walletId}/top-ups`, { Amount: 100 });
    expect(topUp).toMatchObject({ walletID: walletId, Amount: 100 });
    // 100.00 of credit sold, 15 % VAT on it: 115.00, none of it paid by the 500.00 granted.
    const sold = await invoiceOf(as, topUp.invoiceID);
    expect(sold).toMatchObject({ Total: 115, Balance: 115, TotalNegativeAdjs: 0 });
    expect(sold.Charges.map((c: any) => c.Descrip)).toEqual(['Prepaid credit']);
    expect((await ok(as, 'GET', `/v1/wallets/${walletId}/grants`)).map((g: any) => g.Kind)).toEqual([
      'granted',
    ]);

    const pay = (amount: number) =>
      ok(as, 'POST', '/v1/payments', {
        customerID: customerId,
        Amount: amount,
        CurrencyCode: 'USD',
        Date: '2026-03-02',
        Method: 'eft',
        allocations: [{ invoiceID: topUp.invoiceID, amountApplied: amount }],
      });
    await pay(15);
    expect((await ok(as, 'GET', `/v1/wallets/${walletId}/grants`)).map((g: any) => g.Kind)).toEqual([
      'granted',
    ]);
    await pay(100);
    const grants = await ok(as, 'GET', `/v1/wallets/${walletId}/grants`);
    expect(grants.map((g: any) => [g.Kind, g.Amount, g.TopUpInvoiceID])).toEqual([
      ['granted', 500, null],
      ['paid', 100, topUp.invoiceID],
    ]);
    expect(await ok(as, 'GET', `/v1/wallets/${walletId}`)).toMatchObject({
      Balance: 600,
      PaidBalance: 100,
      GrantedBalance: 500,
    });
    const paidGrant = await grantOf(as, grants[1].creditGrantID);
    expect(paidGrant.Remaining).toBe(100);
  });
});
