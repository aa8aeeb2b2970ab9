import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import {
  clock,
  expectJournalBalances,
  grant,
  grantOf,
  invoice,
  invoiceOf,
  journalOf,
  useCreditsService,
  walletOf,
} from './credits.fixtures.ts';

// docs/credits.md, "Paid top-ups" and "Tax": a top-up is an invoice of one line "Prepaid credit" with the customer's
// taxes, never paid with credit; its paid grant comes into being once, when the invoice is paid in full.
useCreditsService();

describe('paid top-ups', () => {
  it('make a tax invoice of what the credit costs, that credit never pays, and a paid grant once it is paid', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const { as, customerId, walletId } = await walletOf('Top-up shop');
    const tax = await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
    expect(tax.taxSettingID).toBeGreaterThan(0);
    await grant(as, walletId, { Amount: 500 });
    const topUp = await ok(as, 'POST', `/v1/wallets/${walletId}/top-ups`, { Amount: 100 });
    expect(topUp).toMatchObject({ walletID: walletId, Amount: 100 });
    // 100.00 of credit sold with VAT (docs/tax.md, "Prepaid credit"): the customer pays what it gets, its 15 % VAT
    // inside: 100.00 / 1.15 = 86.956… → 86.96 ex, 13.04 VAT. None of it paid by the 500.00 granted.
    const sold = await invoiceOf(as, topUp.invoiceID);
    expect(sold).toMatchObject({ Total: 100, Balance: 100, TotalNegativeAdjs: 0 });
    expect(sold.Charges.map((c: any) => [c.Descrip, c.AmountEx, c.AmountInc])).toEqual([
      ['Prepaid credit', 86.96, 100],
    ]);
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
    await pay(85);
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

  it('a deleted payment of a top-up voids what is left of its credit; what was consumed stays', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const { as, customerId, walletId } = await walletOf('Reversed top-up shop');
    const topUp = await ok(as, 'POST', `/v1/wallets/${walletId}/top-ups`, { Amount: 100 });
    const payment = await ok(as, 'POST', '/v1/payments', {
      customerID: customerId,
      Amount: 100,
      CurrencyCode: 'USD',
      Date: '2026-03-01',
      Method: 'eft',
      allocations: [{ invoiceID: topUp.invoiceID, amountApplied: 100 }],
    });
    const [paid] = await ok(as, 'GET', `/v1/wallets/${walletId}/grants`);
    // An invoice of 30.00 is paid by the credit: 100.00 − 30.00 = 70.00 left.
    const work = await invoice(as, customerId, 30);
    expect((await invoiceOf(as, work.invoiceID)).Balance).toBe(0);

    await ok(as, 'DELETE', `/v1/payments/${payment.paymentID}`, undefined, 204);
    // The 70.00 left is voided; the 30.00 consumed stays on the invoice it paid; the top-up owes 100.00 again, so
    // the customer owes 100.00: 30.00 of credit used and never paid for, and 70.00 voided that a payment buys back.
    expect(await grantOf(as, paid.creditGrantID)).toMatchObject({
      Status: 'voided',
      Remaining: 0,
      Consumed: 30,
      Voided: 70,
    });
    expect((await journalOf(as, walletId)).slice(-1)).toEqual([[paid.creditGrantID, 'void', 70, null]]);
    expect((await invoiceOf(as, work.invoiceID)).Balance).toBe(0);
    expect((await invoiceOf(as, topUp.invoiceID)).Balance).toBe(100);
    expect(await ok(as, 'GET', `/v1/wallets/${walletId}`)).toMatchObject({ Balance: 0, PaidBalance: 0 });
    expect((await ok(as, 'GET', `/v1/customers/${customerId}`)).Balance).toBe(100);
    await expectJournalBalances(as, walletId);
  });

  it('a payment of another invoice deleted leaves the top-up credit alone', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const { as, customerId, walletId } = await walletOf('Other payment shop');
    const topUp = await ok(as, 'POST', `/v1/wallets/${walletId}/top-ups`, { Amount: 50 });
    const pay = (invoiceId: number, amount: number) =>
      ok(as, 'POST', '/v1/payments', {
        customerID: customerId,
        Amount: amount,
        CurrencyCode: 'USD',
        Date: '2026-03-01',
        Method: 'eft',
        allocations: [{ invoiceID: invoiceId, amountApplied: amount }],
      });
    await pay(topUp.invoiceID, 50);
    const sale = await ok(as, 'POST', '/v1/invoices', {
      customerID: customerId,
      Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: 80 }],
    });
    // 80.00: 50.00 from the credit, 30.00 paid by hand; that payment deleted leaves the credit consumed as it was.
    const other = await pay(sale.invoiceID, 30);
    await ok(as, 'DELETE', `/v1/payments/${other.paymentID}`, undefined, 204);
    const [paid] = await ok(as, 'GET', `/v1/wallets/${walletId}/grants`);
    expect(paid).toMatchObject({ Status: 'used', Consumed: 50, Voided: 0 });
    expect((await invoiceOf(as, sale.invoiceID)).Balance).toBe(30);
  });
});
