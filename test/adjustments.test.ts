import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, movableClock, ok } from './helpers/billing.ts';
import { startTestService } from './helpers/service.ts';
import type { ApiResponse, TestAccount, TestService } from './helpers/service.ts';

const NOW = '2026-03-10T10:00:00.000Z';
const clock = movableClock(NOW);
let t: TestService;
let other: TestAccount;

beforeAll(async () => {
  t = await startTestService({ clock });
  other = await t.newAccount();
  await ok(t, 'POST', '/v1/currencies', { CurrencyCode: 'ZAR' });
});
afterAll(async () => {
  await t?.close();
});

let sequence = 0;
const ref = (label = 'ADJ') => `${label}-${++sequence}`;

const fieldsOf = (res: ApiResponse): string[] =>
  (res.body.fields ?? []).map((f: { field: string }) => f.field);

/** An issued invoice of one line (no tax): its Total is `amount`. */
async function createInvoice(
  customerID: number,
  amount: number,
  invoiceDate = '2026-03-01',
  as: TestAccount = t,
): Promise<any> {
  return ok(as, 'POST', '/v1/invoices', {
    customerID,
    InvoiceDate: invoiceDate,
    DueDate: '2026-03-31',
    Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: amount }],
  });
}

/** The figures of an invoice that negative adjustments move. */
async function figures(invoiceID: number) {
  const inv = await ok(t, 'GET', `/v1/invoices/${invoiceID}`);
  return {
    TotalNegativeAdjs: inv.TotalNegativeAdjs,
    Balance: inv.Balance,
    ActualBalance: inv.ActualBalance,
    Status: inv.Status,
  };
}

const customerBalance = async (customerID: number, as: TestAccount = t) =>
  (await ok(as, 'GET', `/v1/customers/${customerID}`)).Balance as number;

function positiveBody(customerID: number, body: Record<string, unknown> = {}) {
  return {
    AdjustmentType: 'opening_balance',
    customerID,
    Type: 'positive',
    Amount: 50,
    Date: '2026-03-02',
    DueDate: '2026-03-20',
    Ref: ref('OB'),
    Memo: 'Carried over',
    ...body,
  };
}

function negativeBody(customerID: number, body: Record<string, unknown> = {}) {
  return {
    AdjustmentType: 'credit_note',
    customerID,
    Type: 'negative',
    Amount: 30,
    Date: '2026-03-05',
    Ref: ref('CN'),
    Memo: 'Goodwill',
    AutoApply: false,
    Allocations: [],
    ...body,
  };
}

const add = (body: Record<string, unknown>, as: TestAccount = t) =>
  as.request('POST', '/v1/adjustment/add', { body });

async function addPositive(customerID: number, body: Record<string, unknown> = {}): Promise<number> {
  return (await ok(t, 'POST', '/v1/adjustment/add', positiveBody(customerID, body))).AdjustmentID;
}

async function addNegative(customerID: number, body: Record<string, unknown> = {}): Promise<number> {
  return (await ok(t, 'POST', '/v1/adjustment/add', negativeBody(customerID, body))).AdjustmentID;
}

const getRes = (type: string, id: number, customerID: number, as: TestAccount = t) =>
  as.request('GET', `/v1/adjustment/get?type=${type}&adjustmentID=${id}&customerID=${customerID}`);

async function detail(type: 'positive' | 'negative', id: number, customerID: number): Promise<any> {
  const res = await getRes(type, id, customerID);
  expect(res.status, res.text).toBe(200);
  expect(res.body.isSuccess).toBe(true);
  expect(res.body.type).toBe(type);
  return res.body.adjustment;
}

const edit = (body: Record<string, unknown>, as: TestAccount = t) =>
  as.request('PUT', '/v1/adjustment/edit', { body });

const pay = (customerID: number, amount: number, allocations: unknown[]) =>
  ok(t, 'POST', '/v1/payments', {
    customerID,
    Amount: amount,
    CurrencyCode: 'USD',
    Date: '2026-03-06',
    Method: 'cash',
    allocations,
  });

