import { expect } from 'vitest';
import type { TestAccount } from './service.ts';

/**
 * A customer's money as the API shows it, read back whole (invoices, payments and, when their routes exist,
 * credit notes and adjustments), and the invariants that must hold on it whatever happened before: no target
 * receives more than it is owed, no source allocates more than it holds, every figure equals the sum of the
 * allocations it stands for, and the customer's Balance reconciles with the records. USD (2 decimals) only.
 */

export const toMinor = (amount: number | string) => Math.round(Number(amount) * 100);
/** A minor amount as the wire's exact decimal string: 1234 → "12.34". */
export const toWire = (minor: number) => (minor / 100).toFixed(2);

export interface AllocationView {
  allocationId: number;
  /** The source: `payment:12`, `credit:3`, `negative:7`. */
  source: string;
  /** The target: `invoice:4`, `positive:9`. */
  target: string;
  amountMinor: number;
}

export interface InvoiceView {
  id: number;
  num: number | null;
  date: string;
  isDraft: boolean;
  isCancelled: boolean;
  status: string;
  totalMinor: number;
  actualPaidMinor: number;
  pendingPaidMinor: number;
  negativeAdjsMinor: number;
  balanceMinor: number;
  actualBalanceMinor: number;
  /** PaymentsApplied and NegativeAdjustmentsApplied, as allocations. */
  applied: AllocationView[];
}

export interface SourceView {
  key: string;
  id: number;
  amountMinor: number;
  status: string;
  allocations: AllocationView[];
}

export interface PositiveView {
  key: string;
  id: number;
  amountMinor: number;
  status: string;
  /** Allocations to it, as its detail lists them. */
  applied: AllocationView[];
}

export interface LedgerState {
  balanceMinor: number;
  invoices: InvoiceView[];
  payments: SourceView[];
  /** Null while the route does not exist. */
  credits: SourceView[] | null;
  negatives: SourceView[] | null;
  positives: PositiveView[] | null;
}

export interface LedgerFeatures {
  credits: boolean;
  adjustments: boolean;
}

async function get<T = any>(as: TestAccount, path: string): Promise<T> {
  const res = await as.request('GET', path);
  expect(res.status, `GET ${path}: ${res.text}`).toBe(200);
  return res.body as T;
}

/** Every page of a bare-array list. */
async function all(as: TestAccount, path: string): Promise<any[]> {
  const items: any[] = [];
  for (let page = 1; ; page += 1) {
    const batch = await get<any[]>(as, `${path}${path.includes('?') ? '&' : '?'}page=${page}&page_size=200`);
    items.push(...batch);
    if (batch.length < 200) return items;
  }
}

/** Which of the ledger's routes exist yet: a route not registered answers 404 to its list. */
export async function detectFeatures(as: TestAccount): Promise<LedgerFeatures> {
  const credits = await as.request('GET', '/v1/credits');
  const adjustments = await as.request('GET', '/v1/adjustment/list?type=all');
  const exists = (res: { status: number; body: any }) =>
    !(res.status === 404 && res.body?.code === 'route_not_found');
  return { credits: exists(credits), adjustments: exists(adjustments) };
}

function invoiceView(wire: any): InvoiceView {
  return {
    id: wire.invoiceID,
    num: wire.invoiceNum,
    date: String(wire.InvoiceDate).slice(0, 10),
    isDraft: wire.isDraft,
    isCancelled: wire.isCancelled,
    status: wire.Status,
    totalMinor: toMinor(wire.Total),
    actualPaidMinor: toMinor(wire.TotalActualPaid),
    pendingPaidMinor: toMinor(wire.TotalPendingPaid),
    negativeAdjsMinor: toMinor(wire.TotalNegativeAdjs),
    balanceMinor: toMinor(wire.Balance),
    actualBalanceMinor: toMinor(wire.ActualBalance),
    applied: [
      ...wire.PaymentsApplied.map((a: any) => ({
        allocationId: a.allocationID,
        source: `payment:${a.paymentID}`,
        target: `invoice:${wire.invoiceID}`,
        amountMinor: toMinor(a.amountApplied),
      })),
      ...wire.NegativeAdjustmentsApplied.map((a: any) => ({
        allocationId: a.allocationID,
        source: a.NegativeAdjustmentID ? `negative:${a.NegativeAdjustmentID}` : `credit:${a.creditNoteID}`,
        target: `invoice:${a.objectID}`,
        amountMinor: toMinor(a.amountApplied),
      })),
    ],
  };
}

