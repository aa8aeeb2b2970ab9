import { describe, expect, it } from 'vitest';
import {
  CHARGES,
  count,
  create,
  customerID,
  day,
  fieldsOf,
  other,
  otherCustomerID,
  read,
  SPEC_FIELDS,
  t,
  useRecurringInvoiceService,
} from './recurringInvoices.fixtures.ts';

useRecurringInvoiceService();

let referenceSeq = 0;

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