const POSITIVE_DETAIL_FIELDS = [
  'customerID',
  'positiveAdjustmentID',
  'positiveAdjustmentType',
  'Date',
  'DueDate',
  'Amount',
  'CurrencyCode',
  'Status',
  'isActive',
  'isSuccess',
  'Ref',
  'Memo',
  'allocations',
].sort();

const NEGATIVE_DETAIL_FIELDS = [
  'customerID',
  'NegativeAdjustmentID',
  'NegativeAdjustmentType',
  'Date',
  'Amount',
  'CurrencyCode',
  'Status',
  'isActive',
  'isSuccess',
  'Ref',
  'Memo',
  'allocations',
].sort();

const LIST_ENTRY_FIELDS = [
  'adjustmentID',
  'customerID',
  'Date',
  'DueDate',
  'CurrencyCode',
  'Amount',
  'Ref',
  'Memo',
  'AdjustmentType',
  'Type',
].sort();

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

describe('positive adjustment status', () => {
  it('goes Unpaid → Partially Paid → Paid as payments are allocated to it', async () => {
    const customerID = await createCustomer(t);
    const id = await addPositive(customerID, { Amount: 50 });
    expect((await detail('positive', id, customerID)).Status).toBe('Unpaid');
    expect(await customerBalance(customerID)).toBe(50);

    const first = await pay(customerID, 20, [{ positiveAdjustmentID: id, amountApplied: 20 }]);
    let adjustment = await detail('positive', id, customerID);
    expect(adjustment.Status).toBe('Partially Paid');
    expect(adjustment.allocations).toEqual([
      {
        allocationID: first.allocations[0].allocationID,
        objectID: first.paymentID,
        amountApplied: 20,
        isAdjustment: false,
      },
    ]);
    expect(await customerBalance(customerID)).toBe(30);

    const second = await pay(customerID, 30, [{ positiveAdjustmentID: id, amountApplied: 30 }]);
    adjustment = await detail('positive', id, customerID);
    expect(adjustment.Status).toBe('Paid');
    expect(adjustment.allocations.map((a: any) => [a.objectID, a.amountApplied])).toEqual([
      [first.paymentID, 20],
      [second.paymentID, 30],
    ]);
    expect(await customerBalance(customerID)).toBe(0);
  });

  it('is Past Due once the clock passes its DueDate, unless it is Paid', async () => {
    const customerID = await createCustomer(t);
    const unpaid = await addPositive(customerID, { Amount: 10, DueDate: '2026-03-15' });
    const partly = await addPositive(customerID, { Amount: 10, DueDate: '2026-03-15' });
    const paid = await addPositive(customerID, { Amount: 10, DueDate: '2026-03-15' });
    await pay(customerID, 15, [
      { positiveAdjustmentID: partly, amountApplied: 5 },
      { positiveAdjustmentID: paid, amountApplied: 10 },
    ]);
    const statuses = async () =>
      Promise.all(
        [unpaid, partly, paid].map(async (id) => (await detail('positive', id, customerID)).Status),
      );
    try {
      clock.set('2026-03-15T23:59:59.000Z');
      expect(await statuses()).toEqual(['Unpaid', 'Partially Paid', 'Paid']);
      clock.set('2026-03-16T00:00:00.000Z');
      expect(await statuses()).toEqual(['Past Due', 'Past Due', 'Paid']);
    } finally {
      clock.set(NOW);
    }
  });

  it('reads today in the account’s time zone', async () => {
    const auckland = await t.newAccount('Auckland', { timeZone: 'Pacific/Auckland' });
    const customerID = await createCustomer(auckland);
    const { AdjustmentID } = await ok(
      auckland,
      'POST',
      '/v1/adjustment/add',
      positiveBody(customerID, {
        Date: '2026-03-01',
        DueDate: '2026-03-10',
      }),
    );
    const status = async () =>
      (await getRes('positive', AdjustmentID, customerID, auckland)).body.adjustment.Status;
    try {
      // 2026-03-10T10:00Z is 23:00 on the 10th in Auckland (UTC+13): due today, not past due.
      expect(await status()).toBe('Unpaid');
      // 2026-03-10T12:00Z is already the 11th there (while still the 10th in UTC).
      clock.set('2026-03-10T12:00:00.000Z');
      expect(await status()).toBe('Past Due');
    } finally {
      clock.set(NOW);
    }
    // Dates are that zone's midnight.
    expect((await getRes('positive', AdjustmentID, customerID, auckland)).body.adjustment).toMatchObject({
      Date: '2026-02-28T11:00:00.000Z',
      DueDate: '2026-03-09T11:00:00.000Z',
    });
  });
});

