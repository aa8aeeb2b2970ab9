import { describe, expect, it } from 'vitest';
import { collectDueInvoices } from '../../src/modules/collections/index.ts';
import { ok } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import { addCard } from '../collections/cards.ts';
import { creditNote, payment } from '../statements/fixtures.ts';
import { PortalClient, customerWithLogin, portalPath, signedIn, t, usePortalService } from './fixtures.ts';

// The portal's payments page (docs/portal.md, "Statement and payments"): the customer's payments and credit notes
// with what each paid, against the API's own GET /v1/customers/{customerID}/payments and .../credits.

usePortalService();

/** An amount as the portal writes it: the currency, thousands grouped, a true minus sign. */
function usd(amount: number): string {
  const [whole, cents] = Math.abs(amount).toFixed(2).split('.');
  return `${amount < 0 ? '−' : ''}USD ${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents}`;
}

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();

/** The payments table's rows: each row's cells as text, and the links of its "Applied to" cell. */
function paymentRows(html: string) {
  const body = html.slice(html.indexOf('<tbody>'), html.indexOf('</tbody>'));
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) => {
    const cells = [...row[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) => cell[1]!);
    return {
      cells: cells.map(text),
      links: [...(cells[4] ?? '').matchAll(/<a href="([^"]+)">([^<]+)<\/a>: ([^<]+)</g)].map((m) => [
        m[1],
        m[2],
        m[3],
      ]),
    };
  });
}

