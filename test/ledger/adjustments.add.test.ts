import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { customerBalance, fieldsOf, other, t } from './fixtures.ts';
import {
  add,
  addNegative,
  addPositive,
  createInvoice,
  detail,
  figures,
  NEGATIVE_DETAIL_FIELDS,
  negativeBody,
  POSITIVE_DETAIL_FIELDS,
  positiveBody,
  ref,
  useAdjustmentsService,
} from './adjustments.fixtures.ts';

useAdjustmentsService();

describe('POST /v1/adjustment/add', () => {
  it('adds a positive adjustment: 201 {isSuccess, AdjustmentID, Type}, Unpaid, and the customer owes it', async () => {
    const customerID = await createCustomer(t);
    const reference = ref('OB');
    const res = await add(positiveBody(customerID, { Ref: reference, Amount: '50.25' }));
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({ isSuccess: true, AdjustmentID: expect.any(Number), Type: 'positive' });

    const adjustment = await detail('positive', res.body.AdjustmentID, customerID);
    expect(Object.keys(adjustment).sort()).toEqual(POSITIVE_DETAIL_FIELDS);
    expect(adjustment).toEqual({
      customerID,
      positiveAdjustmentID: res.body.AdjustmentID,
      positiveAdjustmentType: 'opening_balance',
      Date: '2026-03-02T00:00:00.000Z',
      DueDate: '2026-03-20T00:00:00.000Z',
      Amount: 50.25,
      CurrencyCode: 'USD',
      Status: 'Unpaid',
      isActive: true,
      isSuccess: true,
      Ref: reference,
      Memo: 'Carried over',
      allocations: [],
    });
    expect(await customerBalance(customerID)).toBe(50.25);
  });

  it('adds an unallocated negative adjustment: Unallocated, and the customer owes less', async () => {
    const customerID = await createCustomer(t);
    const reference = ref('CN');
    const res = await add(
      negativeBody(customerID, { Ref: reference, Amount: 30, AdjustmentType: 'bad_debt' }),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({ isSuccess: true, AdjustmentID: expect.any(Number), Type: 'negative' });

    const adjustment = await detail('negative', res.body.AdjustmentID, customerID);
    expect(Object.keys(adjustment).sort()).toEqual(NEGATIVE_DETAIL_FIELDS);
    expect(adjustment).toEqual({
      customerID,
      NegativeAdjustmentID: res.body.AdjustmentID,
      NegativeAdjustmentType: 'bad_debt',
      Date: '2026-03-05T00:00:00.000Z',
      Amount: 30,
      CurrencyCode: 'USD',
      Status: 'Unallocated',
      isActive: true,
      isSuccess: true,
      Ref: reference,
      Memo: 'Goodwill',
      allocations: [],
    });
    expect(await customerBalance(customerID)).toBe(-30);
  });

  it.each([
    ['positive', 'opening_balance'],
    ['positive', 'refund'],
    ['positive', 'interest'],
    ['negative', 'credit_note'],
    ['negative', 'bad_debt'],
  ])('accepts a %s adjustment of type %s', async (type, adjustmentType) => {
    const customerID = await createCustomer(t);
    const body =
      type === 'positive'
        ? positiveBody(customerID, { AdjustmentType: adjustmentType })
        : negativeBody(customerID, { AdjustmentType: adjustmentType });
    const { AdjustmentID } = await ok(t, 'POST', '/v1/adjustment/add', body);
    const adjustment = await detail(type as 'positive' | 'negative', AdjustmentID, customerID);
    expect(adjustment[type === 'positive' ? 'positiveAdjustmentType' : 'NegativeAdjustmentType']).toBe(
      adjustmentType,
    );
  });

  it.each([
    ['positive', 'credit_note'],
    ['positive', 'bad_debt'],
    ['negative', 'opening_balance'],
    ['negative', 'refund'],
    ['negative', 'interest'],
    ['positive', 'gift'],
  ])('refuses a %s adjustment of type %s with a 422 naming AdjustmentType', async (type, adjustmentType) => {
    const customerID = await createCustomer(t);
    const body =
      type === 'positive'
        ? positiveBody(customerID, { AdjustmentType: adjustmentType })
        : negativeBody(customerID, { AdjustmentType: adjustmentType });
    const res = await add(body);
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res)).toEqual(['AdjustmentType']);
  });

  it('requires DueDate and Ref for a positive adjustment, and a DueDate not before Date', async () => {
    const customerID = await createCustomer(t);
    const missing = await add(positiveBody(customerID, { DueDate: undefined, Ref: undefined }));
    expect(missing.status).toBe(422);
    expect(fieldsOf(missing)).toEqual(['DueDate', 'Ref']);

    const blank = await add(positiveBody(customerID, { DueDate: null, Ref: '  ' }));
    expect(blank.status).toBe(422);
    expect(fieldsOf(blank)).toEqual(['DueDate', 'Ref']);

    const early = await add(positiveBody(customerID, { Date: '2026-03-10', DueDate: '2026-03-09' }));
    expect(early.status).toBe(422);
    expect(fieldsOf(early)).toEqual(['DueDate']);
  });

  it('accepts DD Mon YYYY dates', async () => {
    const customerID = await createCustomer(t);
    const id = await addPositive(customerID, { Date: '02 Mar 2026', DueDate: '20 Apr 2026' });
    expect(await detail('positive', id, customerID)).toMatchObject({
      Date: '2026-03-02T00:00:00.000Z',
      DueDate: '2026-04-20T00:00:00.000Z',
    });
  });

  it('requires Ref and, without AutoApply, an allocation list for a negative adjustment', async () => {
    const customerID = await createCustomer(t);
    const res = await add(negativeBody(customerID, { Ref: undefined, Allocations: undefined }));
    expect(res.status).toBe(422);
    expect(fieldsOf(res)).toEqual(['Ref', 'Allocations']);
    // A DueDate sent with a negative adjustment is accepted and not kept.
    const id = await addNegative(customerID, { DueDate: '2026-04-01' });
    const list = await ok(t, 'GET', `/v1/adjustment/list?type=negative&customerID=${customerID}`);
    expect(list.adjustments.map((a: any) => [a.adjustmentID, a.DueDate])).toEqual([[id, null]]);
  });

  it('is in the customer’s currency; a CurrencyCode sent must be that one', async () => {
    const customerID = await createCustomer(t, { CurrencyCode: 'ZAR' });
    const id = await addPositive(customerID, { Amount: 99.99 });
    expect(await detail('positive', id, customerID)).toMatchObject({ CurrencyCode: 'ZAR', Amount: 99.99 });
    await addPositive(customerID, { CurrencyCode: 'ZAR' });
    await addPositive(customerID, { CurrencyCode: 'zar' });
    const res = await add(positiveBody(customerID, { CurrencyCode: 'USD' }));
    expect(res.status).toBe(422);
    expect(fieldsOf(res)).toEqual(['CurrencyCode']);
    expect(await customerBalance(customerID)).toBe(99.99 + 50 + 50);
  });

  it.each([
    [{ Amount: 0 }, 'Amount'],
    [{ Amount: -5 }, 'Amount'],
    [{ Amount: 10.005 }, 'Amount'],
    [{ Amount: 'ten' }, 'Amount'],
    [{ Amount: true }, 'Amount'],
    [{ Amount: undefined }, 'Amount'],
    [{ Date: 'yesterday' }, 'Date'],
    [{ Date: undefined }, 'Date'],
    [{ DueDate: '2026-13-01' }, 'DueDate'],
    [{ Type: 'sideways' }, 'Type'],
    [{ Type: undefined }, 'Type'],
    [{ AdjustmentType: undefined }, 'AdjustmentType'],
    [{ customerID: undefined }, 'customerID'],
    [{ customerID: 'one' }, 'customerID'],
    [{ Ref: 'x'.repeat(256) }, 'Ref'],
    [{ Memo: 'x'.repeat(1001) }, 'Memo'],
    [{ AutoApply: true }, 'AutoApply'],
    [{ isAutoApply: true }, 'isAutoApply'],
    [{ Allocations: [{ objectID: 1, AmtAllocated: 1 }] }, 'Allocations'],
    [{ LinkedAllocations: [{ objectID: 1, AmtAllocated: 1 }] }, 'LinkedAllocations'],
  ])('refuses a positive adjustment with %o: 422 naming %s', async (change, field) => {
    const customerID = await createCustomer(t);
    const res = await add(positiveBody(customerID, change));
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res)).toEqual([field]);
    expect(await customerBalance(customerID)).toBe(0);
  });

  it('answers 404 for a customer it cannot see, its own or another account’s', async () => {
    const theirs = await createCustomer(other);
    expect((await add(positiveBody(theirs))).status).toBe(404);
    expect((await add(positiveBody(99_999_999))).status).toBe(404);
    expect((await add(negativeBody(theirs, { AutoApply: true }))).body.code).toBe('customer_not_found');
  });

  it('replays the first response for the same Idempotency-Key and body, and refuses another body', async () => {
    const customerID = await createCustomer(t);
    const headers = { 'Idempotency-Key': `adjustment-${ref()}` };
    const body = positiveBody(customerID);
    const first = await t.request('POST', '/v1/adjustment/add', { body, headers });
    expect(first.status).toBe(201);
    const again = await t.request('POST', '/v1/adjustment/add', { body, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const changed = await t.request('POST', '/v1/adjustment/add', {
      body: { ...body, Amount: 51 },
      headers,
    });
    expect(changed.status).toBe(409);
    const list = await ok(t, 'GET', `/v1/adjustment/list?type=all&customerID=${customerID}`);
    expect(list.adjustments).toHaveLength(1);
    expect(await customerBalance(customerID)).toBe(50);
  });
});

