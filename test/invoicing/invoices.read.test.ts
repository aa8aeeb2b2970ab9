import { describe, expect, it } from 'vitest';
import {
  CHARGE,
  clock,
  createInvoice,
  db,
  fetchPdf,
  fieldsOf,
  newCustomer,
  other,
  read,
  setAccount,
  t,
  useInvoiceService,
} from './invoices.fixtures.ts';

useInvoiceService();

describe('GET /v1/invoices', () => {
  it('lists in creation order, paged, and filters on InvoiceDate with inclusive bounds', async () => {
    const account = await t.newAccount('Listing');
    const { customerID } = await newCustomer(account);
    const ids = [];
    for (const InvoiceDate of ['2026-01-31', '2026-02-01', '2026-02-15', '2026-02-28', '2026-03-01']) {
      ids.push((await createInvoice({ customerID, InvoiceDate }, account)).invoiceID);
    }
    const all = await account.request('GET', '/v1/invoices');
    expect(all.status).toBe(200);
    expect(all.body.map((i: any) => i.invoiceID)).toEqual(ids);
    const page = await account.request('GET', '/v1/invoices?page=2&page_size=2');
    expect(page.body.map((i: any) => i.invoiceID)).toEqual(ids.slice(2, 4));

    const between = await account.request('GET', '/v1/invoices?startDate=2026-02-01&endDate=28%20Feb%202026');
    expect(between.status).toBe(200);
    expect(between.body.map((i: any) => i.invoiceID)).toEqual(ids.slice(1, 4));
    const from = await account.request('GET', '/v1/invoices?startDate=2026-02-28T15:00:00Z');
    expect(from.body.map((i: any) => i.invoiceID)).toEqual(ids.slice(3));
    const until = await account.request('GET', '/v1/invoices?endDate=2026-02-01');
    expect(until.body.map((i: any) => i.invoiceID)).toEqual(ids.slice(0, 2));
  });

  it.each([
    ['startDate=yesterday', 'startDate'],
    ['endDate=2026-02-30', 'endDate'],
    ['startDate=2026-03-02&endDate=2026-03-01', 'startDate'],
    ['page_size=201', 'page_size'],
    ['page=0', 'page'],
  ])('refuses %s with 422 naming %s', async (query, field) => {
    const res = await t.request('GET', `/v1/invoices?${query}`);
    expect(res.status).toBe(422);
    expect(fieldsOf(res.body)).toEqual([field]);
  });

  it('reads a page in a fixed number of statements, however many invoices, lines, taxes and customers', async () => {
    const account = await t.newAccount('Statements');
    const statements = async () => {
      t.queries.length = 0;
      const res = await account.request('GET', '/v1/invoices');
      expect(res.status).toBe(200);
      // The mail worker runs beside the request; count the statements on the invoice and customer tables.
      return t.queries.filter((sql) =>
        /"(invoice|invoices|invoice_charges|invoice_taxes|customers)"/.test(sql),
      ).length;
    };
    const first = await newCustomer(account);
    await createInvoice({ customerID: first.customerID, Taxes: [{ Name: 'VAT', Perc: 0.15 }] }, account);
    const one = await statements();
    for (let i = 0; i < 5; i++) {
      const customer = await newCustomer(account);
      await createInvoice(
        {
          customerID: customer.customerID,
          Charges: [CHARGE, CHARGE, CHARGE],
          Taxes: [
            { Name: 'VAT', Perc: 0.15 },
            { Name: 'Levy', Perc: 0.01 },
          ],
        },
        account,
      );
    }
    expect(await statements()).toBe(one);
    expect(one).toBeLessThanOrEqual(5);
  });
});

describe('GET /v1/customers/{customerID}/invoices', () => {
  it("lists the customer's invoices only, and 404 for an unknown or another account's customer", async () => {
    const a = await newCustomer();
    const b = await newCustomer();
    const mine = [(await createInvoice({ customerID: a.customerID })).invoiceID];
    await createInvoice({ customerID: b.customerID });
    mine.push((await createInvoice({ customerID: a.customerID, isDraft: true })).invoiceID);
    const res = await t.request('GET', `/v1/customers/${a.customerID}/invoices`);
    expect(res.status).toBe(200);
    expect(res.body.map((i: any) => i.invoiceID)).toEqual(mine);
    expect(
      (await t.request('GET', `/v1/customers/${a.customerID}/invoices?page=2&page_size=1`)).body,
    ).toHaveLength(1);
    const theirs = await newCustomer(other);
    expect((await t.request('GET', `/v1/customers/${theirs.customerID}/invoices`)).status).toBe(404);
    expect((await t.request('GET', '/v1/customers/987654321/invoices')).status).toBe(404);
  });
});

