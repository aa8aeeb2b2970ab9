import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../src/clock.ts';
import type { ServiceContext } from '../src/context.ts';
import { getAccount } from '../src/modules/auth/index.ts';
import { insertInvoices, queueInvoiceMails } from '../src/modules/invoicing/index.ts';
import type { NewInvoice } from '../src/modules/invoicing/index.ts';
import { eventually, startTestService } from './helpers/service.ts';
import type { TestAccount, TestService } from './helpers/service.ts';
import { startSmtpReceiver } from './helpers/smtp.ts';
import type { ReceivedMail } from './helpers/smtp.ts';

/** A clock the tests move; the service reads "today" from it (in each account's time zone). */
function movableClock(iso: string): Clock & { set(to: string): void } {
  let now = Date.parse(iso);
  return { now: () => new Date(now), set: (to) => (now = Date.parse(to)) };
}

const clock = movableClock('2026-03-10T10:00:00.000Z');
let t: TestService;
let other: TestAccount;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  t = await startTestService({ smtpUrl: smtp.url, clock });
  other = await t.newAccount();
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const db = () => t.service.storage.db;

const SPEC_FIELDS = [
  'invoiceID',
  'Customer',
  'invoiceNum',
  'Reference',
  'poNumber',
  'CurrencyCode',
  'InvoiceDate',
  'DueDate',
  'DateSent',
  'LastUpdated',
  'isDraft',
  'isCancelled',
  'Source',
  'CollectionMethod',
  'gatewayID',
  'customerPaymentMethodID',
  'NumTries',
  'NextTryDate',
  'Notes',
  'Terms',
  'Status',
  'customerID',
  'Name',
  'LastName',
  'Total',
  'TotalActualPaid',
  'TotalPendingPaid',
  'TotalNegativeAdjs',
  'Balance',
  'ActualBalance',
  'Taxes',
  'Charges',
  'PaymentsApplied',
  'NegativeAdjustmentsApplied',
].sort();

let sequence = 0;
const unique = (label: string) => `${label}-${++sequence}`;
const uniqueEmail = (label: string) => `${label}.${++sequence}.${Date.now()}@example.com`;

