import { describe, expect, it } from 'vitest';
import { editPayment, ok } from '../helpers/billing.ts';
import { eventsOf } from '../coupons/coupons.fixtures.ts';
import { advance } from '../subscriptions/meteredBilling.fixtures.ts';
import {
  expectJournalBalances,
  grant,
  grantOf,
  invoice,
  invoiceOf,
  journalOf,
  useCreditsService,
  walletOf,
} from './credits.fixtures.ts';

// docs/credits.md, "Expiry", "Consumption order" (giving back) and "Crediting a top-up": the daily run writes off
// expired grants and says so; credit a credit note gives back to a grant expired meanwhile is expired at once; and
// credit a refund took comes back, and says so, when its credit note is deleted; credit given back to a voided grant
// is voided at once. Test accounts start on 1 March 2026.
useCreditsService();

describe('expired credit', () => {
  it('is written off by the daily run, which emits credit_grant.expired once', async () => {
    const { as, customerId, walletId } = await walletOf('Expired event shop', { isTest: true });
    const early = await grant(as, walletId, { Amount: 40, ExpiresAt: '2026-03-15' });
    await invoice(as, customerId, 25);
    await advance(as, '2026-03-14T12:00:00Z');
    expect(await eventsOf(as, 'credit_grant.expired')).toEqual([]);
    // The run of 15 March writes off the 40.00 − 25.00 = 15.00 left.
    await advance(as, '2026-03-16T12:00:00Z');
    const expired = await eventsOf(as, 'credit_grant.expired');
    expect(expired).toHaveLength(1);
    expect(expired[0]!.data.object).toMatchObject({
      creditGrantID: early.creditGrantID,
      Status: 'expired',
      Remaining: 0,
      Consumed: 25,
      Expired: 15,
    });
    await advance(as, '2026-03-20T12:00:00Z');
    expect(await eventsOf(as, 'credit_grant.expired')).toHaveLength(1);
    await expectJournalBalances(as, walletId, { writtenOff: true });
  });

  it('given back by a credit note after its grant expired is released and expired at once', async () => {
    const { as, customerId, walletId } = await walletOf('Expired credit note shop', { isTest: true });
    const g = await grant(as, walletId, { Amount: 30, ExpiresAt: '2026-03-10' });
    const paid = await invoice(as, customerId, 20);
    // 10 March's run writes off the 30.00 − 20.00 = 10.00 left.
    await advance(as, '2026-03-12T10:00:00Z');
    expect(await grantOf(as, g.creditGrantID)).toMatchObject({ Status: 'expired', Expired: 10 });
    await ok(as, 'POST', '/v1/credits', {
      customerID: customerId,
      Amount: 8,
      CurrencyCode: 'USD',
      Date: '2026-03-12',
      allocations: [{ invoiceID: paid.invoiceID, amountApplied: 8 }],
    });
    // The credit note takes the place of 8.00 of the credit: given back to the grant, expired since 10 March, so
    // expired at once. The invoice stays paid, 12.00 by credit and 8.00 by the credit note; the wallet holds 0.
    expect(await journalOf(as, walletId)).toEqual([
      [g.creditGrantID, 'grant', 30, null],
      [g.creditGrantID, 'consume', 20, paid.invoiceID],
      [g.creditGrantID, 'expire', 10, null],
      [g.creditGrantID, 'release', 8, paid.invoiceID],
      [g.creditGrantID, 'expire', 8, paid.invoiceID],
    ]);
    expect(await grantOf(as, g.creditGrantID)).toMatchObject({
      Status: 'expired',
      Remaining: 0,
      Consumed: 12,
      Expired: 18,
      Invoices: [{ invoiceID: paid.invoiceID, Amount: 12 }],
    });
    expect(await invoiceOf(as, paid.invoiceID)).toMatchObject({ TotalNegativeAdjs: 20, Balance: 0 });
    expect((await ok(as, 'GET', `/v1/wallets/${walletId}`)).Balance).toBe(0);
    expect((await ok(as, 'GET', `/v1/customers/${customerId}`)).Balance).toBe(0);
    await expectJournalBalances(as, walletId, { writtenOff: true });
  });
});