describe('GET /v1/adjustment/list', () => {
  let account: TestAccount;
  let first: number;
  let second: number;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    account = await t.newAccount('Lists');
    first = await createCustomer(account);
    second = await createCustomer(account);
    const addAs = async (body: Record<string, unknown>) =>
      (await ok(account, 'POST', '/v1/adjustment/add', body)).AdjustmentID as number;
    ids.p1 = await addAs(positiveBody(first, { Ref: 'P1', Memo: null }));
    ids.n1 = await addAs(negativeBody(first, { Ref: 'N1' }));
    ids.p2 = await addAs(positiveBody(second, { Ref: 'P2', AdjustmentType: 'refund' }));
    ids.n2 = await addAs(negativeBody(second, { Ref: 'N2', AdjustmentType: 'bad_debt' }));
    ids.p3 = await addAs(positiveBody(first, { Ref: 'P3', AdjustmentType: 'interest', Amount: 1.5 }));
  });

  const list = (query: string) => account.request('GET', `/v1/adjustment/list?${query}`);

  it('answers {isSuccess, adjustments} with the spec’s list entries, in creation order', async () => {
    const res = await list('type=all');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['adjustments', 'isSuccess']);
    expect(res.body.isSuccess).toBe(true);
    for (const entry of res.body.adjustments) expect(Object.keys(entry).sort()).toEqual(LIST_ENTRY_FIELDS);
    expect(res.body.adjustments[0]).toEqual({
      adjustmentID: ids.p1,
      customerID: first,
      Date: '2026-03-02T00:00:00.000Z',
      DueDate: '2026-03-20T00:00:00.000Z',
      CurrencyCode: 'USD',
      Amount: 50,
      Ref: 'P1',
      Memo: null,
      AdjustmentType: 'opening_balance',
      Type: 'positive',
    });
    expect(res.body.adjustments[1]).toEqual({
      adjustmentID: ids.n1,
      customerID: first,
      Date: '2026-03-05T00:00:00.000Z',
      DueDate: null,
      CurrencyCode: 'USD',
      Amount: 30,
      Ref: 'N1',
      Memo: 'Goodwill',
      AdjustmentType: 'credit_note',
      Type: 'negative',
    });
    expect(res.body.adjustments.map((a: any) => a.Ref)).toEqual(['P1', 'N1', 'P2', 'N2', 'P3']);
  });

  it('filters by type and by customer; without customerID it covers the account', async () => {
    const refs = async (query: string) => (await list(query)).body.adjustments.map((a: any) => a.Ref);
    expect(await refs('type=positive')).toEqual(['P1', 'P2', 'P3']);
    expect(await refs('type=negative')).toEqual(['N1', 'N2']);
    expect(await refs(`type=all&customerID=${first}`)).toEqual(['P1', 'N1', 'P3']);
    expect(await refs(`type=positive&customerID=${first}`)).toEqual(['P1', 'P3']);
    expect(await refs(`type=negative&customerID=${second}`)).toEqual(['N2']);
    const empty = await createCustomer(account);
    expect((await list(`type=all&customerID=${empty}`)).body).toEqual({ isSuccess: true, adjustments: [] });
  });

  it('pages with page and page_size', async () => {
    const refs = async (query: string) => (await list(query)).body.adjustments.map((a: any) => a.Ref);
    expect(await refs('type=all&page_size=2')).toEqual(['P1', 'N1']);
    expect(await refs('type=all&page=2&page_size=2')).toEqual(['P2', 'N2']);
    expect(await refs('type=all&page=3&page_size=2')).toEqual(['P3']);
    expect(await refs('type=all&page=4&page_size=2')).toEqual([]);
  });

  it.each([
    ['', 'type'],
    ['type=some', 'type'],
    ['type=Positive', 'type'],
    ['type=all&page=0', 'page'],
    ['type=all&page=x', 'page'],
    ['type=all&page_size=0', 'page_size'],
    ['type=all&page_size=201', 'page_size'],
    ['type=all&customerID=0', 'customerID'],
    ['type=all&customerID=abc', 'customerID'],
  ])('answers 422 for ?%s naming %s', async (query, field) => {
    const res = await list(query);
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res)).toEqual([field]);
  });

  it('answers 404 for a customer of another account, and never lists another account’s adjustments', async () => {
    const theirs = await createCustomer(other);
    expect((await list(`type=all&customerID=${theirs}`)).status).toBe(404);
    expect((await list('type=all&customerID=99999999')).status).toBe(404);
    const mine = (await list('type=all&page_size=200')).body.adjustments;
    expect(mine.every((a: any) => [first, second].includes(a.customerID))).toBe(true);
  });
});