async function newCustomer(account: TestAccount = t, body: Record<string, unknown> = {}): Promise<any> {
  const res = await account.request('POST', '/v1/customers', { body: { Name: 'Ada', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const CHARGE = { Descrip: 'Consulting', Qty: 2, UnitCostEx: 50 };

async function createInvoice(body: Record<string, unknown>, account: TestAccount = t): Promise<any> {
  const res = await account.request('POST', '/v1/invoices', { body: { Charges: [CHARGE], ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function read(invoiceID: number, account: TestAccount = t): Promise<any> {
  const res = await account.request('GET', `/v1/invoices/${invoiceID}`);
  expect(res.status).toBe(200);
  return res.body;
}

const fieldsOf = (body: any): string[] => body.fields.map((f: { field: string }) => f.field);

async function invoiceCount(account: TestAccount = t): Promise<number> {
  const row = await db()
    .selectFrom('invoices')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', account.accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function setAccount(account: TestAccount, values: Record<string, unknown>): Promise<void> {
  await db().updateTable('accounts').set(values).where('id', '=', account.accountId).execute();
}

async function pdfText(pdf: Uint8Array): Promise<string> {
  const parser = new PDFParse({ data: pdf });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

async function fetchPdf(
  invoiceID: number,
  account: TestAccount = t,
): Promise<{ res: Response; text: string }> {
  const headers = {
    authorization: `Basic ${Buffer.from(`${account.accountId}:${account.apiKey}`).toString('base64')}`,
  };
  const res = await fetch(`${t.url}/v1/invoices/${invoiceID}/pdf`, { headers });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { res, text: res.status === 200 ? await pdfText(bytes) : '' };
}

describe('POST /v1/invoices', () => {
  it('creates an issued invoice with every field of the spec, returned with the spec types', async () => {
    const customer = await newCustomer(t, { Name: 'Grace', LastName: 'Hopper', Email: uniqueEmail('grace') });
    const reference = unique('INV-REF');
    const created = await createInvoice({
      customerID: customer.customerID,
      Reference: reference,
      poNumber: 'PO-77',
      InvoiceDate: '2026-03-05',
      DueDate: '05 Apr 2026',
      Notes: 'Thank you',
      Terms: 'Net 30',
      CollectionMethod: 'EFT',
      Taxes: [{ Name: 'VAT', Perc: 0.15 }],
    });
    expect(Object.keys(created).sort()).toEqual(SPEC_FIELDS);
    expect(created).toMatchObject({
      invoiceID: expect.any(Number),
      invoiceNum: expect.any(Number),
      Reference: reference,
      poNumber: 'PO-77',
      CurrencyCode: 'USD',
      InvoiceDate: '2026-03-05T00:00:00.000Z',
      DueDate: '2026-04-05T00:00:00.000Z',
      DateSent: null,
      LastUpdated: '2026-03-10T10:00:00.000Z',
      isDraft: false,
      isCancelled: false,
      Source: 'App',
      CollectionMethod: 'eft',
      gatewayID: null,
      customerPaymentMethodID: null,
      NumTries: 0,
      NextTryDate: null,
      Notes: 'Thank you',
      Terms: 'Net 30',
      Status: 'Due',
      customerID: customer.customerID,
      Name: 'Grace',
      LastName: 'Hopper',
      // 2 × 50.00 = 100.00; VAT 15.00; Total 115.00.
      Total: 115,
      TotalActualPaid: 0,
      TotalPendingPaid: 0,
      TotalNegativeAdjs: 0,
      Balance: 115,
      ActualBalance: 115,
      PaymentsApplied: [],
      NegativeAdjustmentsApplied: [],
    });
    expect(created.Customer).toMatchObject({ customerID: customer.customerID, Name: 'Grace', Balance: 115 });
    expect(created.Taxes).toEqual([
      { invoiceTaxID: expect.any(Number), invoiceID: created.invoiceID, Name: 'VAT', Perc: 0.15 },
    ]);
    expect(created.Charges).toEqual([
      {
        chargeID: expect.any(Number),
        invoiceID: created.invoiceID,
        Line: 1,
        Descrip: 'Consulting',
        Qty: 2,
        UnitCostEx: 50,
        AmountEx: 100,
        AmountInc: 115,
        DisplayOrder: 1,
      },
    ]);
    expect(await read(created.invoiceID)).toEqual(created);
  });

  it('prices exactly: each line rounded half away from zero, taxes per line, totals as sums of lines', async () => {
    const { customerID } = await newCustomer();
    const created = await createInvoice({
      customerID,
      // USD, tax 0.15: 3 × 3.333 = 9.999 → 10.00, tax 1.50, inc 11.50; 1 × 0.05 → tax 0.0075 → 0.01, inc 0.06;
      // 1 × -0.005 (a discount) → -0.01 (away from zero), tax -0.0015 → 0.00, inc -0.01. Total 11.55.
      Charges: [
        { Descrip: 'Widgets', Qty: 3, UnitCostEx: 3.333 },
        { Descrip: 'Postage', Qty: '1', UnitCostEx: '0.05' },
        { Descrip: 'Discount', Qty: 1, UnitCostEx: -0.005 },
      ],
      Taxes: [{ Name: 'VAT', Perc: 0.15 }],
    });
    expect(created.Charges.map((c: any) => [c.Qty, c.UnitCostEx, c.AmountEx, c.AmountInc])).toEqual([
      [3, 3.333, 10, 11.5],
      [1, 0.05, 0.05, 0.06],
      [1, -0.005, -0.01, -0.01],
    ]);
    expect(created).toMatchObject({ Total: 11.55, Balance: 11.55, ActualBalance: 11.55 });
  });

  it('prices in the minor unit of the invoice currency (JPY has none, BHD three decimals)', async () => {
    const account = await t.newAccount('Currencies');
    for (const code of ['JPY', 'BHD']) {
      expect((await account.request('POST', '/v1/currencies', { body: { CurrencyCode: code } })).status).toBe(
        201,
      );
    }
    const { customerID } = await newCustomer(account);
    // JPY, tax 0.1: 3 × 333.5 = 1000.5 → 1001; tax 100.1 → 100; Total 1101.
    const yen = await createInvoice(
      {
        customerID,
        CurrencyCode: 'jpy',
        Charges: [{ Descrip: 'A', Qty: 3, UnitCostEx: 333.5 }],
        Taxes: [{ Name: 'CT', Perc: 0.1 }],
      },
      account,
    );
    expect(yen).toMatchObject({ CurrencyCode: 'JPY', Total: 1101 });
    expect(yen.Charges[0]).toMatchObject({ AmountEx: 1001, AmountInc: 1101 });
    // BHD, tax 0.05: 2 × 1.2345 = 2.469; tax 0.12345 → 0.123; Total 2.592.
    const dinar = await createInvoice(
      {
        customerID,
        CurrencyCode: 'BHD',
        Charges: [{ Descrip: 'B', Qty: 2, UnitCostEx: 1.2345 }],
        Taxes: [{ Name: 'VAT', Perc: 0.05 }],
      },
      account,
    );
    expect(dinar).toMatchObject({ Total: 2.592 });
    expect(dinar.Charges[0]).toMatchObject({ AmountEx: 2.469, AmountInc: 2.592 });
  });

  it("fills defaults: the customer's currency, today, the account's due days, notes and terms", async () => {
    const account = await t.newAccount('Defaults');
    await setAccount(account, {
      time_zone: 'Africa/Johannesburg',
      invoice_due_days: 30,
      invoice_notes: 'Default note',
      invoice_terms: 'Default terms',
    });
    expect((await account.request('POST', '/v1/currencies', { body: { CurrencyCode: 'ZAR' } })).status).toBe(
      201,
    );
    const { customerID } = await newCustomer(account, { CurrencyCode: 'ZAR' });
    // The clock is 2026-03-10T10:00Z, which is 12:00 on 10 March in Johannesburg (UTC+2).
    const created = await createInvoice({ customerID }, account);
    expect(created).toMatchObject({
      CurrencyCode: 'ZAR',
      InvoiceDate: '2026-03-09T22:00:00.000Z',
      DueDate: '2026-04-08T22:00:00.000Z',
      Notes: 'Default note',
      Terms: 'Default terms',
      isDraft: false,
      Source: 'App',
      CollectionMethod: null,
      Reference: null,
      poNumber: null,
    });
    // Blank counts as unset; a date-time is read as its date in the account's time zone.
    const blank = await createInvoice(
      { customerID, Notes: ' ', Terms: null, InvoiceDate: '2026-03-31T23:30:00Z' },
      account,
    );
    expect(blank).toMatchObject({
      Notes: 'Default note',
      Terms: 'Default terms',
      InvoiceDate: '2026-03-31T22:00:00.000Z',
      DueDate: '2026-04-30T22:00:00.000Z',
    });
  });

  it('makes a draft when asked: no number, Status Draft, and no Balance for the customer', async () => {
    const customer = await newCustomer();
    const draft = await createInvoice({ customerID: customer.customerID, isDraft: true });
    expect(draft).toMatchObject({ isDraft: true, invoiceNum: null, Status: 'Draft', Total: 115 - 15 });
    expect(draft.Customer.Balance).toBe(0);
  });

  it('accepts poNumber as a number or text and returns it as text', async () => {
    const { customerID } = await newCustomer();
    expect((await createInvoice({ customerID, poNumber: 12345 })).poNumber).toBe('12345');
    expect((await createInvoice({ customerID, poNumber: ' A-1 ' })).poNumber).toBe('A-1');
  });

  it('numbers lines in the order sent, orders them by DisplayOrder when given', async () => {
    const { customerID } = await newCustomer();
    const created = await createInvoice({
      customerID,
      Charges: [
        { Descrip: 'second', Qty: 1, UnitCostEx: 1, DisplayOrder: 2 },
        { Descrip: 'first', Qty: 1, UnitCostEx: 1, DisplayOrder: 1 },
        { Descrip: 'third', Qty: 1, UnitCostEx: 1, DisplayOrder: 3, Line: 9 },
      ],
    });
    expect(created.Charges.map((c: any) => [c.Descrip, c.Line, c.DisplayOrder])).toEqual([
      ['first', 2, 1],
      ['second', 1, 2],
      ['third', 9, 3],
    ]);
  });

  it.each([
    [{ Charges: [{ Descrip: 'x', Qty: 0, UnitCostEx: 1 }] }, 'Charges[0].Qty'],
    [{ Charges: [{ Descrip: 'x', Qty: -1, UnitCostEx: 1 }] }, 'Charges[0].Qty'],
    [{ Charges: [CHARGE, { Descrip: 'x', Qty: 1.00001, UnitCostEx: 1 }] }, 'Charges[1].Qty'],
    [{ Charges: [{ Descrip: 'x', Qty: 'two', UnitCostEx: 1 }] }, 'Charges[0].Qty'],
    [{ Charges: [{ Descrip: 'x', Qty: 1, UnitCostEx: 0.30000000000000004 }] }, 'Charges[0].UnitCostEx'],
    [{ Charges: [{ Descrip: 'x', Qty: 1, UnitCostEx: 1e12 }] }, 'Charges[0].UnitCostEx'],
    [{ Charges: [{ Descrip: 'x', Qty: 1e6, UnitCostEx: 1e6 }] }, 'Charges[0].UnitCostEx'],
    [{ Charges: [{ Descrip: 'x', Qty: 1, UnitCostEx: true }] }, 'Charges[0].UnitCostEx'],
    [{ Charges: [{ Descrip: ' ', Qty: 1, UnitCostEx: 1 }] }, 'Charges[0].Descrip'],
    [{ Charges: [{ Qty: 1, UnitCostEx: 1 }] }, 'Charges[0].Descrip'],
    [{ Charges: [{ Descrip: 'x', Qty: 1, UnitCostEx: -5 }] }, 'Charges'],
    [{ Charges: 'none' }, 'Charges'],
    [{ Taxes: [{ Name: 'VAT', Perc: 15 }] }, 'Taxes[0].Perc'],
    [{ Taxes: [{ Name: 'VAT', Perc: 0.1234567 }] }, 'Taxes[0].Perc'],
    [{ Taxes: [{ Name: 'VAT', Perc: -0.1 }] }, 'Taxes[0].Perc'],
    [{ Taxes: [{ Name: '', Perc: 0.1 }] }, 'Taxes[0].Name'],
    [{ InvoiceDate: '2026-02-30' }, 'InvoiceDate'],
    [{ DueDate: 'soon' }, 'DueDate'],
    [{ InvoiceDate: '2026-03-10', DueDate: '2026-03-09' }, 'DueDate'],
    [{ CurrencyCode: 'EUR' }, 'CurrencyCode'],
    [{ CurrencyCode: 'ABC' }, 'CurrencyCode'],
    [{ CollectionMethod: 'bitcoin' }, 'CollectionMethod'],
    [{ CollectionMethod: 'debit_order' }, 'gatewayID'],
    [{ CollectionMethod: 'credit_card' }, 'gatewayID'],
    [{ customerPaymentMethodID: 5 }, 'customerPaymentMethodID'],
    [{ gatewayID: 987654 }, 'gatewayID'],
    [{ isDraft: 'yes' }, 'isDraft'],
    [{ Reference: 'x'.repeat(101) }, 'Reference'],
    [{ customerID: 'abc' }, 'customerID'],
    [{ customerID: undefined }, 'customerID'],
  ])('refuses %j with 422 naming %s and creates nothing', async (bad, field) => {
    const { customerID } = await newCustomer();
    const before = await invoiceCount();
    const res = await t.request('POST', '/v1/invoices', { body: { customerID, Charges: [CHARGE], ...bad } });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(fieldsOf(res.body)).toContain(field);
    expect(await invoiceCount()).toBe(before);
  });

  it('reports every bad field at once', async () => {
    const { customerID } = await newCustomer();
    const res = await t.request('POST', '/v1/invoices', {
      body: {
        customerID,
        InvoiceDate: '2026-03-10',
        DueDate: '2026-03-01',
        CurrencyCode: 'EUR',
        Charges: [CHARGE, { Descrip: 'x', Qty: 0, UnitCostEx: 1.23456 }],
        Taxes: [{ Name: 'VAT', Perc: 2 }],
      },
    });
    expect(res.status).toBe(422);
    expect(fieldsOf(res.body).sort()).toEqual([
      'Charges[1].Qty',
      'Charges[1].UnitCostEx',
      'CurrencyCode',
      'DueDate',
      'Taxes[0].Perc',
    ]);
  });

  it("answers 404 for a customer that does not exist or is another account's, creating nothing", async () => {
    const theirs = await newCustomer(other);
    const before = await invoiceCount();
    for (const customerID of [987654321, theirs.customerID]) {
      const res = await t.request('POST', '/v1/invoices', { body: { customerID, Charges: [CHARGE] } });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('customer_not_found');
    }
    expect(await invoiceCount()).toBe(before);
  });

  it('checks the gateway and the payment method of a collection', async () => {
    const { customerID } = await newCustomer();
    const gateways = await t.request('GET', '/v1/gateways');
    expect(gateways.status).toBe(200);
    const gatewayID = gateways.body[0].gatewayID;
    const theirGateway = (await other.request('GET', '/v1/gateways')).body[0].gatewayID;
    const attempt = async (body: Record<string, unknown>) => {
      const res = await t.request('POST', '/v1/invoices', {
        body: { customerID, Charges: [CHARGE], ...body },
      });
      expect(res.status).toBe(422);
      return res.body.fields;
    };
    expect(await attempt({ CollectionMethod: 'credit_card', gatewayID })).toEqual([
      { field: 'customerPaymentMethodID', message: 'is required when gatewayID is set' },
    ]);
    // The customer has no payment methods (test/paymentMethods.test.ts covers those it has).
    expect(await attempt({ CollectionMethod: 'credit_card', gatewayID, customerPaymentMethodID: 1 })).toEqual(
      [{ field: 'customerPaymentMethodID', message: `customer ${customerID} has no payment method 1` }],
    );
    expect(
      fieldsOf({
        fields: await attempt({
          CollectionMethod: 'debit_order',
          gatewayID: theirGateway,
          customerPaymentMethodID: 1,
        }),
      }),
    ).toContain('gatewayID');
  });

  it('answers 409 when the Reference is taken, also to concurrent requests, and allows it in another account', async () => {
    const { customerID } = await newCustomer();
    const reference = unique('DUP');
    await createInvoice({ customerID, Reference: reference });
    const again = await t.request('POST', '/v1/invoices', { body: { customerID, Reference: reference } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('reference_taken');

    const raced = unique('RACE');
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        t.request('POST', '/v1/invoices', { body: { customerID, Reference: raced, Charges: [CHARGE] } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const theirs = await newCustomer(other);
    await createInvoice({ customerID: theirs.customerID, Reference: reference }, other);
  });

  it('replays a create sent again with the same Idempotency-Key', async () => {
    const { customerID } = await newCustomer();
    const key = unique('idem');
    const send = () =>
      t.request('POST', '/v1/invoices', {
        body: { customerID, Charges: [CHARGE] },
        headers: { 'Idempotency-Key': key },
      });
    const first = await send();
    const second = await send();
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.invoiceID).toBe(first.body.invoiceID);
  });
});

describe('invoice numbers', () => {
  it('are sequential per account with no gaps or duplicates, under concurrent creates and finalizes', async () => {
    const account = await t.newAccount('Numbering');
    const { customerID } = await newCustomer(account);
    const drafts = [];
    for (let i = 0; i < 10; i++) drafts.push(await createInvoice({ customerID, isDraft: true }, account));
    // A refused create takes no number.
    const refused = await account.request('POST', '/v1/invoices', {
      body: { customerID, Charges: [{ Descrip: 'x', Qty: 1, UnitCostEx: -1 }] },
    });
    expect(refused.status).toBe(422);
    const results = await Promise.all([
      ...Array.from({ length: 20 }, () =>
        account.request('POST', '/v1/invoices', { body: { customerID, Charges: [CHARGE] } }),
      ),
      ...drafts.map((d) => account.request('PUT', `/v1/invoices/${d.invoiceID}/finalize`)),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([...Array(20).fill(201), ...Array(10).fill(204)]);
    const list = (await account.request('GET', '/v1/invoices?page_size=200')).body;
    expect(list.map((i: any) => i.invoiceNum).sort((a: number, b: number) => a - b)).toEqual(
      Array.from({ length: 30 }, (_, i) => i + 1),
    );
    // Another account counts from 1 on its own.
    const fresh = await t.newAccount('Numbering 2');
    const theirs = await newCustomer(fresh);
    expect((await createInvoice({ customerID: theirs.customerID }, fresh)).invoiceNum).toBe(1);
  });
});

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

describe('PUT /v1/invoices/{invoiceID}', () => {
  it('changes the fields sent on a draft and keeps the others; Charges and Taxes replace the lists', async () => {
    const { customerID } = await newCustomer();
    const draft = await createInvoice({
      customerID,
      isDraft: true,
      Reference: unique('E'),
      Notes: 'n',
      Taxes: [{ Name: 'VAT', Perc: 0.15 }],
    });
    clock.set('2026-03-10T11:00:00.000Z');
    try {
      const res = await t.request('PUT', `/v1/invoices/${draft.invoiceID}`, {
        body: { Notes: null, poNumber: 9, Charges: [{ Descrip: 'Hours', Qty: 1.5, UnitCostEx: 80 }] },
      });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
    } finally {
      clock.set('2026-03-10T10:00:00.000Z');
    }
    const after = await read(draft.invoiceID);
    expect(after).toMatchObject({
      Reference: draft.Reference,
      Notes: null,
      poNumber: '9',
      isDraft: true,
      LastUpdated: '2026-03-10T11:00:00.000Z',
      // 1.5 × 80 = 120.00, VAT 18.00 (the taxes were kept).
      Total: 138,
    });
    expect(after.Charges.map((c: any) => [c.Descrip, c.Line, c.AmountEx, c.AmountInc])).toEqual([
      ['Hours', 1, 120, 138],
    ]);
    expect(after.Taxes.map((x: any) => x.Name)).toEqual(['VAT']);

    expect((await t.request('PUT', `/v1/invoices/${draft.invoiceID}`, { body: { Taxes: [] } })).status).toBe(
      204,
    );
    expect(await read(draft.invoiceID)).toMatchObject({ Total: 120, Taxes: [] });
  });

  it('reprices the lines when the currency changes, and moves the draft to another customer', async () => {
    const account = await t.newAccount('Reprice');
    expect((await account.request('POST', '/v1/currencies', { body: { CurrencyCode: 'JPY' } })).status).toBe(
      201,
    );
    const a = await newCustomer(account);
    const b = await newCustomer(account, { Name: 'Bob' });
    const draft = await createInvoice(
      { customerID: a.customerID, isDraft: true, Charges: [{ Descrip: 'x', Qty: 1, UnitCostEx: 10.5 }] },
      account,
    );
    expect(draft.Total).toBe(10.5);
    const res = await account.request('PUT', `/v1/invoices/${draft.invoiceID}`, {
      body: { CurrencyCode: 'JPY', customerID: b.customerID },
    });
    expect(res.status).toBe(204);
    // 10.5 yen rounds half away from zero to 11.
    expect(await read(draft.invoiceID, account)).toMatchObject({
      CurrencyCode: 'JPY',
      Total: 11,
      customerID: b.customerID,
      Name: 'Bob',
    });
  });

  it('accepts the invoice as read back, and issues it when isDraft is false', async () => {
    const { customerID } = await newCustomer();
    const draft = await createInvoice({ customerID, isDraft: true });
    expect(
      (await t.request('PUT', `/v1/invoices/${draft.invoiceID}`, { body: { ...draft, Notes: 'x' } })).status,
    ).toBe(204);
    expect(
      (await t.request('PUT', `/v1/invoices/${draft.invoiceID}`, { body: { isDraft: false } })).status,
    ).toBe(204);
    const issued = await read(draft.invoiceID);
    expect(issued).toMatchObject({
      isDraft: false,
      Notes: 'x',
      invoiceNum: expect.any(Number),
      Status: 'Due',
    });
  });

  it('answers 409 for an issued or cancelled invoice and changes nothing', async () => {
    const { customerID } = await newCustomer();
    const issued = await createInvoice({ customerID, Notes: 'keep' });
    const res = await t.request('PUT', `/v1/invoices/${issued.invoiceID}`, { body: { Notes: 'changed' } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('invoice_not_draft');
    expect((await t.request('DELETE', `/v1/invoices/${issued.invoiceID}`)).status).toBe(204);
    expect(
      (await t.request('PUT', `/v1/invoices/${issued.invoiceID}`, { body: { Notes: 'changed' } })).status,
    ).toBe(409);
    expect((await read(issued.invoiceID)).Notes).toBe('keep');
  });

  it('refuses bad values with 422 and changes nothing', async () => {
    const { customerID } = await newCustomer();
    const draft = await createInvoice({
      customerID,
      isDraft: true,
      InvoiceDate: '2026-03-01',
      DueDate: '2026-03-05',
    });
    for (const [body, field] of [
      [{ InvoiceDate: '2026-03-06' }, 'DueDate'],
      [{ Charges: [{ Descrip: 'x', Qty: 1, UnitCostEx: 1.00001 }], Notes: 'no' }, 'Charges[0].UnitCostEx'],
      [{ CurrencyCode: 'EUR' }, 'CurrencyCode'],
      [{ Taxes: [{ Name: 'T', Perc: 1.5 }] }, 'Taxes[0].Perc'],
    ] as const) {
      const res = await t.request('PUT', `/v1/invoices/${draft.invoiceID}`, { body });
      expect(res.status).toBe(422);
      expect(fieldsOf(res.body)).toEqual([field]);
    }
    expect(await read(draft.invoiceID)).toEqual(draft);
  });

  it('answers 409 when the new Reference belongs to another invoice, and allows keeping its own', async () => {
    const { customerID } = await newCustomer();
    const taken = await createInvoice({ customerID, Reference: unique('T') });
    const draft = await createInvoice({ customerID, isDraft: true, Reference: unique('T') });
    const res = await t.request('PUT', `/v1/invoices/${draft.invoiceID}`, {
      body: { Reference: taken.Reference },
    });
    expect(res.status).toBe(409);
    expect(
      (await t.request('PUT', `/v1/invoices/${draft.invoiceID}`, { body: { Reference: draft.Reference } }))
        .status,
    ).toBe(204);
  });

  it("answers 404 for an unknown invoice, another account's invoice, or another account's customer", async () => {
    const theirs = await newCustomer(other);
    const theirDraft = await createInvoice({ customerID: theirs.customerID, isDraft: true }, other);
    expect((await t.request('PUT', '/v1/invoices/987654321', { body: { Notes: 'x' } })).status).toBe(404);
    expect(
      (await t.request('PUT', `/v1/invoices/${theirDraft.invoiceID}`, { body: { Notes: 'x' } })).status,
    ).toBe(404);
    const { customerID } = await newCustomer();
    const draft = await createInvoice({ customerID, isDraft: true });
    const moved = await t.request('PUT', `/v1/invoices/${draft.invoiceID}`, {
      body: { customerID: theirs.customerID },
    });
    expect(moved.status).toBe(404);
  });
});

describe('PUT /v1/invoices/{invoiceID}/finalize', () => {
  it('issues a draft with the next number, then answers 409', async () => {
    const account = await t.newAccount('Finalize');
    const { customerID } = await newCustomer(account);
    const first = await createInvoice({ customerID }, account);
    const draft = await createInvoice({ customerID, isDraft: true }, account);
    const res = await account.request('PUT', `/v1/invoices/${draft.invoiceID}/finalize`);
    expect(res.status).toBe(204);
    expect(await read(draft.invoiceID, account)).toMatchObject({
      isDraft: false,
      invoiceNum: first.invoiceNum + 1,
      Status: 'Due',
    });
    const again = await account.request('PUT', `/v1/invoices/${draft.invoiceID}/finalize`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('invoice_not_draft');
    expect((await account.request('PUT', '/v1/invoices/987654321/finalize')).status).toBe(404);
    expect((await other.request('PUT', `/v1/invoices/${draft.invoiceID}/finalize`)).status).toBe(404);
  });
});

describe('DELETE /v1/invoices/{invoiceID}', () => {
  it('deletes a draft', async () => {
    const { customerID } = await newCustomer();
    const draft = await createInvoice({ customerID, isDraft: true });
    expect((await t.request('DELETE', `/v1/invoices/${draft.invoiceID}`)).status).toBe(204);
    expect((await t.request('GET', `/v1/invoices/${draft.invoiceID}`)).status).toBe(404);
    expect((await t.request('DELETE', `/v1/invoices/${draft.invoiceID}`)).status).toBe(404);
  });

  it('cancels an issued invoice, which then owes nothing, and answers 409 to a second cancel', async () => {
    const customer = await newCustomer();
    const issued = await createInvoice({ customerID: customer.customerID });
    clock.set('2026-03-10T12:00:00.000Z');
    try {
      expect((await t.request('DELETE', `/v1/invoices/${issued.invoiceID}`)).status).toBe(204);
    } finally {
      clock.set('2026-03-10T10:00:00.000Z');
    }
    const cancelled = await read(issued.invoiceID);
    expect(cancelled).toMatchObject({
      isCancelled: true,
      Status: 'Cancelled',
      invoiceNum: issued.invoiceNum,
      LastUpdated: '2026-03-10T12:00:00.000Z',
    });
    expect(cancelled.Customer.Balance).toBe(0);
    const again = await t.request('DELETE', `/v1/invoices/${issued.invoiceID}`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('invoice_cancelled');
  });

  it('refuses to cancel an invoice that money is allocated to', async () => {
    const { customerID } = await newCustomer();
    for (const column of ['paid_actual_minor', 'paid_pending_minor', 'negative_adjs_minor'] as const) {
      const issued = await createInvoice({ customerID });
      await db()
        .updateTable('invoices')
        .set({ [column]: 100 })
        .where('id', '=', issued.invoiceID)
        .execute();
      const res = await t.request('DELETE', `/v1/invoices/${issued.invoiceID}`);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('invoice_has_allocations');
      expect((await read(issued.invoiceID)).isCancelled).toBe(false);
    }
  });

  it("answers 404 for another account's invoice and leaves it", async () => {
    const theirs = await newCustomer(other);
    const invoice = await createInvoice({ customerID: theirs.customerID }, other);
    expect((await t.request('DELETE', `/v1/invoices/${invoice.invoiceID}`)).status).toBe(404);
    expect((await read(invoice.invoiceID, other)).isCancelled).toBe(false);
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

describe('GET /v1/invoices/{invoiceID}/pdf', () => {
  it('renders the account, the customer, the number, dates, lines, taxes, totals and balance exactly', async () => {
    const account = await t.newAccount('Acme Billing Ltd');
    const customer = await newCustomer(account, {
      Name: 'Grace',
      LastName: 'Hopper',
      Company: 'Navy Labs',
      Address1: '1 Harbour Road',
      City: 'Arlington',
      ZipCode: '22201',
      Country: 'United States',
      Email: 'grace@navy.example',
    });
    const invoice = await createInvoice(
      {
        customerID: customer.customerID,
        InvoiceDate: '2026-03-05',
        DueDate: '2026-04-04',
        Reference: 'REF-PDF',
        poNumber: 'PO-9',
        Notes: 'Thank you for your business',
        // 3 × 3.333 → 10.00 (VAT 1.50, Levy 0.10); 1 × 0.05 → 0.05 (VAT 0.01, Levy 0.00).
        // VAT total 1.51, Levy total 0.10; Total 10.05 + 1.61 = 11.66.
        Charges: [
          { Descrip: 'Widgets', Qty: 3, UnitCostEx: 3.333 },
          { Descrip: 'Postage', Qty: 1, UnitCostEx: 0.05 },
        ],
        Taxes: [
          { Name: 'VAT', Perc: 0.15 },
          { Name: 'Levy', Perc: 0.01 },
        ],
      },
      account,
    );
    expect(invoice.Total).toBe(11.66);
    await db()
      .updateTable('invoices')
      .set({ paid_actual_minor: 500 })
      .where('id', '=', invoice.invoiceID)
      .execute();

    const { res, text } = await fetchPdf(invoice.invoiceID, account);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(
      `inline; filename="invoice-${invoice.invoiceNum}.pdf"`,
    );
    for (const expected of [
      'Acme Billing Ltd',
      `Invoice ${invoice.invoiceNum}`,
      'Grace Hopper',
      'Navy Labs',
      '1 Harbour Road',
      'Arlington, 22201',
      'United States',
      'grace@navy.example',
      '2026-03-05',
      '2026-04-04',
      'REF-PDF',
      'PO-9',
      'Widgets 3 3.333 10.00 11.60',
      'Postage 1 0.05 0.05 0.06',
      'Subtotal (excl. tax) 10.05',
      'VAT (15%) 1.51',
      'Levy (1%) 0.10',
      'Total USD 11.66',
      'Paid 5.00',
      'Balance due USD 6.66',
      'Thank you for your business',
    ]) {
      expect(text).toContain(expected);
    }
  });

  it('marks a draft as DRAFT and a cancelled invoice as CANCELLED', async () => {
    const { customerID } = await newCustomer();
    const draft = await createInvoice({ customerID, isDraft: true });
    const drafted = await fetchPdf(draft.invoiceID);
    expect(drafted.res.headers.get('content-disposition')).toContain(`invoice-draft-${draft.invoiceID}.pdf`);
    expect(drafted.text).toContain('DRAFT');
    const issued = await createInvoice({ customerID });
    await t.request('DELETE', `/v1/invoices/${issued.invoiceID}`);
    expect((await fetchPdf(issued.invoiceID)).text).toContain('CANCELLED');
  });
});

const mailsTo = (address: string): ReceivedMail[] =>
  smtp.messages.filter((m) => m.to.map((to) => to.toLowerCase()).includes(address.toLowerCase()));

/** The PDF attached to a raw MIME message. */
function pdfAttachment(raw: string): Buffer | undefined {
  const part = raw.split(/\r?\n--/).find((p) => /content-type:\s*application\/pdf/i.test(p));
  if (!part) return undefined;
  const body = part.slice(part.search(/\r?\n\r?\n/)).replace(/\s+/g, '');
  return Buffer.from(body, 'base64');
}

describe('PUT /v1/invoices/{invoiceID}/send', () => {
  it('e-mails the invoice with its PDF to Email and EmailCC and sets DateSent', async () => {
    const Email = uniqueEmail('send');
    const EmailCC = uniqueEmail('cc');
    const customer = await newCustomer(t, { Name: 'Alan', Email, EmailCC });
    const invoice = await createInvoice({
      customerID: customer.customerID,
      // 3 × 3.333 = 10.00, VAT 1.50: Total 11.50.
      Charges: [{ Descrip: 'Widgets', Qty: 3, UnitCostEx: 3.333 }],
      Taxes: [{ Name: 'VAT', Perc: 0.15 }],
    });
    const res = await t.request('PUT', `/v1/invoices/${invoice.invoiceID}/send`);
    expect(res.status).toBe(204);
    expect((await read(invoice.invoiceID)).DateSent).toBe('2026-03-10T10:00:00.000Z');

    const mail = await eventually(() => mailsTo(Email)[0]);
    expect(mail.to.map((a) => a.toLowerCase()).sort()).toEqual(
      [Email, EmailCC].map((a) => a.toLowerCase()).sort(),
    );
    expect(mail.raw).toMatch(new RegExp(`Subject: Invoice ${invoice.invoiceNum} from Test Account`));
    const pdf = pdfAttachment(mail.raw);
    expect(pdf, 'a PDF attachment').toBeDefined();
    expect(mail.raw).toContain(`invoice-${invoice.invoiceNum}.pdf`);
    const text = await pdfText(new Uint8Array(pdf!));
    expect(text).toContain(`Invoice ${invoice.invoiceNum}`);
    expect(text).toContain('Total USD 11.50');
  });

  it('answers 409 for a draft or a cancelled invoice and 422 when the customer has no e-mail', async () => {
    const withEmail = await newCustomer(t, { Email: uniqueEmail('nosend') });
    const draft = await createInvoice({ customerID: withEmail.customerID, isDraft: true });
    const toDraft = await t.request('PUT', `/v1/invoices/${draft.invoiceID}/send`);
    expect(toDraft.status).toBe(409);
    expect(toDraft.body.code).toBe('invoice_draft');
    const cancelled = await createInvoice({ customerID: withEmail.customerID });
    await t.request('DELETE', `/v1/invoices/${cancelled.invoiceID}`);
    expect((await t.request('PUT', `/v1/invoices/${cancelled.invoiceID}/send`)).status).toBe(409);

    const without = await newCustomer();
    const invoice = await createInvoice({ customerID: without.customerID });
    const res = await t.request('PUT', `/v1/invoices/${invoice.invoiceID}/send`);
    expect(res.status).toBe(422);
    expect(res.body.fields).toEqual([
      {
        field: 'Customer.Email',
        message: `customer ${without.customerID} has no e-mail address to send the invoice to`,
      },
    ]);
    expect((await read(invoice.invoiceID)).DateSent).toBeNull();
    expect((await t.request('PUT', '/v1/invoices/987654321/send')).status).toBe(404);
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

describe('internal API for the bill run', () => {
  async function contextOf(account: TestAccount): Promise<ServiceContext> {
    return {
      account: await getAccount(db(), account.accountId),
      db: db(),
      clock,
      log: t.service.log,
      secrets: t.service.secrets,
      mailQueued: () => {},
    };
  }

  it('inserts invoices in one go, numbers the issued ones, and queues the e-mails of customers who want them', async () => {
    const account = await t.newAccount('Bill Run');
    await setAccount(account, { invoice_due_days: 14, invoice_terms: 'Pay in 14 days' });
    const wantsMail = await newCustomer(account, { Email: uniqueEmail('auto'), autoSendInvoice: true });
    const noMail = await newCustomer(account, { Email: uniqueEmail('manual'), autoSendInvoice: false });
    const noAddress = await newCustomer(account, { autoSendInvoice: true });
    const ctx = await contextOf(account);
    const make = (customerId: number, isDraft: boolean): NewInvoice => ({
      customerId,
      currencyCode: 'USD',
      invoiceDate: '2026-03-10',
      source: 'Auto',
      isDraft,
      charges: [
        {
          descrip: 'Plan, March',
          qty: '1',
          unitCostEx: '19.99',
          periodStart: '2026-03-01',
          periodEnd: '2026-03-31',
        },
        { descrip: 'Seats', qty: '2.5', unitCostEx: '4' },
      ],
      taxes: [{ name: 'VAT', perc: '0.15' }],
    });
    const input = [
      make(wantsMail.customerID, false),
      make(noMail.customerID, false),
      make(wantsMail.customerID, true),
      make(noAddress.customerID, false),
    ];
    let ids: number[] = [];
    await db()
      .transaction()
      .execute(async (trx) => {
        const inTrx = { ...ctx, db: trx };
        ids = await insertInvoices(inTrx, input);
        await queueInvoiceMails(inTrx, ids);
      });
    const invoices = await Promise.all(ids.map((id) => read(id, account)));
    expect(invoices.map((i) => [i.customerID, i.invoiceNum, i.isDraft, i.Source])).toEqual([
      [wantsMail.customerID, 1, false, 'Auto'],
      [noMail.customerID, 2, false, 'Auto'],
      [wantsMail.customerID, null, true, 'Auto'],
      [noAddress.customerID, 3, false, 'Auto'],
    ]);
    // 19.99 + 10.00 = 29.99; VAT 3.00 + 1.50 = 4.50 (19.99 × 0.15 = 2.9985 → 3.00); Total 34.49.
    expect(invoices[0]).toMatchObject({
      Total: 34.49,
      DueDate: '2026-03-24T00:00:00.000Z',
      Terms: 'Pay in 14 days',
      DateSent: '2026-03-10T10:00:00.000Z',
    });
    expect(invoices.slice(1).map((i) => i.DateSent)).toEqual([null, null, null]);

    const mail = await eventually(() => mailsTo(wantsMail.Email)[0]);
    const text = await pdfText(new Uint8Array(pdfAttachment(mail.raw)!));
    expect(text).toContain('Invoice 1');
    expect(text).toContain('Total USD 34.49');
    expect(mailsTo(noMail.Email)).toEqual([]);
  });
});