describe('voided credit', () => {
  it('given back by a cancelled invoice is released and voided at once', async () => {
    const { as, customerId, walletId } = await walletOf('Voided give-back shop');
    const g = await grant(as, walletId, { Amount: 30 });
    const paid = await invoice(as, customerId, 20);
    await ok(as, 'POST', `/v1/credit-grants/${g.creditGrantID}/void`, undefined, 200);
    await ok(as, 'DELETE', `/v1/invoices/${paid.invoiceID}`);
    // docs/spec-decisions.md, "Cancelling or crediting an invoice gives credit back": the 10.00 left was voided;
    // the 20.00 the cancelled invoice gives back goes to the voided grant and is voided with it: 30.00 voided in
    // all, nothing to spend.
    expect(await journalOf(as, walletId)).toEqual([
      [g.creditGrantID, 'grant', 30, null],
      [g.creditGrantID, 'consume', 20, paid.invoiceID],
      [g.creditGrantID, 'void', 10, null],
      [g.creditGrantID, 'release', 20, paid.invoiceID],
      [g.creditGrantID, 'void', 20, paid.invoiceID],
    ]);
    expect(await grantOf(as, g.creditGrantID)).toMatchObject({
      Status: 'voided',
      Remaining: 0,
      Consumed: 0,
      Voided: 30,
      Invoices: [],
    });
    expect((await ok(as, 'GET', `/v1/wallets/${walletId}`)).Balance).toBe(0);
    expect((await ok(as, 'GET', `/v1/customers/${customerId}`)).Balance).toBe(0);
    await expectJournalBalances(as, walletId);
  });
});

describe('a top-up credit note deleted', () => {
  it('gives the refunded credit back and emits credit_grant.refund_undone', async () => {
    const { as, customerId, walletId } = await walletOf('Refund undone shop');
    const topUp = await ok(as, 'POST', `/v1/wallets/${walletId}/top-ups`, { Amount: 50 });
    // Paid by hand, then the money moved off the invoice (docs/credits.md, "A reversed top-up"): the grant stays.
    const payment = await ok(as, 'POST', '/v1/payments', {
      customerID: customerId,
      Amount: 50,
      CurrencyCode: 'USD',
      Date: '2026-03-01',
      Method: 'eft',
      allocations: [{ invoiceID: topUp.invoiceID, amountApplied: 50 }],
    });
    const [paidGrant] = await ok(as, 'GET', `/v1/wallets/${walletId}/grants`);
    await editPayment(as, payment.paymentID, { Allocations: [] });
    const credited = await ok(as, 'POST', '/v1/credits', {
      customerID: customerId,
      Amount: 20,
      CurrencyCode: 'USD',
      Date: '2026-03-01',
      allocations: [{ invoiceID: topUp.invoiceID, amountApplied: 20 }],
    });
    // No tax: 20.00 of the invoice stands for 20.00 of credit, refunded out of the 50.00.
    expect(await grantOf(as, paidGrant.creditGrantID)).toMatchObject({ Remaining: 30, Refunded: 20 });
    expect(await eventsOf(as, 'credit_grant.refund_undone')).toEqual([]);
    await ok(as, 'DELETE', `/v1/credits/${credited.creditNoteID}`, undefined, 204);
    const undone = await eventsOf(as, 'credit_grant.refund_undone');
    expect(undone).toHaveLength(1);
    expect(undone[0]!.data.object).toMatchObject({
      creditGrantID: paidGrant.creditGrantID,
      Kind: 'paid',
      Remaining: 50,
      Refunded: 0,
    });
    expect((await eventsOf(as, 'credit_grant.refunded')).map((e) => e.data.object.Refunded)).toEqual([20]);
    await expectJournalBalances(as, walletId);
  });
});
