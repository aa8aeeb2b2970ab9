import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import { customerWithLogin, signedIn, t, usePortalService } from './fixtures.ts';

usePortalService();

describe('signed-in pages', () => {
  it("shows the customer's balance, overdue total and invoices, and only its own", async () => {
    const login = await customerWithLogin();
    const mine = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: '1234.5',
      description: 'Consulting, March',
      invoiceDate: '2026-03-01',
      dueDate: '2026-03-10',
    });
    await issuedInvoice(t, { customerId: login.customerId, amount: 20, invoiceDate: '2026-03-15' });
    const someoneElse = await customerWithLogin();
    const theirs = await issuedInvoice(t, { customerId: someoneElse.customerId, amount: 99 });

    const client = await signedIn(login);
    const dashboard = await client.get(client.base);
    expect(dashboard.status).toBe(200);
    // Balance: 1 234.50 + 20.00; overdue: the first, due on 10 March, before today (15 March).
    expect(dashboard.text).toContain('USD 1,254.50');
    expect(dashboard.text).toContain('USD 1,234.50');

    const list = await client.get(`${client.base}invoices`);
    expect(list.status).toBe(200);
    expect(list.text).toContain(`Invoice ${mine.invoiceNum}`);
    expect(list.text).toContain('Past Due');
    expect(list.text).not.toContain(`Invoice ${theirs.invoiceNum}<`);
    expect(list.text).toContain('<th scope="col" class="num">Balance due (incl. tax)</th>');

    const detail = await client.get(`${client.base}invoices/${mine.invoiceID}`);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain('Consulting, March');
    expect(detail.text).toContain('No payments or credits have been applied');

    const other = await client.get(`${client.base}invoices/${theirs.invoiceID}`);
    expect(other.status).toBe(404);
    expect((await client.get(`${client.base}invoices/${theirs.invoiceID}/pdf`)).status).toBe(404);
    expect((await client.get(`${client.base}invoices/not-a-number`)).status).toBe(404);
    expect((await client.get(`${client.base}invoices/99999999`)).status).toBe(404);
  });

  it('shows the payments applied to an invoice', async () => {
    const login = await customerWithLogin();
    const invoice = await issuedInvoice(t, { customerId: login.customerId, amount: 50 });
    await ok(t, 'POST', '/v1/payments', {
      customerID: login.customerId,
      Amount: 30,
      CurrencyCode: 'USD',
      Date: '2026-03-15',
      Method: 'eft',
      AutoApply: true,
    });
    const client = await signedIn(login);
    const detail = await client.get(`${client.base}invoices/${invoice.invoiceID}`);
    expect(detail.text).toContain('Payments and credits applied');
    expect(detail.text).toContain('USD 30.00');
    expect(detail.text).toContain('USD 20.00');
  });

  it("downloads an invoice's PDF", async () => {
    const login = await customerWithLogin();
    const invoice = await issuedInvoice(t, { customerId: login.customerId, amount: 10 });
    const client = await signedIn(login);
    const response = await fetch(`${t.url}${client.base}invoices/${invoice.invoiceID}/pdf`, {
      headers: { cookie: [...client.cookies].map(([n, v]) => `${n}=${v}`).join('; ') },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(
      Buffer.from(await response.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  });

  it('sends a signed-out visitor to the sign-in page', async () => {
    const res = await fetch(
      `${t.url}${new URL((await ok(t, 'GET', '/v1/account')).PortalURL).pathname}invoices`,
      {
        redirect: 'manual',
      },
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/\/login$/);
  });
});
