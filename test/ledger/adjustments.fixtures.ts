import { expect } from 'vitest';
import { movableClock, ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { t, useLedgerService } from './fixtures.ts';

export const NOW = '2026-03-10T10:00:00.000Z';
export const clock = movableClock(NOW);

/** Starts the file's service on `clock`, with ZAR enabled beside USD. */
export function useAdjustmentsService(): void {
  useLedgerService({ clock, currencies: ['ZAR'] });
}

let sequence = 0;
export const ref = (label = 'ADJ') => `${label}-${++sequence}`;

/** An issued invoice of one line (no tax): its Total is `amount`. */
export async function createInvoice(
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
export async function figures(invoiceID: number) {
  const inv = await ok(t, 'GET', `/v1/invoices/${invoiceID}`);
  return {
    TotalNegativeAdjs: inv.TotalNegativeAdjs,
    Balance: inv.Balance,
    ActualBalance: inv.ActualBalance,
    Status: inv.Status,
  };
}

export function positiveBody(customerID: number, body: Record<string, unknown> = {}) {
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

export function negativeBody(customerID: number, body: Record<string, unknown> = {}) {
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

export const add = (body: Record<string, unknown>, as: TestAccount = t) =>
  as.request('POST', '/v1/adjustment/add', { body });

export async function addPositive(customerID: number, body: Record<string, unknown> = {}): Promise<number> {
  return (await ok(t, 'POST', '/v1/adjustment/add', positiveBody(customerID, body))).AdjustmentID;
}

export async function addNegative(customerID: number, body: Record<string, unknown> = {}): Promise<number> {
  return (await ok(t, 'POST', '/v1/adjustment/add', negativeBody(customerID, body))).AdjustmentID;
}

export const getRes = (type: string, id: number, customerID: number, as: TestAccount = t) =>
  as.request('GET', `/v1/adjustment/get?type=${type}&adjustmentID=${id}&customerID=${customerID}`);

export async function detail(type: 'positive' | 'negative', id: number, customerID: number): Promise<any> {
  const res = await getRes(type, id, customerID);
  expect(res.status, res.text).toBe(200);
  expect(res.body.isSuccess).toBe(true);
  expect(res.body.type).toBe(type);
  return res.body.adjustment;
}

export const edit = (body: Record<string, unknown>, as: TestAccount = t) =>
  as.request('PUT', '/v1/adjustment/edit', { body });

export const pay = (customerID: number, amount: number, allocations: unknown[]) =>
  ok(t, 'POST', '/v1/payments', {
    customerID,
    Amount: amount,
    CurrencyCode: 'USD',
    Date: '2026-03-06',
    Method: 'cash',
    allocations,
  });

export const POSITIVE_DETAIL_FIELDS = [
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

export const NEGATIVE_DETAIL_FIELDS = [
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

export const LIST_ENTRY_FIELDS = [
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