describe('the payments page', () => {
  it("lists payments and credit notes newest first with their allocations, as the API's, and only the customer's own", async () => {
    const login = await customerWithLogin();
    const a = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: 1000,
      invoiceDate: '2026-03-01',
    });
    const b = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: '50.5',
      invoiceDate: '2026-03-02',
    });
    // 1,020.00 on 3 Mar: 1,000.00 to A, 20.00 to B. 30.55 on 10 Mar: 10.00 to B, 20.55 left. A credit note of
    // 15.00 on 12 Mar: 15.00 to B (which then owes 50.50 − 20.00 − 10.00 − 15.00 = 5.50).
    const first = await payment(t, login.customerId, 1020, '2026-03-03', [
      { invoiceID: a.invoiceID, amountApplied: 1000 },
      { invoiceID: b.invoiceID, amountApplied: 20 },
    ]);
    const second = await payment(t, login.customerId, 30.55, '2026-03-10', [
      { invoiceID: b.invoiceID, amountApplied: 10 },
    ]);
    const credit = await creditNote(t, login.customerId, 15, '2026-03-12', [
      { invoiceID: b.invoiceID, amountApplied: 15 },
    ]);
    const someoneElse = await customerWithLogin();
    const theirInvoice = await issuedInvoice(t, { customerId: someoneElse.customerId, amount: 99 });
    await payment(t, someoneElse.customerId, 98.76, '2026-03-11', [
      { invoiceID: theirInvoice.invoiceID, amountApplied: 98.76 },
    ]);

    const client = await signedIn(login);
    const page = await client.get(`${client.base}payments`);
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain('aria-current="page">Payments<');
    const rows = paymentRows(page.text);

    const apiPayments = await ok(t, 'GET', `/v1/customers/${login.customerId}/payments`);
    const apiCredits = await ok(t, 'GET', `/v1/customers/${login.customerId}/credits`);
    const byId = (list: any[], key: string, id: number) => list.find((x) => x[key] === id);
    const p1 = byId(apiPayments, 'paymentID', first.paymentID);
    const p2 = byId(apiPayments, 'paymentID', second.paymentID);
    const cn = byId(apiCredits, 'creditNoteID', credit.creditNoteID);
    const link = (invoice: any) => `${client.base}invoices/${invoice.invoiceID}`;
    const applied = (entry: any, key: string) =>
      entry[key].map((x: any) => [
        link(x.invoiceID === a.invoiceID ? a : b),
        `Invoice ${x.invoiceID === a.invoiceID ? a.invoiceNum : b.invoiceNum}`,
        usd(x.amountApplied),
      ]);

    // Newest first: the credit note (12 Mar), the second payment (10 Mar), the first (3 Mar).
    expect(rows.map((r) => [r.cells[0], r.cells[2], r.cells[3], r.cells[5]])).toEqual([
      ['2026-03-12', usd(cn.Amount), 'Allocated', usd(0)],
      ['2026-03-10', usd(p2.Amount), 'Partial', usd(p2.Amount - 10)],
      ['2026-03-03', usd(p1.Amount), 'Allocated', usd(0)],
    ]);
    expect(rows[1]!.cells[5]).toBe('USD 20.55');
    expect(rows[2]!.cells[2]).toBe('USD 1,020.00');
    expect(rows[0]!.cells[1]).toContain(`Credit note ${cn.CreditNumber}`);
    expect(rows[1]!.cells[1]).toContain(`Reference ${p2.Ref}`);
    expect(rows[1]!.cells[1]).toContain('Bank transfer (EFT)');
    expect(rows[2]!.links).toEqual(applied(p1, 'Allocations'));
    expect(rows[2]!.links.map((l) => l[2])).toEqual(['USD 1,000.00', 'USD 20.00']);
    expect(rows[1]!.links).toEqual(applied(p2, 'Allocations'));
    expect(rows[0]!.links).toEqual(applied(cn, 'Allocations'));

    // The links lead to the invoice pages, which show the same money applied.
    const invoiceB = await client.get(`${client.base}invoices/${b.invoiceID}`);
    expect(invoiceB.status).toBe(200);
    expect(invoiceB.text).toContain('USD 5.50');

    expect(page.text).not.toContain('USD 98.76');
    expect(page.text).not.toContain(`invoices/${theirInvoice.invoiceID}"`);
  });

  it('pages 25 at a time, newest first', async () => {
    const login = await customerWithLogin();
    // 27 payments, one a day from 1 Feb: 1.01, 1.02, ... 1.27.
    for (let day = 1; day <= 27; day++) {
      const date = new Date(Date.UTC(2026, 1, day)).toISOString().slice(0, 10);
      await payment(t, login.customerId, Number(`1.${String(day).padStart(2, '0')}`), date, []);
    }
    const client = await signedIn(login);
    const first = await client.get(`${client.base}payments`);
    const rows = paymentRows(first.text);
    expect(rows).toHaveLength(25);
    expect([rows[0]!.cells[0], rows[0]!.cells[2]]).toEqual(['2026-02-27', 'USD 1.27']);
    expect([rows[24]!.cells[0], rows[24]!.cells[2]]).toEqual(['2026-02-03', 'USD 1.03']);
    expect(first.text).toContain(`<a href="${client.base}payments?page=2">Older payments</a>`);
    expect(first.text).not.toContain('Newer payments');
    const second = await client.get(`${client.base}payments?page=2`);
    expect(paymentRows(second.text).map((r) => r.cells[2])).toEqual(['USD 1.02', 'USD 1.01']);
    expect(second.text).toContain(`<a href="${client.base}payments">Newer payments</a>`);
    expect(second.text).not.toContain('Older payments');
  });

  it('says so when there is nothing yet', async () => {
    const client = await signedIn(await customerWithLogin());
    const page = await client.get(`${client.base}payments`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('No payments or credit notes have been recorded for you yet.');
  });

  it('shows a refund as such, and a disputed payment as failed and not counted', async () => {
    const account = await t.newAccount('Card Account', { isTest: true, timeZone: 'UTC' });
    await ok(account, 'PUT', '/v1/account', { PortalSlug: `cards-${process.pid}` });
    const customerId = await cardCustomerWithLogin(account);
    const refunded = await collected(account, customerId, 100);
    const disputed = await collected(account, customerId, 60);
    // 40.00 of the first payment paid back: taken from its invoice, which a credit note of 40.00 keeps paid.
    await ok(account, 'POST', `/v1/payments/${refunded.paymentId}/refund`, { Amount: 40 }, 200);
    await ok(
      account,
      'POST',
      '/v1/test/simulate',
      { paymentID: disputed.paymentId, scenario: 'dispute' },
      200,
    );

    const client = new PortalClient(await portalPath(account), t.url);
    expect((await client.signIn(`card-${process.pid}`, 'secret123')).status).toBe(303);
    const page = await client.get(`${client.base}payments`);
    expect(page.status, page.text).toBe(200);
    const rows = paymentRows(page.text);
    const api = await ok(account, 'GET', `/v1/customers/${customerId}/payments`);
    const apiRefunded = api.find((p: any) => p.paymentID === refunded.paymentId);
    const apiDisputed = api.find((p: any) => p.paymentID === disputed.paymentId);
    expect(apiDisputed.Status).toBe('Failed');
    const [credit] = await ok(account, 'GET', `/v1/customers/${customerId}/credits`);

    const row = (amount: string) => rows.find((r) => r.cells[2] === amount && r.cells[1]!.includes('Card'))!;
    const refundRow = row(usd(apiRefunded.Amount));
    // The payment of 100.00: 60.00 still pays its invoice, 40.00 was paid back.
    expect(refundRow.links).toEqual([
      [`${client.base}invoices/${refunded.invoiceId}`, `Invoice ${refunded.invoiceNum}`, 'USD 60.00'],
    ]);
    expect(refundRow.cells[4]).toContain('Refunded to you: USD 40.00');
    expect(refundRow.cells[5]).toBe('USD 0.00');
    const disputedRow = row(usd(apiDisputed.Amount));
    expect(disputedRow.cells[3]).toBe('Failed disputed; not counted');
    expect(disputedRow.links).toEqual([]);
    expect(disputedRow.cells[5]).toBe('None');
    const creditRow = rows.find((r) => r.cells[1]!.includes(`Credit note ${credit.CreditNumber}`))!;
    expect(creditRow.links).toEqual([
      [`${client.base}invoices/${refunded.invoiceId}`, `Invoice ${refunded.invoiceNum}`, usd(credit.Amount)],
    ]);
    expect(credit.Amount).toBe(40);
  });

  it('sends a signed-out visitor to the sign-in page', async () => {
    const res = await fetch(`${t.url}${await portalPath()}payments`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/\/login$/);
  });
});