describe('GET /v1/adjustment/get', () => {
  it('answers 404 when the type or the customer is not the adjustment’s, or the id is unknown', async () => {
    const customerID = await createCustomer(t);
    const otherCustomer = await createCustomer(t);
    const positive = await addPositive(customerID);
    const negative = await addNegative(customerID);
    for (const res of [
      await getRes('negative', positive, customerID),
      await getRes('positive', negative, customerID),
      await getRes('positive', positive, otherCustomer),
      await getRes('negative', negative, otherCustomer),
      await getRes('positive', 99_999_999, customerID),
    ]) {
      expect(res.status, res.text).toBe(404);
      expect(res.body.code).toBe('adjustment_not_found');
    }
  });

  it.each([
    ['adjustmentID=1&customerID=1', ['type']],
    ['type=all&adjustmentID=1&customerID=1', ['type']],
    ['type=positive&customerID=1', ['adjustmentID']],
    ['type=positive&adjustmentID=1', ['customerID']],
    ['', ['type', 'adjustmentID', 'customerID']],
    ['type=positive&adjustmentID=x&customerID=1', ['adjustmentID']],
  ])('answers 422 for ?%s naming %s', async (query, fields) => {
    const res = await t.request('GET', `/v1/adjustment/get?${query}`);
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res).sort()).toEqual([...fields].sort());
  });
});

