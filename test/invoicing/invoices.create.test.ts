import { describe, expect, it } from 'vitest';
import {
  CHARGE,
  createInvoice,
  fieldsOf,
  invoiceCount,
  newCustomer,
  other,
  read,
  setAccount,
  t,
  unique,
  uniqueEmail,
  useInvoiceService,
} from './invoices.fixtures.ts';

useInvoiceService();

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
  // Beyond the spec (docs/gateways.md): whether it follows its customer's payment settings, and their problem.
  'CollectionSource',
  'CollectionProblem',
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
  'TotalTax',
  'CreditedTotal',
  'CreditedTax',
  'BalanceTax',
  'Taxes',
  'Charges',
  'PaymentsApplied',
  'NegativeAdjustmentsApplied',
].sort();

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
      CollectionSource: 'invoice',
      CollectionProblem: null,
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
    // The customer has no payment methods (test/paymentMethods/ covers those it has).
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
