import { expect } from 'vitest';
import { collectDueInvoices } from '../../src/modules/collections/index.ts';
import { ok } from '../helpers/billing.ts';
import { systemClock } from '../../src/clock.ts';
import { aMinuteLater, accountContext } from '../helpers/context.ts';
import type { TestAccount, TestService } from '../helpers/service.ts';
import { addCard } from '../collections/cards.ts';

/**
 * A test account (UTC, its test clock) whose customer pays by card, with a USD wallet, 15 % VAT when `taxed`, and a
 * top-up of `amount` charged to the card by the collection run: its grant made. The shape docs/credits.md's "Paid
 * top-ups" and "Refunding unused credit" start from.
 */
export async function cardPaidTopUp(
  t: TestService,
  name: string,
  options: { amount: number; taxed?: boolean; card?: string },
): Promise<{
  as: TestAccount;
  customerId: number;
  walletId: number;
  invoiceId: number;
  paymentId: number;
  grantId: number;
}> {
  const as = await t.newAccount(name, { isTest: true, timeZone: 'UTC' });
  await ok(as, 'PUT', '/v1/account', { InvoiceDueDays: 0 });
  if (options.taxed) await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
  const customer = await ok(as, 'POST', '/v1/customers', {
    Name: 'Ada',
    CurrencyCode: 'USD',
    PaymentMethod: 'credit_card',
    autoSendInvoice: false,
  });
  const customerId = customer.customerID as number;
  await addCard(as, customerId, options.card ?? '4242424242424242');
  const wallet = await ok(as, 'POST', `/v1/customers/${customerId}/wallets`, { CurrencyCode: 'USD' });
  const topUp = await ok(as, 'POST', `/v1/wallets/${wallet.walletID}/top-ups`, { Amount: options.amount });
  await collectDueInvoices(await accountContext(t, as.accountId), { staleAfterMs: 0 });
  // A card whose answers are lost: the next run finishes its charge.
  if (options.card) {
    const nextRun = await accountContext(t, as.accountId, systemClock, aMinuteLater);
    await collectDueInvoices(nextRun, { staleAfterMs: 0 });
  }
  const [payment] = await ok(as, 'GET', `/v1/customers/${customerId}/payments`);
  expect(payment.Allocations).toEqual([expect.objectContaining({ invoiceID: topUp.invoiceID })]);
  const [grant] = await ok(as, 'GET', `/v1/wallets/${wallet.walletID}/grants`);
  expect(grant).toMatchObject({ Kind: 'paid', TopUpInvoiceID: topUp.invoiceID, Remaining: options.amount });
  return {
    as,
    customerId,
    walletId: wallet.walletID,
    invoiceId: topUp.invoiceID,
    paymentId: payment.paymentID,
    grantId: grant.creditGrantID,
  };
}