describe('PUT /v1/adjustment/edit', () => {
  const editBody = (id: number, base: Record<string, unknown>, change: Record<string, unknown> = {}) => ({
    AdjustmentID: id,
    ...base,
    ...change,
  });

  it('replaces a positive adjustment’s fields and answers 204 with no body', async () => {
    const customerID = await createCustomer(t);
    const id = await addPositive(customerID, { Amount: 50 });
    const res = await edit({
      AdjustmentID: id,
      AdjustmentType: 'interest',
      customerID,
      Type: 'positive',
      Amount: 75.5,
      Date: '2026-03-03',
      DueDate: '2026-04-03',
      Ref: 'INT-1',
      Memo: 'Late interest',
      isAutoApply: false,
      LinkedAllocations: [],
    });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expect(await detail('positive', id, customerID)).toMatchObject({
      positiveAdjustmentType: 'interest',
      Amount: 75.5,
      Date: '2026-03-03T00:00:00.000Z',
      DueDate: '2026-04-03T00:00:00.000Z',
      Ref: 'INT-1',
      Memo: 'Late interest',
      Status: 'Unpaid',
    });
    expect(await customerBalance(customerID)).toBe(75.5);
  });

  it('keeps Ref and Memo when they are left out, clears Memo when null, and refuses a blank Ref', async () => {
    const customerID = await createCustomer(t);
    const body = positiveBody(customerID, { Ref: 'KEEP', Memo: 'kept' });
    const id = await addPositive(customerID, body);
    await ok(
      t,
      'PUT',
      '/v1/adjustment/edit',
      editBody(id, body, { Ref: undefined, Memo: undefined, Amount: 60 }),
    );
    expect(await detail('positive', id, customerID)).toMatchObject({ Ref: 'KEEP', Memo: 'kept', Amount: 60 });
    await ok(t, 'PUT', '/v1/adjustment/edit', editBody(id, body, { Memo: null }));
    expect(await detail('positive', id, customerID)).toMatchObject({ Ref: 'KEEP', Memo: null });
    const blank = await edit(editBody(id, body, { Ref: '' }));
    expect(blank.status).toBe(422);
    expect(fieldsOf(blank)).toEqual(['Ref']);
  });

  it('does not let a positive adjustment’s Amount drop below what is allocated to it', async () => {
    const customerID = await createCustomer(t);
    const body = positiveBody(customerID, { Amount: 50 });
    const id = await addPositive(customerID, body);
    await pay(customerID, 30, [{ positiveAdjustmentID: id, amountApplied: 30 }]);
    const res = await edit(editBody(id, body, { Amount: 29.99 }));
    expect(res.status).toBe(422);
    expect(fieldsOf(res)).toEqual(['Amount']);
    await ok(t, 'PUT', '/v1/adjustment/edit', editBody(id, body, { Amount: 30 }));
    expect(await detail('positive', id, customerID)).toMatchObject({ Amount: 30, Status: 'Paid' });
    expect(await customerBalance(customerID)).toBe(0);
  });

  it.each([
    [{ Type: 'negative', AdjustmentType: 'credit_note', Allocations: [] }, 'Type', 'adjustment_type_fixed'],
    [{ AdjustmentType: 'bad_debt' }, 'AdjustmentType', 'invalid_fields'],
    [{ DueDate: undefined }, 'DueDate', 'invalid_fields'],
    [{ CurrencyCode: 'ZAR' }, 'CurrencyCode', 'invalid_fields'],
    [{ Amount: 0 }, 'Amount', 'invalid_fields'],
    [{ Date: '31 Feb 2026' }, 'Date', 'invalid_fields'],
    [{ AdjustmentID: undefined }, 'AdjustmentID', 'invalid_fields'],
    [{ isAutoApply: true }, 'isAutoApply', 'invalid_fields'],
  ])('refuses an edit of a positive adjustment with %o: 422 naming %s', async (change, field, code) => {
    const customerID = await createCustomer(t);
    const body = positiveBody(customerID);
    const id = await addPositive(customerID, body);
    const res = await edit(editBody(id, body, change));
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res)).toEqual([field]);
    expect(res.body.code).toBe(code);
    expect((await detail('positive', id, customerID)).Amount).toBe(50);
  });

  it('refuses to move an adjustment to another customer (422) and answers 404 for an unknown one', async () => {
    const customerID = await createCustomer(t);
    const otherCustomer = await createCustomer(t);
    const body = positiveBody(customerID);
    const id = await addPositive(customerID, body);
    const moved = await edit(editBody(id, body, { customerID: otherCustomer }));
    expect(moved.status).toBe(422);
    expect(fieldsOf(moved)).toEqual(['customerID']);
    const unknown = await edit(editBody(99_999_999, body));
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('adjustment_not_found');
  });

  it('edits, adds and deletes a negative adjustment’s allocations (Payments rule 4), moving every figure', async () => {
    const customerID = await createCustomer(t);
    const a = await createInvoice(customerID, 100);
    const b = await createInvoice(customerID, 100);
    const positive = await addPositive(customerID, { Amount: 50 });
    const body = negativeBody(customerID, {
      Amount: 60,
      Allocations: [
        { objectID: a.invoiceID, AmtAllocated: 20 },
        { objectID: b.invoiceID, AmtAllocated: 20 },
      ],
    });
    const id = await addNegative(customerID, body);
    const [toA, toB] = (await detail('negative', id, customerID)).allocations;
    // 200 + 50 owed, 60 credited.
    expect(await customerBalance(customerID)).toBe(190);

    // Edit A's to 30, drop B's, add 25 to the positive adjustment; DueDate is accepted and ignored.
    const res = await edit({
      AdjustmentID: id,
      AdjustmentType: 'credit_note',
      customerID,
      Type: 'negative',
      Amount: 60,
      Date: '2026-03-05',
      DueDate: '2026-04-01',
      Ref: 'CN-EDIT',
      isAutoApply: false,
      LinkedAllocations: [
        { allocationID: toA.allocationID, objectID: a.invoiceID, AmtAllocated: 30, isAdjustment: false },
        { objectID: positive, AmtAllocated: 25, isAdjustment: true },
      ],
    });
    expect(res.status, res.text).toBe(204);
    const n = await detail('negative', id, customerID);
    expect(n.allocations).toEqual([
      { allocationID: toA.allocationID, objectID: a.invoiceID, amountApplied: 30, isAdjustment: false },
      { allocationID: expect.any(Number), objectID: positive, amountApplied: 25, isAdjustment: true },
    ]);
    expect(n.allocations[1].allocationID).not.toBe(toB.allocationID);
    expect(n).toMatchObject({ Status: 'Partially Allocated', Ref: 'CN-EDIT' });
    expect(await figures(a.invoiceID)).toMatchObject({ TotalNegativeAdjs: 30, Balance: 70 });
    expect(await figures(b.invoiceID)).toMatchObject({ TotalNegativeAdjs: 0, Balance: 100 });
    expect((await ok(t, 'GET', `/v1/invoices/${b.invoiceID}`)).NegativeAdjustmentsApplied).toEqual([]);
    expect(await detail('positive', positive, customerID)).toMatchObject({ Status: 'Partially Paid' });
    expect(await customerBalance(customerID)).toBe(190);

    // Lower the amount to what stays allocated: Allocated; the customer owes 5 more.
    const lower = await edit({
      ...body,
      AdjustmentID: id,
      Amount: 55,
      Allocations: undefined,
      allocations: [
        { allocationID: n.allocations[0].allocationID, objectID: a.invoiceID, amountApplied: 30 },
        {
          allocationID: n.allocations[1].allocationID,
          objectID: positive,
          amountApplied: 25,
          isAdjustment: true,
        },
      ],
    });
    expect(lower.status, lower.text).toBe(204);
    expect((await detail('negative', id, customerID)).Status).toBe('Allocated');
    expect(await customerBalance(customerID)).toBe(195);
  });

  it('refuses a negative edit whose allocations exceed its Amount, or name an allocation it does not have', async () => {
    const customerID = await createCustomer(t);
    const invoice = await createInvoice(customerID, 100);
    const body = negativeBody(customerID, {
      Amount: 40,
      Allocations: [{ objectID: invoice.invoiceID, AmtAllocated: 40 }],
    });
    const id = await addNegative(customerID, body);
    const [allocation] = (await detail('negative', id, customerID)).allocations;
    const tooSmall = await edit({
      ...body,
      AdjustmentID: id,
      Amount: 39,
      Allocations: [{ allocationID: allocation.allocationID, objectID: invoice.invoiceID, AmtAllocated: 40 }],
    });
    expect(tooSmall.status).toBe(422);
    expect(fieldsOf(tooSmall)).toEqual(['Allocations[0]']);
    const foreign = await edit({
      ...body,
      AdjustmentID: id,
      Allocations: [{ allocationID: 99_999_999, objectID: invoice.invoiceID, AmtAllocated: 10 }],
    });
    expect(foreign.status).toBe(422);
    expect(fieldsOf(foreign)).toEqual(['Allocations[0].allocationID']);
    const noList = await edit({ ...body, AdjustmentID: id, Allocations: undefined });
    expect(noList.status).toBe(422);
    expect(fieldsOf(noList)).toEqual(['Allocations']);
    expect(await figures(invoice.invoiceID)).toMatchObject({ TotalNegativeAdjs: 40, Balance: 60 });
    expect(await detail('negative', id, customerID)).toMatchObject({ Amount: 40, Status: 'Allocated' });
  });

  it('re-spreads a negative adjustment with AutoApply on edit', async () => {
    const customerID = await createCustomer(t);
    const a = await createInvoice(customerID, 30, '2026-03-01');
    const b = await createInvoice(customerID, 30, '2026-03-02');
    const body = negativeBody(customerID, {
      Amount: 20,
      Allocations: [{ objectID: b.invoiceID, AmtAllocated: 20 }],
    });
    const id = await addNegative(customerID, body);
    await ok(t, 'PUT', '/v1/adjustment/edit', {
      ...body,
      AdjustmentID: id,
      Amount: 45,
      AutoApply: true,
      Allocations: undefined,
    });
    expect(
      (await detail('negative', id, customerID)).allocations.map((x: any) => [x.objectID, x.amountApplied]),
    ).toEqual([
      [a.invoiceID, 30],
      [b.invoiceID, 15],
    ]);
    expect(await figures(a.invoiceID)).toMatchObject({ TotalNegativeAdjs: 30, Balance: 0 });
    expect(await figures(b.invoiceID)).toMatchObject({ TotalNegativeAdjs: 15, Balance: 15 });
    expect(await customerBalance(customerID)).toBe(15);
  });
});