describe('negative adjustment allocations', () => {
  it('allocates to an invoice (isAdjustment false) and moves its TotalNegativeAdjs, Balance and ActualBalance', async () => {
    const customerID = await createCustomer(t);
    const invoice = await createInvoice(customerID, 100);
    expect(await customerBalance(customerID)).toBe(100);
    const id = await addNegative(customerID, {
      Amount: 30,
      Allocations: [{ objectID: invoice.invoiceID, AmtAllocated: 25, isAdjustment: false }],
    });
    // 100 − 25 allocated = 75 open on the invoice; 30 − 25 = 5 unallocated credit: 75 − 5 = 70 owed.
    expect(await figures(invoice.invoiceID)).toEqual({
      TotalNegativeAdjs: 25,
      Balance: 75,
      ActualBalance: 75,
      Status: 'Due',
    });
    expect(await customerBalance(customerID)).toBe(70);

    const adjustment = await detail('negative', id, customerID);
    expect(adjustment.Status).toBe('Partially Allocated');
    expect(adjustment.allocations).toEqual([
      {
        allocationID: expect.any(Number),
        objectID: invoice.invoiceID,
        amountApplied: 25,
        isAdjustment: false,
      },
    ]);
    const inv = await ok(t, 'GET', `/v1/invoices/${invoice.invoiceID}`);
    expect(inv.NegativeAdjustmentsApplied).toEqual([
      {
        allocationID: adjustment.allocations[0].allocationID,
        objectID: invoice.invoiceID,
        NegativeAdjustmentID: id,
        creditNoteID: 0,
        amountApplied: 25,
      },
    ]);
    expect(inv.PaymentsApplied).toEqual([]);
  });

  it('is Allocated when its allocations cover it, and can settle an invoice', async () => {
    const customerID = await createCustomer(t);
    const invoice = await createInvoice(customerID, 40);
    const id = await addNegative(customerID, {
      Amount: 40,
      Allocations: [{ objectID: invoice.invoiceID, amountApplied: 40 }],
    });
    expect((await detail('negative', id, customerID)).Status).toBe('Allocated');
    expect(await figures(invoice.invoiceID)).toEqual({
      TotalNegativeAdjs: 40,
      Balance: 0,
      ActualBalance: 0,
      Status: 'Paid',
    });
    expect(await customerBalance(customerID)).toBe(0);
  });

  it('allocates to a positive adjustment (isAdjustment true), seen from both sides', async () => {
    const customerID = await createCustomer(t);
    const positive = await addPositive(customerID, { Amount: 50 });
    const negative = await addNegative(customerID, {
      Amount: 20,
      Allocations: [{ objectID: positive, AmtAllocated: 20, isAdjustment: true }],
    });
    const n = await detail('negative', negative, customerID);
    expect(n.Status).toBe('Allocated');
    expect(n.allocations).toEqual([
      { allocationID: expect.any(Number), objectID: positive, amountApplied: 20, isAdjustment: true },
    ]);
    const p = await detail('positive', positive, customerID);
    expect(p.Status).toBe('Partially Paid');
    expect(p.allocations).toEqual([
      {
        allocationID: n.allocations[0].allocationID,
        objectID: negative,
        amountApplied: 20,
        isAdjustment: true,
      },
    ]);
    // 50 − 20 still open on the positive adjustment; the negative one is spent.
    expect(await customerBalance(customerID)).toBe(30);
  });

  it.each([
    ['LinkedAllocations', 'AmtAllocated'],
    ['Allocations', 'amountApplied'],
    ['allocations', 'AmtAllocated'],
    ['allocations', 'amountApplied'],
  ])('reads the list under %s with the amount as %s', async (listKey, amountKey) => {
    const customerID = await createCustomer(t);
    const invoice = await createInvoice(customerID, 100);
    const id = await addNegative(customerID, {
      Allocations: undefined,
      [listKey]: [{ objectID: invoice.invoiceID, [amountKey]: '12.34', isAdjustment: false }],
    });
    expect((await detail('negative', id, customerID)).allocations).toMatchObject([
      { objectID: invoice.invoiceID, amountApplied: 12.34, isAdjustment: false },
    ]);
    expect((await figures(invoice.invoiceID)).TotalNegativeAdjs).toBe(12.34);
  });

  it('prefers LinkedAllocations when several lists are sent (a detail sent back carries its own allocations)', async () => {
    const customerID = await createCustomer(t);
    const a = await createInvoice(customerID, 100);
    const b = await createInvoice(customerID, 100);
    const id = await addNegative(customerID, {
      LinkedAllocations: [{ objectID: a.invoiceID, AmtAllocated: 10 }],
      Allocations: [{ objectID: b.invoiceID, AmtAllocated: 10 }],
      allocations: [{ objectID: b.invoiceID, AmtAllocated: 10 }],
    });
    expect((await detail('negative', id, customerID)).allocations).toMatchObject([{ objectID: a.invoiceID }]);
  });

  it.each([['AutoApply'], ['isAutoApply']])(
    'applies with %s to the earliest invoices and positive adjustments, by date, ignoring any list',
    async (key) => {
      const customerID = await createCustomer(t);
      const late = await createInvoice(customerID, 40, '2026-03-08');
      const early = await createInvoice(customerID, 30, '2026-03-04');
      const positive = await addPositive(customerID, { Amount: 20, Date: '2026-03-02' });
      const sameDay = await addPositive(customerID, { Amount: 5, Date: '2026-03-04' });
      const untouched = await createInvoice(customerID, 10, '2026-03-09');
      expect(await customerBalance(customerID)).toBe(105);
      const id = await addNegative(customerID, {
        AutoApply: undefined,
        [key]: true,
        Amount: 70,
        Allocations: [{ objectID: untouched.invoiceID, AmtAllocated: 10 }],
      });
      // Order: positive (03-02), invoice early (03-04; invoices before adjustments on one day), sameDay (03-04),
      // invoice late (03-08): 20 + 30 + 5 = 55, then 15 of the 40 on late; 70 spent.
      const n = await detail('negative', id, customerID);
      expect(n.Status).toBe('Allocated');
      expect(n.allocations.map((a: any) => [a.objectID, a.isAdjustment, a.amountApplied])).toEqual([
        [positive, true, 20],
        [early.invoiceID, false, 30],
        [sameDay, true, 5],
        [late.invoiceID, false, 15],
      ]);
      expect((await detail('positive', positive, customerID)).Status).toBe('Paid');
      expect((await detail('positive', sameDay, customerID)).Status).toBe('Paid');
      expect(await figures(early.invoiceID)).toMatchObject({
        TotalNegativeAdjs: 30,
        Balance: 0,
        Status: 'Paid',
      });
      expect(await figures(late.invoiceID)).toMatchObject({ TotalNegativeAdjs: 15, Balance: 25 });
      expect(await figures(untouched.invoiceID)).toMatchObject({ TotalNegativeAdjs: 0, Balance: 10 });
      expect(await customerBalance(customerID)).toBe(35);
    },
  );

  it('AutoApply keeps what is left unallocated when everything is settled', async () => {
    const customerID = await createCustomer(t);
    const invoice = await createInvoice(customerID, 10);
    const id = await addNegative(customerID, { AutoApply: true, Allocations: undefined, Amount: 25 });
    expect(await detail('negative', id, customerID)).toMatchObject({
      Status: 'Partially Allocated',
      allocations: [{ objectID: invoice.invoiceID, amountApplied: 10, isAdjustment: false }],
    });
    expect(await customerBalance(customerID)).toBe(-15);
  });

  it('refuses allocations beyond the invoice, beyond its own amount, or to what it cannot allocate to', async () => {
    const customerID = await createCustomer(t);
    const otherCustomer = await createCustomer(t);
    const invoice = await createInvoice(customerID, 20);
    const theirInvoice = await createInvoice(otherCustomer, 20);
    const draft = await ok(t, 'POST', '/v1/invoices', {
      customerID,
      isDraft: true,
      Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: 5 }],
    });
    const negative = await addNegative(customerID, { Amount: 5 });
    const theirPositive = await addPositive(otherCustomer);
    const cases: [Record<string, unknown>, string][] = [
      [{ Allocations: [{ objectID: invoice.invoiceID, AmtAllocated: 21 }], Amount: 30 }, 'Allocations[0]'],
      [{ Allocations: [{ objectID: invoice.invoiceID, AmtAllocated: 20 }], Amount: 10 }, 'Allocations[0]'],
      [{ Allocations: [{ objectID: invoice.invoiceID, AmtAllocated: 0 }] }, 'Allocations[0].AmtAllocated'],
      [
        { Allocations: [{ objectID: invoice.invoiceID, AmtAllocated: 1.001 }] },
        'Allocations[0].AmtAllocated',
      ],
      [{ Allocations: [{ AmtAllocated: 1 }] }, 'Allocations[0].objectID'],
      [{ Allocations: [{ objectID: invoice.invoiceID }] }, 'Allocations[0].amountApplied'],
      [{ Allocations: [{ objectID: theirInvoice.invoiceID, AmtAllocated: 1 }] }, 'Allocations[0]'],
      [{ Allocations: [{ objectID: draft.invoiceID, AmtAllocated: 1 }] }, 'Allocations[0]'],
      [{ Allocations: [{ objectID: 99_999_999, AmtAllocated: 1 }] }, 'Allocations[0].objectID'],
      [{ Allocations: [{ invoiceID: 99_999_999, AmtAllocated: 1 }] }, 'Allocations[0].invoiceID'],
      [{ Allocations: [{ objectID: negative, AmtAllocated: 1, isAdjustment: true }] }, 'Allocations[0]'],
      [{ Allocations: [{ objectID: theirPositive, AmtAllocated: 1, isAdjustment: true }] }, 'Allocations[0]'],
      [{ Allocations: [{ objectID: 99_999_999, AmtAllocated: 1, isAdjustment: true }] }, 'Allocations[0]'],
      [{ Allocations: [{ objectID: 'one', AmtAllocated: 1 }] }, 'Allocations[0].objectID'],
    ];
    for (const [change, field] of cases) {
      const res = await add(negativeBody(customerID, change));
      expect(res.status, `${JSON.stringify(change)}: ${res.text}`).toBe(422);
      expect(fieldsOf(res), JSON.stringify(change)).toEqual([field]);
    }
    // Nothing was written: the invoice, the customer and the list are as before.
    expect(await figures(invoice.invoiceID)).toMatchObject({ TotalNegativeAdjs: 0, Balance: 20 });
    expect(await customerBalance(customerID)).toBe(20 - 5);
    const list = await ok(t, 'GET', `/v1/adjustment/list?type=negative&customerID=${customerID}`);
    expect(list.adjustments.map((a: any) => a.adjustmentID)).toEqual([negative]);
  });
});
