import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { customerBalance, fieldsOf, t } from './fixtures.ts';
import {
  addNegative,
  addPositive,
  createInvoice,
  detail,
  edit,
  figures,
  negativeBody,
  pay,
  positiveBody,
  useAdjustmentsService,
} from './adjustments.fixtures.ts';

useAdjustmentsService();

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
