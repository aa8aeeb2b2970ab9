import { beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { customerBalance, fieldsOf, other, t } from './fixtures.ts';
import {
  add,
  addNegative,
  addPositive,
  clock,
  createInvoice,
  detail,
  edit,
  figures,
  getRes,
  LIST_ENTRY_FIELDS,
  negativeBody,
  NOW,
  pay,
  positiveBody,
  useAdjustmentsService,
} from './adjustments.fixtures.ts';

useAdjustmentsService();

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
        allocationID: first.Allocations[0].allocationID,
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