describe('Status', () => {
  it('is Draft, Due, Past Due after the due date in the account time zone, Paid, Pending and Cancelled', async () => {
    const account = await t.newAccount('Status');
    await setAccount(account, { time_zone: 'America/New_York' });
    const { customerID } = await newCustomer(account);
    const due = await createInvoice(
      { customerID, InvoiceDate: '2026-03-01', DueDate: '2026-03-10' },
      account,
    );
    const draft = await createInvoice(
      { customerID, isDraft: true, DueDate: '2026-03-10', InvoiceDate: '2026-03-01' },
      account,
    );
    const status = async (id: number) => (await read(id, account)).Status;
    try {
      // 2026-03-11T03:00Z is still 10 March in New York (UTC-4 after 8 March): due today, not past due.
      clock.set('2026-03-11T03:00:00.000Z');
      expect(await status(due.invoiceID)).toBe('Due');
      expect(await status(draft.invoiceID)).toBe('Draft');
      clock.set('2026-03-11T05:00:00.000Z');
      expect(await status(due.invoiceID)).toBe('Past Due');
      expect(await status(draft.invoiceID)).toBe('Draft');

      // Money allocated (the ledger maintains these columns; set here directly until payments exist). Total
      // 100.00 (2 × 50.00), all of it paid but pending: Balance 0, ActualBalance 100.00.
      await db()
        .updateTable('invoices')
        .set({ paid_pending_minor: 10000 })
        .where('id', '=', due.invoiceID)
        .execute();
      expect(await read(due.invoiceID, account)).toMatchObject({
        Status: 'Pending',
        TotalPendingPaid: 100,
        Balance: 0,
        ActualBalance: 100,
      });
      await db()
        .updateTable('invoices')
        .set({ paid_pending_minor: 0, paid_actual_minor: 10000 })
        .where('id', '=', due.invoiceID)
        .execute();
      expect(await read(due.invoiceID, account)).toMatchObject({
        Status: 'Paid',
        TotalActualPaid: 100,
        Balance: 0,
      });

      const free = await createInvoice({ customerID, Charges: [] }, account);
      expect(free).toMatchObject({ Total: 0, Status: 'Paid' });
      const cancelled = await createInvoice({ customerID }, account);
      expect((await account.request('DELETE', `/v1/invoices/${cancelled.invoiceID}`)).status).toBe(204);
      expect(await status(cancelled.invoiceID)).toBe('Cancelled');
    } finally {
      clock.set('2026-03-10T10:00:00.000Z');
    }
  });
});

describe('customers and their invoices', () => {
  it("shows as Balance the sum of the customer's issued, not cancelled invoices in its currency", async () => {
    const account = await t.newAccount('Balances');
    expect((await account.request('POST', '/v1/currencies', { body: { CurrencyCode: 'ZAR' } })).status).toBe(
      201,
    );
    const customer = await newCustomer(account);
    const id = customer.customerID;
    const balance = async () => (await account.request('GET', `/v1/customers/${id}`)).body.Balance;
    // 115.00 + 11.50 issued; a draft, a cancelled invoice and one in ZAR do not count.
    const a = await createInvoice({ customerID: id, Taxes: [{ Name: 'VAT', Perc: 0.15 }] }, account);
    await createInvoice({ customerID: id, Charges: [{ Descrip: 'x', Qty: 1, UnitCostEx: 11.5 }] }, account);
    await createInvoice({ customerID: id, isDraft: true }, account);
    const cancelled = await createInvoice({ customerID: id }, account);
    await account.request('DELETE', `/v1/invoices/${cancelled.invoiceID}`);
    await createInvoice({ customerID: id, CurrencyCode: 'ZAR' }, account);
    expect(await balance()).toBe(126.5);
    // A payment of 15.00 allocated (by the ledger, once it exists) lowers it: 126.50 - 15.00.
    await db()
      .updateTable('invoices')
      .set({ paid_actual_minor: 1500 })
      .where('id', '=', a.invoiceID)
      .execute();
    expect(await balance()).toBe(111.5);
    const listed = (await account.request('GET', '/v1/customers')).body;
    expect(listed.find((c: any) => c.customerID === id).Balance).toBe(111.5);
  });

  it('refuses to delete a customer with invoices (409), and deletes one without', async () => {
    const customer = await newCustomer();
    const draft = await createInvoice({ customerID: customer.customerID, isDraft: true });
    const res = await t.request('DELETE', `/v1/customers/${customer.customerID}`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('customer_has_invoices');
    expect((await t.request('DELETE', `/v1/invoices/${draft.invoiceID}`)).status).toBe(204);
    expect((await t.request('DELETE', `/v1/customers/${customer.customerID}`)).status).toBe(204);
  });
});

describe('tenant isolation', () => {
  it("answers 404 to every operation on another account's invoice and lists none of them", async () => {
    const theirs = await newCustomer(other);
    const invoice = await createInvoice({ customerID: theirs.customerID }, other);
    const id = invoice.invoiceID;
    expect((await t.request('GET', `/v1/invoices/${id}`)).status).toBe(404);
    expect((await t.request('PUT', `/v1/invoices/${id}/send`)).status).toBe(404);
    expect((await fetchPdf(id)).res.status).toBe(404);
    const mine = await t.request('GET', '/v1/invoices?page_size=200');
    expect(mine.body.some((i: any) => i.invoiceID === id)).toBe(false);
    expect(await read(id, other)).toEqual(invoice);
  });
});