/** A customer of the test account with a card, and a contact signing in as card-{pid} / secret123. */
async function cardCustomerWithLogin(account: TestAccount): Promise<number> {
  const customer = await ok(account, 'POST', '/v1/customers', { Name: 'Card', LastName: 'Holder' });
  await ok(account, 'POST', '/v1/customercontacts', {
    customerID: customer.customerID,
    Name: 'Card',
    LastName: 'Holder',
    Email: 'card.holder@example.com',
    Username: `card-${process.pid}`,
    Password: 'secret123',
  });
  return customer.customerID;
}

/** A card invoice of `amount`, collected by the test clock's next run: its payment and invoice. */
async function collected(account: TestAccount, customerId: number, amount: number) {
  const [gateway] = await ok(account, 'GET', '/v1/gateways');
  const card = await addCard(account, customerId, '4242424242424242');
  const clockDate = ((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10);
  const tomorrow = new Date(Date.parse(`${clockDate}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const invoice = await issuedInvoice(account, {
    customerId,
    dueDate: tomorrow,
    collect: { method: 'credit_card', gatewayId: gateway.gatewayID, paymentMethodId: card },
    amount,
  });
  await ok(account, 'POST', '/v1/test-clock/advance', { To: `${tomorrow}T12:00:00Z` }, 200);
  // A charge whose answer was lost is finished by the next run.
  await collectDueInvoices(await accountContext(t, account.accountId), { staleAfterMs: 0 });
  const payments = await ok(account, 'GET', `/v1/customers/${customerId}/payments`);
  const paid = payments.find((p: any) =>
    p.Allocations.some((x: any) => x.invoiceID === invoice.invoiceID && x.amountApplied === amount),
  );
  expect(paid, JSON.stringify(payments)).toBeDefined();
  return {
    paymentId: paid.paymentID as number,
    invoiceId: invoice.invoiceID,
    invoiceNum: invoice.invoiceNum,
  };
}