describe('DELETE /v1/adjustment/delete', () => {
  const del = (options: { query?: string; body?: unknown }, as: TestAccount = t) =>
    as.request('DELETE', `/v1/adjustment/delete${options.query ? `?${options.query}` : ''}`, {
      ...(options.body !== undefined ? { body: options.body } : {}),
    });

  it('deletes a negative adjustment (parameters in the query) and restores every figure', async () => {
    const customerID = await createCustomer(t);
    const invoice = await createInvoice(customerID, 100);
    const positive = await addPositive(customerID, { Amount: 50 });
    const before = { invoice: await figures(invoice.invoiceID), balance: await customerBalance(customerID) };
    const id = await addNegative(customerID, { Amount: 200, AutoApply: true, Allocations: undefined });
    // 100 to the invoice (03-01) and 50 to the positive adjustment (03-02); 50 left: −50 owed.
    expect(await figures(invoice.invoiceID)).toMatchObject({
      TotalNegativeAdjs: 100,
      Balance: 0,
      Status: 'Paid',
    });
    expect((await detail('positive', positive, customerID)).Status).toBe('Paid');
    expect(await customerBalance(customerID)).toBe(-50);

    const res = await del({ query: `type=negative&adjustmentID=${id}&customerID=${customerID}` });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expect(await figures(invoice.invoiceID)).toEqual(before.invoice);
    expect((await ok(t, 'GET', `/v1/invoices/${invoice.invoiceID}`)).NegativeAdjustmentsApplied).toEqual([]);
    expect(await detail('positive', positive, customerID)).toMatchObject({
      Status: 'Unpaid',
      allocations: [],
    });
    expect(await customerBalance(customerID)).toBe(before.balance);
    expect((await getRes('negative', id, customerID)).status).toBe(404);
  });

  it('reads the parameters from a JSON body, and prefers the query’s when both are sent', async () => {
    const customerID = await createCustomer(t);
    const a = await addNegative(customerID);
    const b = await addNegative(customerID);
    expect(await customerBalance(customerID)).toBe(-60);
    const byBody = await del({ body: { type: 'negative', adjustmentID: a, customerID } });
    expect(byBody.status, byBody.text).toBe(204);
    expect((await getRes('negative', a, customerID)).status).toBe(404);
    // The body names the deleted one; the query's id wins and deletes b.
    const both = await del({
      query: `adjustmentID=${b}`,
      body: { type: 'negative', adjustmentID: a, customerID },
    });
    expect(both.status, both.text).toBe(204);
    expect((await getRes('negative', b, customerID)).status).toBe(404);
    expect(await customerBalance(customerID)).toBe(0);
  });

  it('deletes a positive adjustment nothing is allocated to', async () => {
    const customerID = await createCustomer(t);
    const id = await addPositive(customerID);
    expect(await customerBalance(customerID)).toBe(50);
    expect((await del({ query: `type=positive&adjustmentID=${id}&customerID=${customerID}` })).status).toBe(
      204,
    );
    expect(await customerBalance(customerID)).toBe(0);
  });

  it('answers 409 for a positive adjustment that money is allocated to, until the allocations are removed', async () => {
    const customerID = await createCustomer(t);
    const id = await addPositive(customerID, { Amount: 50 });
    const payment = await pay(customerID, 20, [{ positiveAdjustmentID: id, amountApplied: 20 }]);
    const negative = await addNegative(customerID, {
      Amount: 10,
      Allocations: [{ objectID: id, AmtAllocated: 10, isAdjustment: true }],
    });
    const query = `type=positive&adjustmentID=${id}&customerID=${customerID}`;
    const refused = await del({ query });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('adjustment_has_allocations');
    expect(await detail('positive', id, customerID)).toMatchObject({ Status: 'Partially Paid', Amount: 50 });

    await ok(t, 'PUT', `/v1/payments/${payment.paymentID}`, {
      customerID,
      Amount: 20,
      CurrencyCode: 'USD',
      Date: '2026-03-06',
      Method: 'cash',
      allocations: [],
    });
    expect((await del({ query })).status).toBe(409);
    await ok(
      t,
      'DELETE',
      `/v1/adjustment/delete?type=negative&adjustmentID=${negative}&customerID=${customerID}`,
    );
    expect((await del({ query })).status).toBe(204);
    // What is left: the unallocated payment.
    expect(await customerBalance(customerID)).toBe(-20);
  });

  it.each([
    ['', undefined, ['type', 'adjustmentID', 'customerID']],
    ['type=positive', undefined, ['adjustmentID', 'customerID']],
    ['type=positive&adjustmentID=1', {}, ['customerID']],
    ['', { type: 'positive', adjustmentID: 1 }, ['customerID']],
    ['type=all&adjustmentID=1&customerID=1', undefined, ['type']],
    ['', { type: 'positive', adjustmentID: '1', customerID: 1 }, ['adjustmentID']],
  ])('answers 422 for ?%s with body %o naming %s', async (query, body, fields) => {
    const res = await del({ query, body });
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res).sort()).toEqual([...fields].sort());
  });

  it('answers 404 when the type or the customer is not the adjustment’s, and deletes nothing', async () => {
    const customerID = await createCustomer(t);
    const otherCustomer = await createCustomer(t);
    const id = await addNegative(customerID);
    for (const query of [
      `type=positive&adjustmentID=${id}&customerID=${customerID}`,
      `type=negative&adjustmentID=${id}&customerID=${otherCustomer}`,
      `type=negative&adjustmentID=99999999&customerID=${customerID}`,
    ]) {
      const res = await del({ query });
      expect(res.status, query).toBe(404);
      expect(res.body.code).toBe('adjustment_not_found');
    }
    expect((await getRes('negative', id, customerID)).status).toBe(200);
  });
});

