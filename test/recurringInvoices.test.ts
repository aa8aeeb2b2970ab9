import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../src/clock.ts';
import { createAccount } from '../src/modules/auth/index.ts';
import { billRecurringInvoice, listDueRecurringInvoiceIds } from '../src/modules/invoicing/index.ts';
import { accountContext } from './helpers/context.ts';
import { startTestService } from './helpers/service.ts';
import type { TestAccount, TestService } from './helpers/service.ts';

/** A clock the tests move: "today" is the UTC date it stands on (the test accounts are in UTC). */
const clock: Clock & { at: number } = {
  at: Date.parse('2026-03-10T09:00:00.000Z'),
  now() {
    return new Date(this.at);
  },
};
const setToday = (date: string) => {
  clock.at = Date.parse(`${date}T09:00:00.000Z`);
};

let t: TestService;
let other: TestAccount;
let customerID: number;
let otherCustomerID: number;
beforeAll(async () => {
  t = await startTestService({ clock });
  other = await t.newAccount();
  expect((await t.request('POST', '/v1/currencies', { body: { CurrencyCode: 'ZAR' } })).status).toBe(201);
  customerID = (await t.request('POST', '/v1/customers', { body: { Name: 'Ada' } })).body.customerID;
  otherCustomerID = (await other.request('POST', '/v1/customers', { body: { Name: 'Theirs' } })).body
    .customerID;
});
afterAll(() => t.close());
beforeEach(() => setToday('2026-03-10'));

const SPEC_FIELDS = [
  'recurInvoiceID',
  'customerID',
  'CurrencyCode',
  'Reference',
  'Term',
  'TermType',
  'StartDate',
  'EndDate',
  'lastInvDate',
  'lastRenewDate',
  'nextRenewDate',
  'isExpired',
  'isCancelled',
  'numDaysBeforeToInv',
  'LastModified',
  'SuspendedDate',
  'comp_Status',
  // Beyond the spec: a recurring invoice the bill run refused to bill, and why.
  'isParked',
  'ParkedReason',
  'CollectionMethod',
  'gatewayID',
  'customerPaymentMethodID',
  'InvoiceTerms',
  'InvoiceNotes',
  'Taxes',
  'RecurInvoiceCharges',
  'RecurInvoiceCharge',
];

const CHARGES = [
  { Descrip: 'Hosting', Qty: 3, UnitCostEx: 3.333 },
  { Descrip: 'Support', Qty: 1, UnitCostEx: '0.05' },
];

