/** The ledger's access to invoices: their money figures, and invoices as allocation targets (src/modules/ledger). */
import { nowInstant, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { invoiceBalances, invoiceStatus } from './invoiceMath.ts';
import type { InvoiceStatus } from './invoiceMath.ts';
import { moneyOf } from './invoice.ts';
import type { AllocatableInvoiceRecord, InvoiceMoneyFigures } from './invoice.ts';
import * as repo from './invoice.repository.ts';
import { addToInvoicesMoneyColumn, taxedTotalsOf } from './invoiceMoney.repository.ts';
import type { TaxedTotalRow } from './invoiceMoney.repository.ts';

/** The ledger's part of a customer's Balance that its invoices owe (invoiceCustomers.repository.ts). */
export { issuedInvoicesBalanceOf } from './invoiceCustomers.repository.ts';

export type InvoiceMoneyColumn = repo.InvoiceMoneyColumn;

export interface AllocatableInvoice {
  id: number;
  customerId: number;
  invoiceNum: number | null;
  currencyCode: string;
  invoiceDate: PlainDate;
  /** Balance: what is still open, pending payments taken off. */
  openMinor: number;
  /** Why nothing may be allocated to it; undefined when it can take money. */
  refusal?: string;
}

function allocatableFromRecord(record: AllocatableInvoiceRecord, customerId: number): AllocatableInvoice {
  const refusal = record.isDraft
    ? 'is a draft'
    : record.isCancelled
      ? 'is cancelled'
      : record.customerId !== customerId
        ? 'belongs to another customer'
        : undefined;
  return {
    id: record.id,
    customerId: record.customerId,
    invoiceNum: record.invoiceNum,
    currencyCode: record.currencyCode,
    invoiceDate: record.invoiceDate,
    openMinor: invoiceBalances(moneyOf(record)).balanceMinor,
    ...(refusal ? { refusal } : {}),
  };
}

/**
 * The account's invoices with these ids or invoice numbers, locked until the transaction ends, as targets for
 * money of `customerId` (another customer's invoice is returned with a refusal, so the message can say why).
 */
export async function lockInvoicesForAllocation(
  ctx: ServiceContext,
  customerId: number,
  ids: readonly number[],
  invoiceNums: readonly number[],
): Promise<AllocatableInvoice[]> {
  const records = await repo.lockInvoicesByIdOrNum(
    ctx.db,
    ctx.account.id,
    [...new Set(ids)],
    [...new Set(invoiceNums)],
  );
  return records.map((record) => allocatableFromRecord(record, customerId));
}

/**
 * The account's invoices with these ids, locked until the transaction ends, each as a target for money of its own
 * customer (a collection run's batch, whose invoices are of many customers).
 */
export async function lockInvoicesForCollection(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<AllocatableInvoice[]> {
  const records = await repo.lockInvoicesByIdOrNum(ctx.db, ctx.account.id, [...new Set(ids)], []);
  return records.map((record) => allocatableFromRecord(record, record.customerId));
}

/** The customer's open invoices in a currency, earliest first (InvoiceDate, then invoiceNum), locked. */
export async function lockOpenInvoices(
  ctx: ServiceContext,
  customerId: number,
  currencyCode: string,
): Promise<AllocatableInvoice[]> {
  const records = await repo.lockOpenInvoicesOfCustomer(ctx.db, ctx.account.id, customerId, currencyCode);
  return records.map((record) => allocatableFromRecord(record, customerId));
}

/** An invoice's Status and Balance after a change of its money figures: which event the change is. */
export interface InvoiceMoneyAfter {
  status: InvoiceStatus;
  balanceMinor: number;
}

/**
 * Adds an allocation change to an invoice's paid figures, in the allocating transaction; returns the invoice's
 * Status and Balance after it (which event the change is: paid, partially paid).
 */
export async function addToInvoiceMoney(
  ctx: ServiceContext,
  invoiceId: number,
  column: InvoiceMoneyColumn,
  deltaMinor: number,
): Promise<InvoiceMoneyAfter> {
  const figures = await repo.addToInvoiceMoney(
    ctx.db,
    ctx.account.id,
    invoiceId,
    column,
    deltaMinor,
    nowInstant(ctx),
  );
  return afterMoneyChange(ctx, invoiceId, figures);
}

/**
 * addToInvoiceMoney for several invoices (each named once), the same column of each, in one statement: a batch
 * of collected payments (docs/gateways.md, "Batches of a collection run"). Returns each one's figures after it,
 * by id.
 */
export async function addToInvoicesMoney(
  ctx: ServiceContext,
  column: InvoiceMoneyColumn,
  changes: readonly { invoiceId: number; deltaMinor: number }[],
): Promise<Map<number, InvoiceMoneyAfter>> {
  const after = new Map<number, InvoiceMoneyAfter>();
  if (changes.length === 0) return after;
  const figures = await addToInvoicesMoneyColumn(ctx.db, ctx.account.id, column, changes, nowInstant(ctx));
  if (figures.length !== changes.length) throw new Error('an invoice whose figures were to move is missing');
  for (const invoice of figures) after.set(invoice.id, await afterMoneyChange(ctx, invoice.id, invoice));
  return after;
}

async function afterMoneyChange(
  ctx: ServiceContext,
  invoiceId: number,
  figures: InvoiceMoneyFigures,
): Promise<InvoiceMoneyAfter> {
  const money = moneyOf(figures);
  const status = invoiceStatus(
    {
      ...money,
      isDraft: figures.isDraft,
      isCancelled: figures.isCancelled,
      dueDate: figures.dueDate,
    },
    today(ctx),
  );
  const balanceMinor = invoiceBalances(money).balanceMinor;
  // docs/design/collections.md, "Retries": money that covers the invoice clears its next try. (Money taken away
  // again does not bring it back: an invoice never tried is still collected from its due date, see listInvoicesDue,
  // and one tried before was settled by hand.)
  if (balanceMinor <= 0 && figures.nextTryDate !== null) {
    await repo.setNextTryDate(ctx.db, ctx.account.id, invoiceId, null);
  }
  return { status, balanceMinor };
}

/** An issued invoice as a customer's statement shows it (docs/spec-decisions.md, "Statements"). */
export interface StatementInvoice {
  id: number;
  invoiceNum: number | null;
  reference: string | null;
  invoiceDate: PlainDate;
  dueDate: PlainDate;
  totalMinor: number;
  /** Balance: what is still open, pending payments taken off (what the customer's Balance counts). */
  openMinor: number;
}

/**
 * The customer's issued, not cancelled invoices in its currency: exactly those whose Balance the customer's
 * Balance adds up (customerInvoiceSums), so a statement reconciles with it. Drafts owe nothing yet.
 */
export async function statementInvoicesOf(
  ctx: ServiceContext,
  customerId: number,
  currencyCode: string,
): Promise<StatementInvoice[]> {
  const records = await repo.listIssuedInvoicesOfCustomer(ctx.db, ctx.account.id, customerId, currencyCode);
  return records.map((record) => ({
    id: record.id,
    invoiceNum: record.invoiceNum,
    reference: record.reference,
    invoiceDate: record.invoiceDate,
    dueDate: record.dueDate,
    totalMinor: record.totalMinor,
    openMinor: invoiceBalances(moneyOf(record)).balanceMinor,
  }));
}

/** An invoice's Total and the taxes in it: what a reduction's VAT is a share of, and a VAT report places (docs/tax.md). */
export type TaxedInvoiceTotal = TaxedTotalRow;

/** The account's invoices with these ids, their Totals with the taxes in them, by id (unknown ids left out). */
export async function invoiceTaxedTotals(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Map<number, TaxedInvoiceTotal>> {
  const rows = await taxedTotalsOf(ctx.db, ctx.account.id, { ids: [...new Set(invoiceIds)] });
  return new Map(rows.map((row) => [row.id, row]));
}

/** The account's issued invoices dated within [from, to] (cancelled ones too), by date then id. */
export function issuedInvoicesBetween(
  ctx: ServiceContext,
  from: PlainDate,
  to: PlainDate,
): Promise<TaxedInvoiceTotal[]> {
  return taxedTotalsOf(ctx.db, ctx.account.id, { from, to });
}