function paymentView(wire: any): SourceView {
  return {
    key: `payment:${wire.paymentID}`,
    id: wire.paymentID,
    amountMinor: toMinor(wire.Amount),
    status: wire.Status,
    allocations: wire.Allocations.map((a: any) => ({
      allocationId: a.allocationID,
      source: `payment:${wire.paymentID}`,
      target: a.invoiceID ? `invoice:${a.invoiceID}` : `positive:${a.positiveAdjustmentID}`,
      amountMinor: toMinor(a.amountApplied),
    })),
  };
}

function creditView(wire: any): SourceView {
  return {
    key: `credit:${wire.creditNoteID}`,
    id: wire.creditNoteID,
    amountMinor: toMinor(wire.Amount),
    status: wire.Status,
    allocations: wire.Allocations.map((a: any) => ({
      allocationId: a.allocationID,
      source: `credit:${wire.creditNoteID}`,
      target: `invoice:${a.invoiceID}`,
      amountMinor: toMinor(a.amountApplied),
    })),
  };
}

function adjustmentAllocations(detail: any, self: string, negative: boolean): AllocationView[] {
  return (detail.allocations ?? detail.Allocations ?? []).map((a: any) => {
    const amountMinor = toMinor(a.amountApplied ?? a.AmtAllocated);
    if (negative) {
      return {
        allocationId: a.allocationID,
        source: self,
        target: a.isAdjustment ? `positive:${a.objectID}` : `invoice:${a.objectID}`,
        amountMinor,
      };
    }
    return {
      allocationId: a.allocationID,
      source: a.isAdjustment ? `negative:${a.objectID}` : `payment:${a.objectID}`,
      target: self,
      amountMinor,
    };
  });
}

/** The customer's ledger as the API reports it. */
export async function readLedger(
  as: TestAccount,
  customerId: number,
  features: LedgerFeatures = { credits: false, adjustments: false },
): Promise<LedgerState> {
  const [customer, invoices, payments, credits, adjustments] = await Promise.all([
    get(as, `/v1/customers/${customerId}`),
    all(as, `/v1/customers/${customerId}/invoices`),
    all(as, `/v1/customers/${customerId}/payments`),
    features.credits ? all(as, `/v1/customers/${customerId}/credits`) : null,
    features.adjustments
      ? get(as, `/v1/adjustment/list?type=all&customerID=${customerId}&page_size=200`)
      : null,
  ]);
  let negatives: SourceView[] | null = null;
  let positives: PositiveView[] | null = null;
  if (adjustments) {
    negatives = [];
    positives = [];
    const list: any[] = adjustments.adjustments;
    const details = await Promise.all(
      list.map((a) =>
        get(as, `/v1/adjustment/get?type=${a.Type}&adjustmentID=${a.adjustmentID}&customerID=${customerId}`),
      ),
    );
    list.forEach((entry, i) => {
      const detail = details[i].adjustment;
      if (entry.Type === 'negative') {
        const key = `negative:${entry.adjustmentID}`;
        negatives!.push({
          key,
          id: entry.adjustmentID,
          amountMinor: toMinor(detail.Amount),
          status: detail.Status,
          allocations: adjustmentAllocations(detail, key, true),
        });
      } else {
        const key = `positive:${entry.adjustmentID}`;
        positives!.push({
          key,
          id: entry.adjustmentID,
          amountMinor: toMinor(detail.Amount),
          status: detail.Status,
          applied: adjustmentAllocations(detail, key, false),
        });
      }
    });
  }
  return {
    balanceMinor: toMinor(customer.Balance),
    invoices: invoices.map(invoiceView),
    payments: payments.map(paymentView),
    credits: credits ? credits.map(creditView) : null,
    negatives,
    positives,
  };
}

const sum = (allocations: readonly { amountMinor: number }[]) =>
  allocations.reduce((total, a) => total + a.amountMinor, 0);
const byId = (a: AllocationView, b: AllocationView) => a.allocationId - b.allocationId;

/** Every source: payments, credit notes and negative adjustments. */
export function sourcesOf(state: LedgerState): SourceView[] {
  return [...state.payments, ...(state.credits ?? []), ...(state.negatives ?? [])];
}

