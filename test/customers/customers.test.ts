import { beforeAll, describe, expect, it } from 'vitest';
import { addGateway, setGatewayEnabled } from '../../src/modules/gateways/index.ts';
import { accountContext } from '../helpers/context.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

/** The account's built-in test gateway, and another account's. */
let gatewayID: number;
let theirGatewayID: number;
const t = useTestService({ secondAccount: true });
const { other } = t;
beforeAll(async () => {
  expect((await t.request('POST', '/v1/currencies', { body: { CurrencyCode: 'ZAR' } })).status).toBe(201);
  gatewayID = (await t.request('GET', '/v1/gateways')).body[0].gatewayID;
  theirGatewayID = (await other.request('GET', '/v1/gateways')).body[0].gatewayID;
});

const SPEC_FIELDS = [
  'customerID',
  'Reference',
  'isCompany',
  'Name',
  'LastName',
  'RegistrationNumber',
  'VatNo',
  'Company',
  'Email',
  'EmailCC',
  'Cell',
  'Tel',
  'Fax',
  'Address1',
  'Address2',
  'City',
  'State',
  'Country',
  'ZipCode',
  'CountryState',
  'countryID',
  'countryStateID',
  'PrimaryGatewayID',
  'CurrencyCode',
  'CreatedDate',
  'isSuspended',
  'SuspendedDate',
  'isActive',
  'comp_status',
  'isWaiveTaxes',
  'PaymentMethod',
  'ActiveSubs',
  'Balance',
  'autoSendInvoice',
  'autoSendStatement',
  'StatementDate',
  'StatementLastSentDate',
  'PrimaryPaymentMethodInfo',
];

