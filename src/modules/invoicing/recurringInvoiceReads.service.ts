import { today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { NotFoundError } from '../../errors.ts';
import type { Page } from '../../core/paging.ts';
import { assertCustomerExists } from '../customers/index.ts';
import { recurringInvoicesOf } from './recurringInvoice.ts';
import type {
  RecurringInvoice,
  RecurringInvoiceRecord,
  RecurringInvoiceWithCustomer,
} from './recurringInvoice.ts';
import * as repo from './recurringInvoice.repository.ts';

/**
 * A page is three statements whatever its size: the recurring invoices with their customers' state (the caller's),
 * then their charges and their taxes, each with one `where ... in`.
 */
async function withLines(
  ctx: ServiceContext,
  rows: RecurringInvoiceWithCustomer[],
): Promise<RecurringInvoice[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const charges = await repo.listCharges(ctx.db, ctx.account.id, ids);
  const taxes = await repo.listTaxes(ctx.db, ctx.account.id, ids);
  return recurringInvoicesOf(rows, charges, taxes, today(ctx));
}

export async function getRecurringInvoice(
  ctx: ServiceContext,
  recurringInvoiceId: number,
): Promise<RecurringInvoice> {
  const row = await repo.findRecurringInvoice(ctx.db, ctx.account.id, recurringInvoiceId);
  if (!row) throw new NotFoundError('Recurring invoice', recurringInvoiceId);
  return (await withLines(ctx, [row]))[0]!;
}

/** The account's recurring invoices with these ids, as the single read returns them (unknown ids left out). */
export async function recurringInvoicesByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, RecurringInvoice>> {
  const found = await withLines(ctx, await repo.findRecurringInvoices(ctx.db, ctx.account.id, ids));
  return new Map(found.map((invoice) => [invoice.id, invoice]));
}

/** The account's recurring invoices in creation order, or one customer's (404 for a customer it cannot see). */
export async function listRecurringInvoices(
  ctx: ServiceContext,
  page: Page,
  customerId?: number,
): Promise<RecurringInvoice[]> {
  if (customerId !== undefined) await assertCustomerExists(ctx, customerId);
  return withLines(ctx, await repo.listRecurringInvoices(ctx.db, ctx.account.id, page, customerId));
}

/** How many recurring invoices the customer has (a customer with any cannot be deleted). */
export function countRecurringInvoicesOfCustomer(ctx: ServiceContext, customerId: number): Promise<number> {
  return repo.countRecurringInvoicesOfCustomer(ctx.db, ctx.account.id, customerId);
}

/** How many recurring invoices, cancelled ones included, name the payment method (it cannot be deleted then). */
export function countRecurringInvoicesUsingPaymentMethod(
  ctx: ServiceContext,
  paymentMethodId: number,
): Promise<number> {
  return repo.countRecurringInvoicesUsingPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
}

/** Reads the row under lock inside the transaction (404 for one the account cannot see). */
export async function lockRecurringInvoice(
  ctx: ServiceContext,
  recurringInvoiceId: number,
): Promise<RecurringInvoiceRecord> {
  const row = await repo.lockRecurringInvoice(ctx.db, ctx.account.id, recurringInvoiceId);
  if (!row) throw new NotFoundError('Recurring invoice', recurringInvoiceId);
  return row;
}