/** The invariants of a customer's ledger; `where` prefixes the messages. */
export function expectLedgerConsistent(state: LedgerState, where = ''): void {
  const at = (what: string) => `${where}${where ? ': ' : ''}${what}`;
  const sources = sourcesOf(state);
  const fromSources = sources.flatMap((s) => s.allocations);

  for (const source of sources) {
    const allocated = sum(source.allocations);
    expect(allocated, at(`${source.key} allocates at most its amount`)).toBeLessThanOrEqual(
      source.amountMinor,
    );
    for (const a of source.allocations)
      expect(a.amountMinor, at(`${source.key} allocation`)).toBeGreaterThan(0);
    const negative = source.key.startsWith('negative:');
    const expected =
      allocated >= source.amountMinor
        ? 'Allocated'
        : allocated > 0
          ? negative
            ? 'Partially Allocated'
            : 'Partial'
          : 'Unallocated';
    expect(source.status, at(`${source.key} Status (${allocated} of ${source.amountMinor})`)).toBe(expected);
  }

  // Invoices: each figure is the sum of the allocations it stands for; Balance never goes below 0.
  for (const invoice of state.invoices) {
    const key = `invoice:${invoice.id}`;
    const payments = invoice.applied.filter((a) => a.source.startsWith('payment:'));
    const negatives = invoice.applied.filter((a) => !a.source.startsWith('payment:'));
    expect(invoice.actualPaidMinor, at(`${key} TotalActualPaid = Σ PaymentsApplied`)).toBe(sum(payments));
    expect(invoice.pendingPaidMinor, at(`${key} TotalPendingPaid`)).toBe(0);
    expect(invoice.negativeAdjsMinor, at(`${key} TotalNegativeAdjs = Σ NegativeAdjustmentsApplied`)).toBe(
      sum(negatives),
    );
    expect(invoice.balanceMinor, at(`${key} Balance = Total − paid − negative adjustments`)).toBe(
      invoice.totalMinor - sum(payments) - sum(negatives),
    );
    expect(invoice.actualBalanceMinor, at(`${key} ActualBalance`)).toBe(
      invoice.totalMinor - invoice.actualPaidMinor - invoice.negativeAdjsMinor,
    );
    expect(invoice.balanceMinor, at(`${key} is not over-allocated`)).toBeGreaterThanOrEqual(0);
    if (invoice.isDraft || invoice.isCancelled) {
      expect(invoice.applied, at(`${key} (draft or cancelled) has no allocations`)).toEqual([]);
    }
    // Invoice side and source side list the same allocations.
    expect([...invoice.applied].sort(byId), at(`${key} allocations as its sources list them`)).toEqual(
      fromSources.filter((a) => a.target === key).sort(byId),
    );
  }

  // Positive adjustments: what is allocated to them never exceeds their amount; their Status follows.
  for (const positive of state.positives ?? []) {
    const applied = sum(positive.applied);
    expect(applied, at(`${positive.key} is not over-allocated`)).toBeLessThanOrEqual(positive.amountMinor);
    expect(
      [...positive.applied].sort(byId),
      at(`${positive.key} allocations as its sources list them`),
    ).toEqual(fromSources.filter((a) => a.target === positive.key).sort(byId));
    if (applied >= positive.amountMinor) expect(positive.status, at(`${positive.key} Status`)).toBe('Paid');
    else if (applied > 0)
      expect(['Partially Paid', 'Past Due'], at(`${positive.key} Status`)).toContain(positive.status);
    else expect(['Unpaid', 'Past Due'], at(`${positive.key} Status`)).toContain(positive.status);
  }

  // Every allocation names a target of this customer that the API lists.
  const targets = new Set([
    ...state.invoices.map((i) => `invoice:${i.id}`),
    ...(state.positives ?? []).map((p) => p.key),
  ]);
  for (const a of fromSources) {
    if (a.target.startsWith('positive:') && state.positives === null) continue;
    expect(targets.has(a.target), at(`${a.source} allocates to ${a.target}, a target of the customer`)).toBe(
      true,
    );
  }

  expect(state.balanceMinor, at('customer Balance reconciles with its records')).toBe(expectedBalance(state));
}

/**
 * The customer's Balance from its records: what is open on its issued, not cancelled invoices and on its
 * positive adjustments, less what is unallocated on its payments, credit notes and negative adjustments.
 */
export function expectedBalance(state: LedgerState): number {
  let balance = 0;
  for (const invoice of state.invoices) {
    if (!invoice.isDraft && !invoice.isCancelled) balance += invoice.balanceMinor;
  }
  for (const positive of state.positives ?? []) balance += positive.amountMinor - sum(positive.applied);
  for (const source of sourcesOf(state)) balance -= source.amountMinor - sum(source.allocations);
  return balance;
}