let referenceSeq = 0;
async function create(body: Record<string, unknown> = {}, as: TestAccount = t) {
  const res = await as.request('POST', '/v1/recurring-invoices', {
    body: { customerID, StartDate: '2026-04-01', RecurInvoiceCharges: CHARGES, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}
const read = async (id: number, as: TestAccount = t) =>
  (await as.request('GET', `/v1/recurring-invoices/${id}`)).body;
const count = async () => (await t.request('GET', '/v1/recurring-invoices?page_size=200')).body.length;
const fieldsOf = (res: { body: any }) => res.body.fields.map((f: { field: string }) => f.field);
const day = (date: string) => `${date}T00:00:00.000Z`;

describe('POST /v1/recurring-invoices', () => {
  it('creates one with every field of the spec, priced and scheduled, and reads it back the same', async () => {
    const reference = `RI-${++referenceSeq}`;
    const created = await create({
      reference,
      CurrencyCode: 'zar',
      Term: 2,
      TermType: 'Months',
      StartDate: '2026-04-01',
      EndDate: '01 Apr 2027',
      numDaysBeforeToInv: 5,
      CollectionMethod: 'EFT',
      InvoiceTerms: 'Net 30',
      InvoiceNotes: 'Thank you',
      Taxes: [{ Name: 'VAT', Perc: 0.15 }],
    });
    expect(Object.keys(created).sort()).toEqual([...SPEC_FIELDS].sort());
    const id = created.recurInvoiceID;
    // invoiceMath's example: 3 × 3.333 = 9.999 → 10.00, VAT 1.50 → 11.50; 1 × 0.05, VAT 0.0075 → 0.01 → 0.06.
    const charges = [
      {
        recurInvoiceChargeID: expect.any(Number),
        recurInvoiceID: id,
        Line: 1,
        Descrip: 'Hosting',
        Qty: 3,
        UnitCostEx: 3.333,
        AmountEx: 10,
        AmountInc: 11.5,
        DisplayOrder: 1,
      },
      {
        recurInvoiceChargeID: expect.any(Number),
        recurInvoiceID: id,
        Line: 2,
        Descrip: 'Support',
        Qty: 1,
        UnitCostEx: 0.05,
        AmountEx: 0.05,
        AmountInc: 0.06,
        DisplayOrder: 2,
      },
    ];
    expect(created).toEqual({
      recurInvoiceID: expect.any(Number),
      customerID,
      CurrencyCode: 'ZAR',
      Reference: reference,
      Term: 2,
      TermType: 'months',
      StartDate: day('2026-04-01'),
      EndDate: day('2027-04-01'),
      lastInvDate: null,
      lastRenewDate: null,
      nextRenewDate: day('2026-04-01'),
      isExpired: false,
      isCancelled: false,
      numDaysBeforeToInv: 5,
      LastModified: '2026-03-10T09:00:00.000Z',
      SuspendedDate: null,
      comp_Status: 'Future',
      isParked: false,
      ParkedReason: null,
      CollectionMethod: 'eft',
      gatewayID: null,
      customerPaymentMethodID: null,
      InvoiceTerms: 'Net 30',
      InvoiceNotes: 'Thank you',
      Taxes: [{ recurringinvoiceTaxID: expect.any(Number), recurringinvoiceID: id, Name: 'VAT', Perc: 0.15 }],
      RecurInvoiceCharges: charges,
      RecurInvoiceCharge: charges,
    });
    expect(await read(id)).toEqual(created);
  });

  it('fills defaults: Term 1 month, no days before, the customer’s currency, null for what was not given', async () => {
    const zarCustomer = (
      await t.request('POST', '/v1/customers', { body: { Name: 'Z', CurrencyCode: 'ZAR' } })
    ).body.customerID;
    const created = await create({ customerID: zarCustomer });
    expect(created).toMatchObject({
      CurrencyCode: 'ZAR',
      Term: 1,
      TermType: 'months',
      numDaysBeforeToInv: 0,
      Reference: null,
      EndDate: null,
      CollectionMethod: null,
      InvoiceTerms: null,
      InvoiceNotes: null,
      Taxes: [],
      comp_Status: 'Future',
    });
    expect((await create()).CurrencyCode).toBe('USD');
  });

  it('accepts the charges under the listing’s name RecurInvoiceCharge, and both names when they agree', async () => {
    const single = await create({ RecurInvoiceCharges: undefined, RecurInvoiceCharge: CHARGES });
    expect(single.RecurInvoiceCharges.map((c: any) => c.Descrip)).toEqual(['Hosting', 'Support']);
    const both = await create({ RecurInvoiceCharge: CHARGES });
    expect(both.RecurInvoiceCharges).toHaveLength(2);
  });

  it('reads StartDate in every wire shape as a calendar date', async () => {
    for (const given of ['2026-04-01', '01 Apr 2026', '2026-04-01T00:00:00Z', '2026-04-01T23:30:00+00:00']) {
      expect((await create({ StartDate: given })).StartDate, given).toBe(day('2026-04-01'));
    }
  });

  it('dates the next invoice numDaysBeforeToInv before the start, but never before today (creation)', async () => {
    const ahead = await create({ StartDate: '2026-04-01', numDaysBeforeToInv: 5 });
    expect(ahead.nextRenewDate).toBe(day('2026-04-01'));
    // Backdated: the first period (Jan 1) is billed from today on, with one invoice per period missed.
    const backdated = await create({ StartDate: '2026-01-01' });
    expect(backdated).toMatchObject({ nextRenewDate: day('2026-01-01'), comp_Status: 'Active' });
  });

  it.each([
    [{ StartDate: undefined }, 'StartDate'],
    [{ customerID: undefined }, 'customerID'],
    [{ StartDate: '2026-02-30' }, 'StartDate'],
    [{ StartDate: 'tomorrow' }, 'StartDate'],
    [{ StartDate: 20260401 }, 'StartDate'],
    [{ EndDate: '2026-03-31' }, 'EndDate'],
    [{ EndDate: '2026-04-01' }, 'EndDate'],
    [{ Term: 0 }, 'Term'],
    [{ Term: 1.5 }, 'Term'],
    [{ Term: 1001 }, 'Term'],
    [{ TermType: 'weeks' }, 'TermType'],
    [{ numDaysBeforeToInv: 366 }, 'numDaysBeforeToInv'],
    [{ numDaysBeforeToInv: -1 }, 'numDaysBeforeToInv'],
    [{ CurrencyCode: 'EUR' }, 'CurrencyCode'],
    [{ CurrencyCode: 'QQQ' }, 'CurrencyCode'],
    [{ RecurInvoiceCharges: undefined }, 'RecurInvoiceCharges'],
    [{ RecurInvoiceCharges: [] }, 'RecurInvoiceCharges'],
    [{ RecurInvoiceCharges: [{ Descrip: 'x', Qty: 0, UnitCostEx: 1 }] }, 'RecurInvoiceCharges[0].Qty'],
    [{ RecurInvoiceCharges: [{ Descrip: 'x', Qty: -2, UnitCostEx: 1 }] }, 'RecurInvoiceCharges[0].Qty'],
    [{ RecurInvoiceCharges: [{ Descrip: 'x', Qty: 1.23456, UnitCostEx: 1 }] }, 'RecurInvoiceCharges[0].Qty'],
    [{ RecurInvoiceCharges: [{ Descrip: 'x', Qty: 'two', UnitCostEx: 1 }] }, 'RecurInvoiceCharges[0].Qty'],
    [{ RecurInvoiceCharges: [{ Descrip: 'x', Qty: true, UnitCostEx: 1 }] }, 'RecurInvoiceCharges[0].Qty'],
    [
      { RecurInvoiceCharges: [{ Descrip: 'x', Qty: 1, UnitCostEx: 1.00001 }] },
      'RecurInvoiceCharges[0].UnitCostEx',
    ],
    // 0.1 + 0.2 is not 0.3 in binary: its shortest text has 17 decimals, refused rather than rounded.
    [
      { RecurInvoiceCharges: [{ Descrip: 'x', Qty: 1, UnitCostEx: 0.1 + 0.2 }] },
      'RecurInvoiceCharges[0].UnitCostEx',
    ],
    [
      { RecurInvoiceCharges: [{ Descrip: 'x', Qty: 1e9, UnitCostEx: 1e9 }] },
      'RecurInvoiceCharges[0].UnitCostEx',
    ],
    [{ RecurInvoiceCharges: [{ Descrip: '', Qty: 1, UnitCostEx: 1 }] }, 'RecurInvoiceCharges[0].Descrip'],
    [{ RecurInvoiceCharges: [{ Descrip: '   ', Qty: 1, UnitCostEx: 1 }] }, 'RecurInvoiceCharges[0].Descrip'],
    [{ RecurInvoiceCharges: [{ Qty: 1, UnitCostEx: 1 }] }, 'RecurInvoiceCharges[0].Descrip'],
    [{ RecurInvoiceCharges: [{ Descrip: 'Refund', Qty: 1, UnitCostEx: -5 }] }, 'RecurInvoiceCharges'],
    [
      {
        RecurInvoiceCharges: undefined,
        RecurInvoiceCharge: [CHARGES[0], { Descrip: 'y', Qty: 0, UnitCostEx: 1 }],
      },
      'RecurInvoiceCharge[1].Qty',
    ],
    [{ RecurInvoiceCharge: [CHARGES[0]] }, 'RecurInvoiceCharge'],
    [{ Taxes: [{ Name: 'VAT', Perc: 15 }] }, 'Taxes[0].Perc'],
    [{ Taxes: [{ Name: 'VAT', Perc: 0.1234567 }] }, 'Taxes[0].Perc'],
    [{ Taxes: [{ Name: ' ', Perc: 0.15 }] }, 'Taxes[0].Name'],
    [{ CollectionMethod: 'bitcoin' }, 'CollectionMethod'],
    [{ CollectionMethod: 'debit_order' }, 'gatewayID'],
    [{ gatewayID: 987654 }, 'gatewayID'],
    [{ customerPaymentMethodID: 5 }, 'customerPaymentMethodID'],
    [{ Reference: 'A', reference: 'B' }, 'reference'],
    [{ Reference: 'x'.repeat(101) }, 'Reference'],
  ])('refuses %j with 422 naming %s and creates nothing', async (bad, field) => {
    const before = await count();
    const res = await t.request('POST', '/v1/recurring-invoices', {
      body: { customerID, StartDate: '2026-04-01', RecurInvoiceCharges: CHARGES, ...bad },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(fieldsOf(res)).toContain(field);
    expect(await count()).toBe(before);
  });

  it('requires a payment method once a gateway is named, and refuses one the customer does not have', async () => {
    const gateways = (await t.request('GET', '/v1/gateways')).body;
    const gatewayID = gateways[0].gatewayID;
    const withGateway = await t.request('POST', '/v1/recurring-invoices', {
      body: {
        customerID,
        StartDate: '2026-04-01',
        RecurInvoiceCharges: CHARGES,
        CollectionMethod: 'credit_card',
        gatewayID,
      },
    });
    expect(withGateway.status).toBe(422);
    expect(fieldsOf(withGateway)).toEqual(['customerPaymentMethodID']);
    const withMethod = await t.request('POST', '/v1/recurring-invoices', {
      body: {
        customerID,
        StartDate: '2026-04-01',
        RecurInvoiceCharges: CHARGES,
        CollectionMethod: 'credit_card',
        gatewayID,
        customerPaymentMethodID: 1,
      },
    });
    expect(withMethod.status).toBe(422);
    expect(withMethod.body.fields).toEqual([
      { field: 'customerPaymentMethodID', message: `customer ${customerID} has no payment method 1` },
    ]);
  });

  it("answers 404 for a customer of another account or none, as for a path's id", async () => {
    for (const id of [otherCustomerID, 987654]) {
      const res = await t.request('POST', '/v1/recurring-invoices', {
        body: { customerID: id, StartDate: '2026-04-01', RecurInvoiceCharges: CHARGES },
      });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('customer_not_found');
    }
  });

  it('answers 409 when the Reference is taken in the account, and allows it in another account', async () => {
    const reference = `DUP-${++referenceSeq}`;
    await create({ Reference: reference });
    const res = await t.request('POST', '/v1/recurring-invoices', {
      body: { customerID, StartDate: '2026-04-01', RecurInvoiceCharges: CHARGES, reference },
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('reference_taken');
    await create({ Reference: reference, customerID: otherCustomerID }, other);
  });

  it('lets only one of concurrent creates with the same Reference through (the unique index decides)', async () => {
    const reference = `RACE-${++referenceSeq}`;
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        t.request('POST', '/v1/recurring-invoices', {
          body: { customerID, StartDate: '2026-04-01', RecurInvoiceCharges: CHARGES, Reference: reference },
        }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.code === 'reference_taken')).toBe(
      true,
    );
  });
});

describe('GET lists', () => {
  it('lists the account’s and a customer’s recurring invoices in creation order, paged', async () => {
    const fresh = await t.newAccount('Lists');
    const a = (await fresh.request('POST', '/v1/customers', { body: { Name: 'A' } })).body.customerID;
    const b = (await fresh.request('POST', '/v1/customers', { body: { Name: 'B' } })).body.customerID;
    const ids = [];
    for (const c of [a, b, a]) ids.push((await create({ customerID: c }, fresh)).recurInvoiceID);
    const all = await fresh.request('GET', '/v1/recurring-invoices');
    expect(all.status).toBe(200);
    expect(all.body.map((r: any) => r.recurInvoiceID)).toEqual(ids);
    expect(Object.keys(all.body[0]).sort()).toEqual([...SPEC_FIELDS].sort());
    const ofA = await fresh.request('GET', `/v1/customers/${a}/recurring-invoices`);
    expect(ofA.body.map((r: any) => r.recurInvoiceID)).toEqual([ids[0], ids[2]]);
    const page2 = await fresh.request('GET', '/v1/recurring-invoices?page=2&page_size=2');
    expect(page2.body.map((r: any) => r.recurInvoiceID)).toEqual([ids[2]]);
    expect((await fresh.request('GET', '/v1/recurring-invoices?page=3&page_size=2')).body).toEqual([]);
    for (const bad of ['page_size=201', 'page_size=0', 'page=0', 'page=x']) {
      const res = await fresh.request('GET', `/v1/recurring-invoices?${bad}`);
      expect(res.status, bad).toBe(422);
    }
  });

  it('answers 404 for the list of an unknown customer or another account’s', async () => {
    for (const id of [987654, otherCustomerID]) {
      const res = await t.request('GET', `/v1/customers/${id}/recurring-invoices`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('customer_not_found');
    }
  });

  it('reads a page in the same number of statements whatever its size', async () => {
    const fresh = await t.newAccount('Statements');
    const c = (await fresh.request('POST', '/v1/customers', { body: { Name: 'A' } })).body.customerID;
    for (let i = 0; i < 12; i++) await create({ customerID: c, Taxes: [{ Name: 'VAT', Perc: 0.15 }] }, fresh);
    const statements = async (path: string) => {
      t.queries.length = 0;
      const res = await fresh.request('GET', path);
      expect(res.status).toBe(200);
      return { count: t.queries.filter((q) => /from "recurring_invoice/.test(q)).length, body: res.body };
    };
    const one = await statements('/v1/recurring-invoices?page_size=1');
    const twelve = await statements('/v1/recurring-invoices?page_size=12');
    expect(twelve.body).toHaveLength(12);
    expect(twelve.body.every((r: any) => r.RecurInvoiceCharges.length === 2 && r.Taxes.length === 1)).toBe(
      true,
    );
    expect(one.count).toBe(3);
    expect(twelve.count).toBe(one.count);
  });
});

describe('PUT /v1/recurring-invoices/{id}', () => {
  it('changes the fields sent, keeps the others, and clears those sent as null', async () => {
    const created = await create({
      Reference: `E-${++referenceSeq}`,
      EndDate: '2027-01-01',
      InvoiceNotes: 'n',
    });
    const res = await t.request('PUT', `/v1/recurring-invoices/${created.recurInvoiceID}`, {
      body: { EndDate: null, InvoiceNotes: null, InvoiceTerms: 'Net 7', numDaysBeforeToInv: 3 },
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const after = await read(created.recurInvoiceID);
    expect(after).toMatchObject({
      EndDate: null,
      InvoiceNotes: null,
      InvoiceTerms: 'Net 7',
      numDaysBeforeToInv: 3,
      Reference: created.Reference,
      RecurInvoiceCharges: created.RecurInvoiceCharges,
    });
  });

  it('replaces the charges and the taxes when sent, pricing the charges with the new taxes', async () => {
    const created = await create({ Taxes: [{ Name: 'VAT', Perc: 0.15 }] });
    const id = created.recurInvoiceID;
    await t.request('PUT', `/v1/recurring-invoices/${id}`, {
      body: { RecurInvoiceCharges: [{ Descrip: 'Licence', Qty: 2, UnitCostEx: 12.5 }] },
    });
    let after = await read(id);
    expect(after.RecurInvoiceCharges).toEqual([
      expect.objectContaining({
        Line: 1,
        Descrip: 'Licence',
        Qty: 2,
        UnitCostEx: 12.5,
        AmountEx: 25,
        AmountInc: 28.75,
      }),
    ]);
    // Taxes alone: 25.00 × 0.1 = 2.50 → AmountInc 27.50.
    await t.request('PUT', `/v1/recurring-invoices/${id}`, {
      body: { Taxes: [{ Name: 'Levy', Perc: 0.1 }] },
    });
    after = await read(id);
    expect(after.Taxes).toEqual([expect.objectContaining({ Name: 'Levy', Perc: 0.1 })]);
    expect(after.RecurInvoiceCharges[0]).toMatchObject({ AmountEx: 25, AmountInc: 27.5 });
    await t.request('PUT', `/v1/recurring-invoices/${id}`, { body: { Taxes: [] } });
    expect((await read(id)).RecurInvoiceCharges[0]).toMatchObject({ AmountInc: 25 });
  });

  it('accepts the whole object as read back, including read-only fields, and changes nothing', async () => {
    const created = await create({ Taxes: [{ Name: 'VAT', Perc: 0.15 }], EndDate: '2027-04-01' });
    setToday('2026-03-11');
    const res = await t.request('PUT', `/v1/recurring-invoices/${created.recurInvoiceID}`, { body: created });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    const after = await read(created.recurInvoiceID);
    // Sent back, the lists are written anew (new line ids); everything else reads as before but LastModified.
    const withoutIds = (r: any) => ({
      ...r,
      LastModified: undefined,
      Taxes: r.Taxes.map(({ recurringinvoiceTaxID: _, ...tax }: any) => tax),
      RecurInvoiceCharges: r.RecurInvoiceCharges.map(({ recurInvoiceChargeID: _, ...charge }: any) => charge),
      RecurInvoiceCharge: undefined,
    });
    expect(withoutIds(after)).toEqual(withoutIds(created));
    expect(after.LastModified).toBe('2026-03-11T09:00:00.000Z');
  });

  it('moves the schedule before the first invoice', async () => {
    const created = await create({ StartDate: '2026-04-01' });
    await t.request('PUT', `/v1/recurring-invoices/${created.recurInvoiceID}`, {
      body: { StartDate: '2026-05-15', Term: 14, TermType: 'DAYS' },
    });
    expect(await read(created.recurInvoiceID)).toMatchObject({
      StartDate: day('2026-05-15'),
      nextRenewDate: day('2026-05-15'),
      Term: 14,
      TermType: 'days',
    });
  });

  it.each([
    [{ EndDate: '2026-04-01' }, 'EndDate'],
    [{ StartDate: '2027-05-01' }, 'EndDate'],
    [{ TermType: 'years' }, 'TermType'],
    [{ RecurInvoiceCharges: [{ Descrip: 'x', Qty: 0, UnitCostEx: 1 }] }, 'RecurInvoiceCharges[0].Qty'],
    [{ customerID: 987654 }, 'customerID'],
    [{ CurrencyCode: 'EUR' }, 'CurrencyCode'],
    [{ CollectionMethod: 'credit_card' }, 'gatewayID'],
  ])('refuses %j with 422 naming %s and changes nothing', async (bad, field) => {
    const created = await create({ EndDate: '2027-04-01', InvoiceNotes: 'kept' });
    const res = await t.request('PUT', `/v1/recurring-invoices/${created.recurInvoiceID}`, {
      body: { InvoiceNotes: 'changed', ...bad },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(fieldsOf(res)).toContain(field);
    expect(await read(created.recurInvoiceID)).toEqual(created);
  });

  it('answers 409 when the new Reference belongs to another one, and allows keeping its own', async () => {
    const first = await create({ Reference: `P-${++referenceSeq}` });
    const second = await create({ Reference: `P-${++referenceSeq}` });
    const path = `/v1/recurring-invoices/${second.recurInvoiceID}`;
    const res = await t.request('PUT', path, { body: { reference: first.Reference } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('reference_taken');
    expect((await t.request('PUT', path, { body: { Reference: second.Reference } })).status).toBe(204);
  });

  it('accepts an edit with no body as an edit of nothing, and answers 404 for an unknown id', async () => {
    const created = await create();
    expect((await t.request('PUT', `/v1/recurring-invoices/${created.recurInvoiceID}`)).status).toBe(204);
    expect((await t.request('PUT', '/v1/recurring-invoices/987654', { body: { Term: 2 } })).status).toBe(404);
    expect((await t.request('PUT', '/v1/recurring-invoices/abc', { body: {} })).status).toBe(422);
  });
});

describe('cancel, reactivate, delete', () => {
  it('cancels (no next dates, Cancelled), refuses a second cancel, and reactivates', async () => {
    const { recurInvoiceID } = await create();
    const path = `/v1/recurring-invoices/${recurInvoiceID}`;
    expect((await t.request('PUT', `${path}/cancel`)).status).toBe(204);
    expect(await read(recurInvoiceID)).toMatchObject({
      isCancelled: true,
      comp_Status: 'Cancelled',
      nextRenewDate: null,
    });
    const again = await t.request('PUT', `${path}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('recurring_invoice_cancelled');
    expect((await t.request('PUT', `${path}/reactivate`, { rawBody: '' })).status).toBe(204);
    expect(await read(recurInvoiceID)).toMatchObject({
      isCancelled: false,
      comp_Status: 'Future',
      nextRenewDate: day('2026-04-01'),
    });
    const notCancelled = await t.request('PUT', `${path}/reactivate`);
    expect(notCancelled.status).toBe(409);
    expect(notCancelled.body.code).toBe('recurring_invoice_not_cancelled');
  });

  it('deletes one that made no invoice', async () => {
    const { recurInvoiceID } = await create({ Taxes: [{ Name: 'VAT', Perc: 0.15 }] });
    expect((await t.request('DELETE', `/v1/recurring-invoices/${recurInvoiceID}`)).status).toBe(204);
    expect((await t.request('GET', `/v1/recurring-invoices/${recurInvoiceID}`)).status).toBe(404);
    expect((await t.request('DELETE', `/v1/recurring-invoices/${recurInvoiceID}`)).status).toBe(404);
  });

  it.each(['cancel', 'reactivate'])('answers 404 to %s of an unknown id', async (path) => {
    expect((await t.request('PUT', `/v1/recurring-invoices/987654/${path}`)).status).toBe(404);
  });
});

describe('comp_Status and isExpired follow the clock', () => {
  it('is Future before StartDate, Active from it, Expired from EndDate, Cancelled when cancelled', async () => {
    const { recurInvoiceID } = await create({ StartDate: '2026-03-20', EndDate: '2026-05-20' });
    const status = async () => {
      const r = await read(recurInvoiceID);
      return [r.comp_Status, r.isExpired];
    };
    expect(await status()).toEqual(['Future', false]);
    setToday('2026-03-20');
    expect(await status()).toEqual(['Active', false]);
    setToday('2026-05-19');
    expect(await status()).toEqual(['Active', false]);
    setToday('2026-05-20');
    expect(await status()).toEqual(['Expired', true]);
    await t.request('PUT', `/v1/recurring-invoices/${recurInvoiceID}/cancel`);
    expect(await status()).toEqual(['Cancelled', true]);
  });

  it('shows the customer’s SuspendedDate while the customer is suspended', async () => {
    const c = (await t.request('POST', '/v1/customers', { body: { Name: 'S' } })).body.customerID;
    const { recurInvoiceID } = await create({ customerID: c });
    await t.request('PUT', `/v1/customers/${c}/suspend`);
    const suspendedDate = (await t.request('GET', `/v1/customers/${c}`)).body.SuspendedDate;
    expect(suspendedDate).toBe('2026-03-10T09:00:00.000Z');
    expect((await read(recurInvoiceID)).SuspendedDate).toBe(suspendedDate);
    await t.request('PUT', `/v1/customers/${c}/unsuspend`);
    expect((await read(recurInvoiceID)).SuspendedDate).toBeNull();
  });
});

describe('time zones', () => {
  it('shows billing dates as the instant the day begins in the account’s zone, and reads them back', async () => {
    const made = await createAccount(t.service.storage.db, clock, {
      name: 'Joburg',
      timeZone: 'Africa/Johannesburg',
    });
    const headers = { authorization: `Bearer ${made.apiKey}`, 'content-type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(t.url + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    const c = (await call('POST', '/v1/customers', { Name: 'Z' })).body.customerID;
    const created = await call('POST', '/v1/recurring-invoices', {
      customerID: c,
      StartDate: '2026-04-01',
      RecurInvoiceCharges: CHARGES,
    });
    expect(created.status).toBe(201);
    expect(created.body.StartDate).toBe('2026-03-31T22:00:00.000Z');
    const sentBack = await call('PUT', `/v1/recurring-invoices/${created.body.recurInvoiceID}`, created.body);
    expect(sentBack.status).toBe(204);
    expect((await call('GET', `/v1/recurring-invoices/${created.body.recurInvoiceID}`)).body.StartDate).toBe(
      '2026-03-31T22:00:00.000Z',
    );
  });
});

describe('tenant isolation', () => {
  it("answers 404 to every operation on another account's recurring invoice and lists none of them", async () => {
    const theirs = await create({ customerID: otherCustomerID }, other);
    const path = `/v1/recurring-invoices/${theirs.recurInvoiceID}`;
    expect((await t.request('GET', path)).status).toBe(404);
    expect((await t.request('PUT', path, { body: { Term: 3 } })).status).toBe(404);
    expect((await t.request('PUT', `${path}/cancel`)).status).toBe(404);
    expect((await t.request('PUT', `${path}/reactivate`)).status).toBe(404);
    expect((await t.request('DELETE', path)).status).toBe(404);
    const mine = (await t.request('GET', '/v1/recurring-invoices?page_size=200')).body;
    expect(mine.some((r: any) => r.recurInvoiceID === theirs.recurInvoiceID)).toBe(false);
    expect(await read(theirs.recurInvoiceID, other)).toEqual(theirs);
  });
});

describe('billRecurringInvoice (the bill run’s call)', () => {
  const invoicesOf = async (as: TestAccount, ids: number[]) =>
    Promise.all(ids.map(async (id) => (await as.request('GET', `/v1/invoices/${id}`)).body));

  async function billingAccount(name: string) {
    const account = await t.newAccount(name);
    const c = (
      await account.request('POST', '/v1/customers', { body: { Name: 'Bill', autoSendInvoice: false } })
    ).body.customerID;
    return { account, customerID: c, ctx: await accountContext(t, account.accountId, clock) };
  }

  it('makes one invoice per period with exact amounts, catches up missed periods, and never twice', async () => {
    setToday('2026-01-15');
    const { account, customerID: c, ctx } = await billingAccount('Billing');
    const ri = await create(
      {
        customerID: c,
        StartDate: '2026-01-31',
        InvoiceNotes: 'Monthly hosting',
        InvoiceTerms: 'Net 7',
        CollectionMethod: 'eft',
        Taxes: [{ Name: 'VAT', Perc: 0.15 }],
      },
      account,
    );
    const id = ri.recurInvoiceID;
    expect(await billRecurringInvoice(ctx, id)).toEqual([]);
    expect(await listDueRecurringInvoiceIds(ctx, '2026-01-30', 10)).toEqual([]);
    expect(await listDueRecurringInvoiceIds(ctx, '2026-01-31', 10)).toEqual([id]);

    setToday('2026-01-31');
    const first = await billRecurringInvoice(ctx, id);
    expect(first).toHaveLength(1);
    expect(await billRecurringInvoice(ctx, id)).toEqual([]);

    // Three months later: Feb 28 (clamped), Mar 31 and Apr 30, one invoice each, dated on the period's start.
    setToday('2026-04-30');
    const later = await billRecurringInvoice(ctx, id);
    expect(later).toHaveLength(3);
    expect(await billRecurringInvoice(ctx, id)).toEqual([]);
    expect(await listDueRecurringInvoiceIds(ctx, '2026-04-30', 10)).toEqual([]);

    const invoices = await invoicesOf(account, [...first, ...later]);
    expect(invoices.map((i: any) => i.InvoiceDate)).toEqual(
      ['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30'].map(day),
    );
    for (const invoice of invoices) {
      // 3 × 3.333 = 9.999 → 10.00 + VAT 1.50 = 11.50; 1 × 0.05 + VAT 0.0075 → 0.01 = 0.06; Total 11.56.
      expect(invoice).toMatchObject({
        customerID: c,
        CurrencyCode: 'USD',
        Source: 'Auto',
        isDraft: false,
        isCancelled: false,
        Notes: 'Monthly hosting',
        Terms: 'Net 7',
        CollectionMethod: 'eft',
        Total: 11.56,
        Taxes: [expect.objectContaining({ Name: 'VAT', Perc: 0.15 })],
      });
      expect(
        invoice.Charges.map((ch: any) => [ch.Descrip, ch.Qty, ch.UnitCostEx, ch.AmountEx, ch.AmountInc]),
      ).toEqual([
        ['Hosting', 3, 3.333, 10, 11.5],
        ['Support', 1, 0.05, 0.05, 0.06],
      ]);
    }
    expect(new Set(invoices.map((i: any) => i.invoiceNum)).size).toBe(4);

    expect(await read(id, account)).toMatchObject({
      lastInvDate: day('2026-04-30'),
      lastRenewDate: day('2026-04-30'),
      nextRenewDate: day('2026-05-31'),
      comp_Status: 'Active',
    });
    const periods = await t.service.storage.db
      .selectFrom('recurring_invoice_periods')
      .select(['period_no', 'period_start', 'period_end', 'invoice_id'])
      .where('recurring_invoice_id', '=', id)
      .orderBy('period_no')
      .execute();
    expect(periods).toEqual([
      { period_no: 1, period_start: '2026-01-31', period_end: '2026-02-28', invoice_id: first[0] },
      { period_no: 2, period_start: '2026-02-28', period_end: '2026-03-31', invoice_id: later[0] },
      { period_no: 3, period_start: '2026-03-31', period_end: '2026-04-30', invoice_id: later[1] },
      { period_no: 4, period_start: '2026-04-30', period_end: '2026-05-31', invoice_id: later[2] },
    ]);

    // Once it has made invoices: its schedule is fixed, it cannot be deleted; the same values sent back pass.
    const path = `/v1/recurring-invoices/${id}`;
    const moved = await account.request('PUT', path, { body: { StartDate: '2026-02-01' } });
    expect(moved.status).toBe(409);
    expect(moved.body.code).toBe('recurring_invoice_schedule_fixed');
    expect((await account.request('PUT', path, { body: { Term: 2 } })).status).toBe(409);
    expect(
      (
        await account.request('PUT', path, {
          body: { StartDate: '31 Jan 2026', Term: 1, TermType: 'months' },
        })
      ).status,
    ).toBe(204);
    expect((await account.request('PUT', path, { body: { EndDate: '2026-12-31' } })).status).toBe(204);
    const deleted = await account.request('DELETE', path);
    expect(deleted.status).toBe(409);
    expect(deleted.body.code).toBe('recurring_invoice_has_invoices');
  });

  it('bills the last period cut by the EndDate in full, then nothing more', async () => {
    setToday('2026-01-01');
    const { account, customerID: c, ctx } = await billingAccount('EndDate');
    const ri = await create(
      {
        customerID: c,
        StartDate: '2026-01-01',
        EndDate: '2026-02-15',
        RecurInvoiceCharges: [{ Descrip: 'Fee', Qty: 1, UnitCostEx: 100 }],
      },
      account,
    );
    setToday('2026-06-01');
    const ids = await billRecurringInvoice(ctx, ri.recurInvoiceID);
    const invoices = await invoicesOf(account, ids);
    expect(invoices.map((i: any) => [i.InvoiceDate, i.Total])).toEqual([
      [day('2026-01-01'), 100],
      [day('2026-02-01'), 100],
    ]);
    expect(await read(ri.recurInvoiceID, account)).toMatchObject({
      comp_Status: 'Expired',
      isExpired: true,
      nextRenewDate: null,
      lastRenewDate: day('2026-02-01'),
    });
    expect(await billRecurringInvoice(ctx, ri.recurInvoiceID)).toEqual([]);
  });

  it('dates invoices numDaysBeforeToInv ahead of their period', async () => {
    setToday('2026-01-01');
    const { account, customerID: c, ctx } = await billingAccount('Ahead');
    const ri = await create({ customerID: c, StartDate: '2026-02-01', numDaysBeforeToInv: 10 }, account);
    setToday('2026-01-21');
    expect(await billRecurringInvoice(ctx, ri.recurInvoiceID)).toEqual([]);
    setToday('2026-01-22');
    const ids = await billRecurringInvoice(ctx, ri.recurInvoiceID);
    expect((await invoicesOf(account, ids)).map((i: any) => i.InvoiceDate)).toEqual([day('2026-01-22')]);
    // The next period starts Mar 1; its invoice is due 10 days before, Feb 19.
    expect(await listDueRecurringInvoiceIds(ctx, '2026-02-18', 10)).toEqual([]);
    expect(await listDueRecurringInvoiceIds(ctx, '2026-02-19', 10)).toEqual([ri.recurInvoiceID]);
  });

  it('makes nothing while cancelled, or while the customer is suspended or archived, and skips the time cancelled', async () => {
    setToday('2026-01-01');
    const { account, customerID: c, ctx } = await billingAccount('Stops');
    const ri = await create({ customerID: c, StartDate: '2026-01-01' }, account);
    const id = ri.recurInvoiceID;
    const path = `/v1/recurring-invoices/${id}`;
    expect(await billRecurringInvoice(ctx, id)).toHaveLength(1);

    setToday('2026-02-01');
    await account.request('PUT', `/v1/customers/${c}/suspend`);
    expect(await listDueRecurringInvoiceIds(ctx, '2026-02-01', 10)).toEqual([]);
    expect(await billRecurringInvoice(ctx, id)).toEqual([]);
    await account.request('PUT', `/v1/customers/${c}/unsuspend`);
    await account.request('PUT', `/v1/customers/${c}/archive`);
    expect(await listDueRecurringInvoiceIds(ctx, '2026-02-01', 10)).toEqual([]);
    expect(await billRecurringInvoice(ctx, id)).toEqual([]);
    await account.request('PUT', `/v1/customers/${c}/reopen`);
    expect(await listDueRecurringInvoiceIds(ctx, '2026-02-01', 10)).toEqual([id]);

    await account.request('PUT', `${path}/cancel`);
    expect(await listDueRecurringInvoiceIds(ctx, '2026-02-01', 10)).toEqual([]);
    expect(await billRecurringInvoice(ctx, id)).toEqual([]);

    // Reactivated on Apr 15: Feb 1, Mar 1 and Apr 1 fell due while cancelled and are not billed; May 1 is next.
    setToday('2026-04-15');
    await account.request('PUT', `${path}/reactivate`);
    expect(await read(id, account)).toMatchObject({
      nextRenewDate: day('2026-05-01'),
      comp_Status: 'Active',
    });
    expect(await billRecurringInvoice(ctx, id)).toEqual([]);
    setToday('2026-05-01');
    const ids = await billRecurringInvoice(ctx, id);
    expect((await invoicesOf(account, ids)).map((i: any) => i.InvoiceDate)).toEqual([day('2026-05-01')]);
    const periodNos = await t.service.storage.db
      .selectFrom('recurring_invoice_periods')
      .select('period_no')
      .where('recurring_invoice_id', '=', id)
      .orderBy('period_no')
      .execute();
    expect(periodNos.map((p) => p.period_no)).toEqual([1, 5]);
  });

  it('bills each period once when called concurrently', async () => {
    setToday('2026-01-01');
    const { account, customerID: c, ctx } = await billingAccount('Concurrent');
    const ri = await create({ customerID: c, StartDate: '2026-01-01' }, account);
    setToday('2026-06-15');
    const results = await Promise.all(
      Array.from({ length: 4 }, () => billRecurringInvoice(ctx, ri.recurInvoiceID)),
    );
    expect(results.flat()).toHaveLength(6);
    expect(results.filter((ids) => ids.length > 0)).toHaveLength(1);
    const all = (await account.request('GET', `/v1/customers/${c}/invoices`)).body;
    expect(all.map((i: any) => i.InvoiceDate)).toEqual(
      ['2026-01-01', '2026-02-01', '2026-03-01', '2026-04-01', '2026-05-01', '2026-06-01'].map(day),
    );
  });

  it("answers not found for another account's recurring invoice", async () => {
    const theirs = await create({ customerID: otherCustomerID }, other);
    const ctx = await accountContext(t, t.accountId, clock);
    await expect(billRecurringInvoice(ctx, theirs.recurInvoiceID)).rejects.toMatchObject({
      code: 'recurring_invoice_not_found',
    });
  });
});