describe('tenant isolation', () => {
  it('cannot see, list, edit, delete or allocate to another account’s adjustments', async () => {
    const customerID = await createCustomer(t);
    const invoice = await createInvoice(customerID, 100);
    const body = positiveBody(customerID);
    const positive = await addPositive(customerID, body);
    const negative = await addNegative(customerID);

    expect((await getRes('positive', positive, customerID, other)).status).toBe(404);
    expect((await getRes('negative', negative, customerID, other)).status).toBe(404);
    expect((await other.request('GET', `/v1/adjustment/list?type=all&customerID=${customerID}`)).status).toBe(
      404,
    );
    const theirList = await ok(other, 'GET', '/v1/adjustment/list?type=all&page_size=200');
    expect(theirList.adjustments.some((a: any) => [positive, negative].includes(a.adjustmentID))).toBe(false);
    expect((await edit({ ...body, AdjustmentID: positive }, other)).status).toBe(404);
    const del = await other.request(
      'DELETE',
      `/v1/adjustment/delete?type=positive&adjustmentID=${positive}&customerID=${customerID}`,
    );
    expect(del.status).toBe(404);

    // Their negative adjustment cannot reach our invoice or our positive adjustment.
    const theirCustomer = await createCustomer(other);
    for (const allocation of [
      { objectID: invoice.invoiceID, AmtAllocated: 1 },
      { objectID: positive, AmtAllocated: 1, isAdjustment: true },
    ]) {
      const res = await add(negativeBody(theirCustomer, { Allocations: [allocation] }), other);
      expect(res.status, res.text).toBe(422);
    }
    // Their AutoApply spreads over their own customer only.
    const theirs = await add(negativeBody(theirCustomer, { AutoApply: true, Allocations: undefined }), other);
    expect(theirs.status).toBe(201);
    expect((await figures(invoice.invoiceID)).TotalNegativeAdjs).toBe(0);
    expect(await detail('positive', positive, customerID)).toMatchObject({ Status: 'Unpaid' });
    expect(await customerBalance(customerID)).toBe(100 + 50 - 30);
  });
});
