import { expect } from 'vitest';
import { createCustomer, movableClock, ok } from '../helpers/billing.ts';
import type { TestAccount, TestService } from '../helpers/service.ts';
import { addCard } from '../collections/cards.ts';
import { useTestService } from '../helpers/testService.ts';

/**
 * The prepaid credit tests' shared setup (docs/credits.md): one service per file, on a clock the tests move, that
 * starts on 1 March 2026. Read the bindings inside tests.
 */
export const clock = movableClock('2026-03-01T10:00:00.000Z');
export let t: TestService;

/** `env`: the service's settings beyond the test defaults (test/helpers/service.ts). */
export function useCreditsService(env: Record<string, string> = {}) {
  t = useTestService({ clock, env });
}

/** A new account (UTC) with a customer and its USD wallet. */
export async function walletOf(name: string, options: { isTest?: boolean } = {}) {
  const as = await t.newAccount(name, options);
  await ok(as, 'PUT', '/v1/account', { TimeZone: 'UTC' });
  const customerId = await createCustomer(as, { Name: 'Ada', autoSendInvoice: false });
  const wallet = await ok(as, 'POST', `/v1/customers/${customerId}/wallets`, { CurrencyCode: 'USD' });
  return { as, customerId, walletId: wallet.walletID as number };
}

export async function grant(as: TestAccount, walletId: number, body: Record<string, unknown>) {
  return ok(as, 'POST', `/v1/wallets/${walletId}/grants`, body);
}

export async function grantOf(as: TestAccount, grantId: number) {
  return ok(as, 'GET', `/v1/credit-grants/${grantId}`);
}

/** An issued invoice of one line. */
export async function invoice(as: TestAccount, customerId: number, amount: number | string) {
  return ok(as, 'POST', '/v1/invoices', {
    customerID: customerId,
    Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: amount }],
  });
}

export async function invoiceOf(as: TestAccount, invoiceId: number) {
  return ok(as, 'GET', `/v1/invoices/${invoiceId}`);
}

/** Every entry of the wallet's journal, oldest first, as [grant, kind, amount, invoice]. */
export async function journalOf(as: TestAccount, walletId: number) {
  const entries = await ok(as, 'GET', `/v1/wallets/${walletId}/entries?page_size=200`);
  return (entries as any[]).map((e) => [e.creditGrantID, e.Kind, e.Amount, e.invoiceID]);
}

/**
 * The journal balances (docs/credits.md, "Wallets"): for every grant, Remaining = Amount − Σconsume + Σrelease −
 * Σexpire − Σvoid − (Σrefund − Σrefund_undone), read from its entries in cents; its Consumed is what it pays on invoices now, which the invoices
 * it names add up to; and the wallet's Balance is the sum of its entries. `writtenOff`: every grant past its expiry
 * has been written off by the daily run (docs/credits.md, "Expiry"), so an expired grant's journal leaves 0 too.
 */
export async function expectJournalBalances(
  as: TestAccount,
  walletId: number,
  options: { writtenOff?: boolean } = {},
) {
  const grants = (await ok(as, 'GET', `/v1/wallets/${walletId}/grants?page_size=200`)) as any[];
  const entries = (await ok(as, 'GET', `/v1/wallets/${walletId}/entries?page_size=200`)) as any[];
  const cents = (n: number) => Math.round(n * 100);
  const unexpired = new Map<number, number>();
  for (const listed of grants) {
    const of = (kind: string) =>
      entries
        .filter((e) => e.creditGrantID === listed.creditGrantID && e.Kind === kind)
        .reduce((sum, e) => sum + cents(e.Amount), 0);
    const detail = await grantOf(as, listed.creditGrantID);
    const refunded = of('refund') - of('refund_undone');
    const remaining = of('grant') - of('consume') + of('release') - of('expire') - of('void') - refunded;
    expect(cents(detail.Refunded)).toBe(refunded);
    expect(of('grant'), `grant ${listed.creditGrantID}`).toBe(cents(detail.Amount));
    expect(cents(detail.Expired)).toBe(of('expire'));
    expect(cents(detail.Voided)).toBe(of('void'));
    if (detail.Status !== 'expired' || options.writtenOff) {
      // An expired grant reads 0 left; once the daily run has written it off, its journal says 0 too.
      expect(cents(detail.Remaining), `grant ${listed.creditGrantID}: Remaining`).toBe(remaining);
      unexpired.set(listed.creditGrantID, remaining);
    } else expect(detail.Remaining, `grant ${listed.creditGrantID}: expired`).toBe(0);
    expect(cents(detail.Consumed)).toBe(of('consume') - of('release'));
    expect(
      (detail.Invoices as any[]).reduce((sum, paid) => sum + cents(paid.Amount), 0),
      `grant ${listed.creditGrantID}: its invoices`,
    ).toBe(cents(detail.Consumed));
    expect(remaining).toBeGreaterThanOrEqual(0);
  }
  // The wallet's Balance is what its grants have left, as the journal says, less what a grant past its expiry still
  // holds until the daily run writes it off: not a figure kept apart from the entries.
  const wallet = await ok(as, 'GET', `/v1/wallets/${walletId}`);
  expect(cents(wallet.Balance), 'the wallet balance').toBe(
    [...unexpired.values()].reduce((sum, left) => sum + left, 0),
  );
}

/**
 * A VAT vendor's test account (15 % VAT, UTC, a VAT number, its legal name `name` (Pty) Ltd) whose customer pays by
 * card, with a USD wallet; `prepaidCreditVat` chooses how its prepaid credit is taxed (docs/tax.md, "Prepaid credit").
 */
export async function vatVendor(name: string, prepaidCreditVat?: 'when_sold' | 'when_used') {
  const as = await t.newAccount(name, { isTest: true, timeZone: 'UTC' });
  await ok(as, 'PUT', '/v1/account', {
    InvoiceDueDays: 0,
    TaxNumber: '4123456789',
    LegalName: `${name} (Pty) Ltd`,
    ...(prepaidCreditVat ? { PrepaidCreditVat: prepaidCreditVat } : {}),
  });
  // The top-ups' VAT comes from the account's tax (docs/credits.md, "Paid top-ups": "with the customer's taxes").
  await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
  const customer = await ok(as, 'POST', '/v1/customers', {
    Name: 'Ada',
    CurrencyCode: 'USD',
    PaymentMethod: 'credit_card',
    autoSendInvoice: false,
  });
  const customerId = customer.customerID as number;
  await addCard(as, customerId, '4242424242424242');
  const wallet = await ok(as, 'POST', `/v1/customers/${customerId}/wallets`, { CurrencyCode: 'USD' });
  return { as, customerId, walletId: wallet.walletID as number };
}