let referenceSeq = 0;
async function create(body: Record<string, unknown> = {}, as: TestAccount = t) {
  const res = await as.request('POST', '/v1/customers', { body: { Name: 'Ada', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe('POST /v1/customers', () => {
  it('creates a customer with every field of the spec, returned with the spec types', async () => {
    const body = {
      Reference: `REF-${++referenceSeq}`,
      isCompany: true,
      Name: 'Acme',
      LastName: null,
      RegistrationNumber: '2020/123456/07',
      VatNo: 4123456789,
      Company: 'Acme Holdings',
      Email: 'billing@acme.test',
      EmailCC: 'cfo@acme.test',
      Cell: '+27 82 000 0000',
      Tel: '+27 21 000 0000',
      Fax: '',
      Address1: '1 Long Street',
      Address2: 'Floor 2',
      City: 'Cape Town',
      State: 'Western Cape',
      Country: 'South Africa',
      ZipCode: '8001',
      CountryState: 'WC',
      countryID: 710,
      countryStateID: '71001234', // ZA-WC
      PrimaryGatewayID: gatewayID,
      CurrencyCode: 'zar',
      isWaiveTaxes: true,
      PaymentMethod: 'Debit_Order',
      autoSendInvoice: false,
      autoSendStatement: true,
      StatementDate: '05 Mar 2027',
    };
    const created = await create(body);
    expect(Object.keys(created).sort()).toEqual([...SPEC_FIELDS].sort());
    expect(created).toMatchObject({
      Reference: body.Reference,
      isCompany: true,
      Name: 'Acme',
      LastName: null,
      VatNo: '4123456789',
      Fax: null,
      countryID: 710,
      countryStateID: '71001234',
      PrimaryGatewayID: gatewayID,
      CurrencyCode: 'ZAR',
      isSuspended: false,
      SuspendedDate: null,
      isActive: true,
      comp_status: 'Active',
      isWaiveTaxes: true,
      PaymentMethod: 'debit_order',
      ActiveSubs: 0,
      Balance: 0,
      autoSendInvoice: false,
      autoSendStatement: true,
      StatementDate: '2027-03-05T00:00:00.000Z',
      StatementLastSentDate: null,
      PrimaryPaymentMethodInfo: null,
    });
    expect(created.CreatedDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const read = await t.request('GET', `/v1/customers/${created.customerID}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created);
  });

  it('fills defaults: the account currency, active, not suspended, null for what was not given', async () => {
    const created = await create({ Name: 'Bare' });
    expect(created).toMatchObject({
      CurrencyCode: 'USD',
      isCompany: false,
      isActive: true,
      isSuspended: false,
      comp_status: 'Active',
      Reference: null,
      Email: null,
      PaymentMethod: null,
    });
  });

  it('reads dates in ISO 8601 with or without offset and as DD Mon YYYY', async () => {
    for (const [given, stored] of [
      ['2027-01-31T10:15:00+02:00', '2027-01-31T08:15:00.000Z'],
      ['2027-01-31T10:15:00Z', '2027-01-31T10:15:00.000Z'],
      ['2027-01-31', '2027-01-31T00:00:00.000Z'],
      ['31 Jan 2027', '2027-01-31T00:00:00.000Z'],
    ]) {
      expect((await create({ StatementDate: given })).StatementDate, given).toBe(stored);
    }
  });

  it.each([
    [{ Name: '' }, 'Name'],
    [{ Name: '   ' }, 'Name'],
    [{ Email: 'not-an-email' }, 'Email'],
    [{ EmailCC: 'a@b' }, 'EmailCC'],
    [{ CurrencyCode: 'ABC' }, 'CurrencyCode'],
    [{ CurrencyCode: 'XAU' }, 'CurrencyCode'],
    [{ CurrencyCode: 'EUR' }, 'CurrencyCode'],
    [{ PaymentMethod: 'bitcoin' }, 'PaymentMethod'],
    [{ StatementDate: '2027-02-30' }, 'StatementDate'],
    [{ StatementDate: '31 Foo 2027' }, 'StatementDate'],
    [{ countryID: 0 }, 'countryID'],
    [{ countryStateID: '0' }, 'countryStateID'],
    [{ countryStateID: '12a' }, 'countryStateID'],
    [{ VatNo: 1e21 }, 'VatNo'],
    [{ VatNo: 12.5 }, 'VatNo'],
    [{ StatementDate: '9999-12-31T23:59:59-14:00' }, 'StatementDate'],
    [{ StatementDate: '0000-01-01' }, 'StatementDate'],
    [{ isSuspended: 2 }, 'isSuspended'],
    [{ isActive: 'true' }, 'isActive'],
    [{ Reference: 'x'.repeat(101) }, 'Reference'],
  ])('refuses %j with 422 naming %s and creates nothing', async (bad, field) => {
    const before = (await t.request('GET', '/v1/customers?page_size=200')).body.length;
    const res = await t.request('POST', '/v1/customers', { body: { Name: 'Ada', ...bad } });
    expect(res.status).toBe(422);
    expect(res.body.fields.map((f: { field: string }) => f.field)).toContain(field);
    expect((await t.request('GET', '/v1/customers?page_size=200')).body.length).toBe(before);
  });

  it('requires Name', async () => {
    const res = await t.request('POST', '/v1/customers', { body: { LastName: 'x' } });
    expect(res.status).toBe(422);
    expect(res.body.fields).toEqual([{ field: 'Name', message: 'is required' }]);
  });

  it('answers 409 when the Reference is taken in the account, and allows it in another account', async () => {
    const reference = `DUP-${++referenceSeq}`;
    await create({ Reference: reference });
    const res = await t.request('POST', '/v1/customers', { body: { Name: 'B', Reference: reference } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('reference_taken');
    await create({ Reference: reference }, other);
  });

  it('sets suspension and archive state given at creation', async () => {
    const created = await create({ isSuspended: 1, isActive: false });
    expect(created).toMatchObject({ isSuspended: true, isActive: false, comp_status: 'Archived' });
    expect(created.SuspendedDate).not.toBeNull();
  });
});

describe('PUT /v1/customers/{id}', () => {
  it('changes the fields sent, keeps the others, and clears those sent as null', async () => {
    const created = await create({
      Reference: `E-${++referenceSeq}`,
      Email: 'a@x.test',
      City: 'Durban',
      Tel: '1',
    });
    const res = await t.request('PUT', `/v1/customers/${created.customerID}`, {
      body: { City: 'Pretoria', Tel: null, PaymentMethod: 'eft' },
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const read = (await t.request('GET', `/v1/customers/${created.customerID}`)).body;
    expect(read).toMatchObject({
      City: 'Pretoria',
      Tel: null,
      PaymentMethod: 'eft',
      Email: 'a@x.test',
      Name: 'Ada',
    });
    expect(read.Reference).toBe(created.Reference);
  });

  it('accepts the whole object as read back, including read-only fields', async () => {
    const created = await create();
    const res = await t.request('PUT', `/v1/customers/${created.customerID}`, {
      body: { ...created, City: 'Paarl' },
    });
    expect(res.status).toBe(204);
    expect((await t.request('GET', `/v1/customers/${created.customerID}`)).body.City).toBe('Paarl');
  });

  it('answers 409 when the new Reference belongs to another customer, and allows keeping its own', async () => {
    const first = await create({ Reference: `P-${++referenceSeq}` });
    const second = await create({ Reference: `P-${++referenceSeq}` });
    const res = await t.request('PUT', `/v1/customers/${second.customerID}`, {
      body: { Reference: first.Reference },
    });
    expect(res.status).toBe(409);
    const same = await t.request('PUT', `/v1/customers/${second.customerID}`, {
      body: { Reference: second.Reference },
    });
    expect(same.status).toBe(204);
  });

  it('refuses invalid values with 422 and changes nothing', async () => {
    const created = await create({ City: 'Durban' });
    const res = await t.request('PUT', `/v1/customers/${created.customerID}`, {
      body: { City: 'Elsewhere', Email: 'bad', CurrencyCode: 'QQQ' },
    });
    expect(res.status).toBe(422);
    expect(res.body.fields.map((f: { field: string }) => f.field).sort()).toEqual(['CurrencyCode', 'Email']);
    expect((await t.request('GET', `/v1/customers/${created.customerID}`)).body.City).toBe('Durban');
  });

  it('answers 404 for an unknown customer', async () => {
    expect((await t.request('PUT', '/v1/customers/987654', { body: { City: 'x' } })).status).toBe(404);
  });

  it('accepts an edit with no body as an edit of nothing', async () => {
    const created = await create({ City: 'Durban' });
    expect((await t.request('PUT', `/v1/customers/${created.customerID}`)).status).toBe(204);
    expect((await t.request('PUT', `/v1/customers/${created.customerID}`, { rawBody: '' })).status).toBe(204);
    expect((await t.request('GET', `/v1/customers/${created.customerID}`)).body.City).toBe('Durban');
  });
});

describe('PrimaryGatewayID', () => {
  const fieldsOf = (body: { fields: { field: string }[] }) => body.fields.map((f) => f.field);

  it("refuses another account's gateway or a missing one with 422, on create and on edit", async () => {
    const before = (await t.request('GET', '/v1/customers?page_size=200')).body.length;
    const created = await create({ PrimaryGatewayID: gatewayID });
    for (const id of [theirGatewayID, 987654]) {
      const refused = await t.request('POST', '/v1/customers', {
        body: { Name: 'Ada', PrimaryGatewayID: id },
      });
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({ code: 'gateway_not_found' });
      expect(fieldsOf(refused.body)).toEqual(['PrimaryGatewayID']);

      const edit = await t.request('PUT', `/v1/customers/${created.customerID}`, {
        body: { City: 'Elsewhere', PrimaryGatewayID: id },
      });
      expect(edit.status).toBe(422);
      expect(fieldsOf(edit.body)).toEqual(['PrimaryGatewayID']);
    }
    expect((await t.request('GET', '/v1/customers?page_size=200')).body.length).toBe(before + 1);
    expect((await t.request('GET', `/v1/customers/${created.customerID}`)).body).toMatchObject({
      PrimaryGatewayID: gatewayID,
      City: null,
    });
  });

  it("accepts the account's own gateways, and null to clear", async () => {
    const ctx = await accountContext(t, t.accountId);
    const manual = await addGateway(ctx, { type: 'manual', friendlyName: 'EFT' });
    const created = await create({ PrimaryGatewayID: manual.id });
    expect(created.PrimaryGatewayID).toBe(manual.id);
    const path = `/v1/customers/${created.customerID}`;
    expect((await t.request('PUT', path, { body: { PrimaryGatewayID: gatewayID } })).status).toBe(204);
    expect((await t.request('GET', path)).body.PrimaryGatewayID).toBe(gatewayID);
    expect((await t.request('PUT', path, { body: { PrimaryGatewayID: null } })).status).toBe(204);
    expect((await t.request('GET', path)).body.PrimaryGatewayID).toBeNull();
  });

  it('refuses a disabled gateway newly assigned, but keeps one disabled since when the customer is sent back', async () => {
    const ctx = await accountContext(t, t.accountId);
    const gateway = await addGateway(ctx, { type: 'manual', friendlyName: 'Soon disabled' });
    const customer = await create({ PrimaryGatewayID: gateway.id });
    const unassigned = await create();
    await setGatewayEnabled(ctx, gateway.id, false);

    const refused = await t.request('POST', '/v1/customers', {
      body: { Name: 'Ada', PrimaryGatewayID: gateway.id },
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'gateway_not_usable' });
    expect(fieldsOf(refused.body)).toEqual(['PrimaryGatewayID']);
    const assign = await t.request('PUT', `/v1/customers/${unassigned.customerID}`, {
      body: { PrimaryGatewayID: gateway.id },
    });
    expect(assign.status).toBe(422);
    expect(fieldsOf(assign.body)).toEqual(['PrimaryGatewayID']);

    const read = (await t.request('GET', `/v1/customers/${customer.customerID}`)).body;
    const sentBack = await t.request('PUT', `/v1/customers/${customer.customerID}`, {
      body: { ...read, City: 'Paarl' },
    });
    expect(sentBack.status).toBe(204);
    expect((await t.request('GET', `/v1/customers/${customer.customerID}`)).body).toMatchObject({
      City: 'Paarl',
      PrimaryGatewayID: gateway.id,
    });
  });
});

describe('archive, reopen, suspend, unsuspend', () => {
  it('moves comp_status through Active, Suspended and Archived', async () => {
    const { customerID } = await create();
    const status = async () => (await t.request('GET', `/v1/customers/${customerID}`)).body;

    expect((await t.request('PUT', `/v1/customers/${customerID}/suspend`)).status).toBe(204);
    const suspended = await status();
    expect(suspended).toMatchObject({ isSuspended: true, comp_status: 'Suspended', isActive: true });
    expect(Date.parse(suspended.SuspendedDate)).toBeGreaterThan(Date.now() - 60_000);

    await t.request('PUT', `/v1/customers/${customerID}/suspend`);
    expect((await status()).SuspendedDate).toBe(suspended.SuspendedDate);

    expect((await t.request('PUT', `/v1/customers/${customerID}/archive`)).status).toBe(204);
    expect(await status()).toMatchObject({ isActive: false, comp_status: 'Archived' });

    expect((await t.request('PUT', `/v1/customers/${customerID}/reopen`)).status).toBe(204);
    expect(await status()).toMatchObject({ isActive: true, comp_status: 'Suspended' });

    expect((await t.request('PUT', `/v1/customers/${customerID}/unsuspend`)).status).toBe(204);
    expect(await status()).toMatchObject({ isSuspended: false, SuspendedDate: null, comp_status: 'Active' });
  });

  it('accepts an empty JSON body as no body', async () => {
    const { customerID } = await create();
    const res = await t.request('PUT', `/v1/customers/${customerID}/archive`, { rawBody: '' });
    expect(res.status).toBe(204);
  });

  it.each(['archive', 'reopen', 'suspend', 'unsuspend'])(
    'answers 404 to %s of an unknown customer',
    async (path) => {
      expect((await t.request('PUT', `/v1/customers/987654/${path}`)).status).toBe(404);
    },
  );
});

describe('DELETE /v1/customers/{id}', () => {
  it('deletes the customer with its contacts, notes and custom values', async () => {
    const { customerID } = await create();
    await t.request('POST', '/v1/customernotes', { body: { customerID, Note: 'hello' } });
    await t.request('POST', '/v1/customercontacts', {
      body: { customerID, Name: 'A', LastName: 'B', Email: 'a@b.test', isActive: false },
    });
    expect((await t.request('DELETE', `/v1/customers/${customerID}`)).status).toBe(204);
    expect((await t.request('GET', `/v1/customers/${customerID}`)).status).toBe(404);
    expect((await t.request('GET', `/v1/customers/${customerID}/customernotes`)).status).toBe(404);
    expect((await t.request('DELETE', `/v1/customers/${customerID}`)).status).toBe(404);
  });
});

describe('POST /v1/by_customer_ids', () => {
  it('returns the customers asked for in creation order, with PrimaryPaymentMethod, leaving out unknown ids', async () => {
    const a = await create({ Name: 'A' });
    const b = await create({ Name: 'B' });
    const theirs = await create({ Name: 'Theirs' }, other);
    const res = await t.request('POST', '/v1/by_customer_ids', {
      body: { ids: [b.customerID, theirs.customerID, a.customerID, 999999] },
    });
    expect(res.status).toBe(200);
    expect(res.body.map((c: { Name: string }) => c.Name)).toEqual(['A', 'B']);
    expect(res.body[0].PrimaryPaymentMethod).toBe(false);
    expect(Object.keys(res.body[0]).sort()).toEqual([...SPEC_FIELDS, 'PrimaryPaymentMethod'].sort());
  });

  it('pages by the body or the query string', async () => {
    const ids = [(await create()).customerID, (await create()).customerID, (await create()).customerID];
    const byBody = await t.request('POST', '/v1/by_customer_ids', { body: { ids, page: 2, page_size: 2 } });
    expect(byBody.body.map((c: { customerID: number }) => c.customerID)).toEqual([ids[2]]);
    const byQuery = await t.request('POST', '/v1/by_customer_ids?page_size=1', { body: { ids } });
    expect(byQuery.body.map((c: { customerID: number }) => c.customerID)).toEqual([ids[0]]);
  });

  it.each([[{}], [{ ids: [] }], [{ ids: ['a'] }], [{ ids: [1], page_size: 500 }]])(
    'refuses %j with 422',
    async (body) => {
      expect((await t.request('POST', '/v1/by_customer_ids', { body })).status).toBe(422);
    },
  );
});

describe('custom fields', () => {
  it('defines fields per account and returns every customer with each field as {Key, Value}', async () => {
    const fresh = await t.newAccount('Custom');
    const region = await fresh.request('POST', '/v1/customfields', { body: { Key: 'Region' } });
    expect(region.status).toBe(201);
    expect(region.body).toEqual({ customFieldID: expect.any(Number), Key: 'Region' });
    await fresh.request('POST', '/v1/customfields', { body: { Key: 'Segment' } });
    expect((await fresh.request('POST', '/v1/customfields', { body: { Key: 'Region' } })).status).toBe(409);

    const a = await create({ Name: 'A', CustomFields: [{ Key: 'Region', Value: 'North' }] }, fresh);
    await create({ Name: 'B' }, fresh);
    const listed = await fresh.request('GET', '/v1/customers/with_customfields');
    expect(listed.status).toBe(200);
    expect(listed.body.map((c: { Name: string; CustomFields: unknown }) => [c.Name, c.CustomFields])).toEqual(
      [
        [
          'A',
          [
            { Key: 'Region', Value: 'North' },
            { Key: 'Segment', Value: null },
          ],
        ],
        [
          'B',
          [
            { Key: 'Region', Value: null },
            { Key: 'Segment', Value: null },
          ],
        ],
      ],
    );
    expect(Object.keys(listed.body[0]).sort()).toEqual([...SPEC_FIELDS, 'CustomFields'].sort());

    await fresh.request('PUT', `/v1/customers/${a.customerID}`, {
      body: {
        CustomFields: [
          { Key: 'Segment', Value: 'SMB' },
          { Key: 'Region', Value: '' },
        ],
      },
    });
    const after = await fresh.request('GET', '/v1/customers/with_customfields?page_size=1');
    expect(after.body).toHaveLength(1);
    expect(after.body[0].CustomFields).toEqual([
      { Key: 'Region', Value: null },
      { Key: 'Segment', Value: 'SMB' },
    ]);

    const paged = await fresh.request('GET', '/v1/customfields?page=2&page_size=1');
    expect(paged.body).toEqual([{ customFieldID: expect.any(Number), Key: 'Segment' }]);
    expect((await fresh.request('GET', '/v1/customfields?page_size=201')).status).toBe(422);

    expect((await fresh.request('DELETE', `/v1/customfields/${region.body.customFieldID}`)).status).toBe(204);
    expect((await fresh.request('GET', '/v1/customfields')).body).toEqual([
      { customFieldID: expect.any(Number), Key: 'Segment' },
    ]);
  });

  it('refuses a value for a field the account does not have, naming it', async () => {
    const res = await t.request('POST', '/v1/customers', {
      body: { Name: 'A', CustomFields: [{ Key: 'Nope', Value: 'x' }] },
    });
    expect(res.status).toBe(422);
    expect(res.body.fields[0].field).toBe('CustomFields[0].Key');
  });
});

describe('tenant isolation', () => {
  it("answers 404 to every operation on another account's customer and lists none of them", async () => {
    const theirs = await create({ Name: 'Theirs' }, other);
    const id = theirs.customerID;
    expect((await t.request('GET', `/v1/customers/${id}`)).status).toBe(404);
    expect((await t.request('PUT', `/v1/customers/${id}`, { body: { City: 'x' } })).status).toBe(404);
    for (const path of ['archive', 'reopen', 'suspend', 'unsuspend']) {
      expect((await t.request('PUT', `/v1/customers/${id}/${path}`)).status).toBe(404);
    }
    expect((await t.request('DELETE', `/v1/customers/${id}`)).status).toBe(404);
    const mine = await t.request('GET', '/v1/customers?page_size=200');
    expect(mine.body.some((c: { customerID: number }) => c.customerID === id)).toBe(false);
    const theirsNow = await other.request('GET', `/v1/customers/${id}`);
    expect(theirsNow.body).toEqual(theirs);
  });
});

describe('figures', () => {
  it('reads a customer with its Balance, ActiveSubs and primary method in one statement, as the lists show them', async () => {
    const account = await t.newAccount('Figures');
    const id = (await create({ Name: 'Owes' }, account)).customerID;
    const invoice = await account.request('POST', '/v1/invoices', {
      body: { customerID: id, Charges: [{ Descrip: 'Consulting', Qty: 1, UnitCostEx: 100 }] },
    });
    expect(invoice.status).toBe(201);
    const payment = await account.request('POST', '/v1/payments', {
      body: {
        customerID: id,
        Amount: 30,
        CurrencyCode: 'USD',
        Date: '2026-03-05',
        Method: 'cash',
        allocations: [],
      },
    });
    expect(payment.status).toBe(201);

    t.queries.length = 0;
    const read = await account.request('GET', `/v1/customers/${id}`);
    const statements = t.queries.filter((sql) => /"customers"/.test(sql));
    expect(read.status).toBe(200);
    // 100.00 owed on the invoice − 30.00 paid on account, nothing allocated.
    expect(read.body.Balance).toBe(70);
    expect(read.body.ActiveSubs).toBe(0);
    expect(read.body.PrimaryPaymentMethodInfo).toBeNull();
    // The customer and its three figures come in one statement (docs/benchmarks.md, "HTTP").
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(
      /"invoices".*"payments".*"credit_notes".*"subscriptions".*"payment_methods"/s,
    );

    const listed = (await account.request('GET', '/v1/customers')).body;
    expect(listed).toEqual([read.body]);
    const byIds = (await account.request('POST', '/v1/by_customer_ids', { body: { ids: [id] } })).body;
    expect(byIds).toEqual([{ ...read.body, PrimaryPaymentMethod: false }]);
    // Another account's id is not there, figures or not.
    expect((await t.request('GET', `/v1/customers/${id}`)).status).toBe(404);
  });
});
