import { withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { paymentStatus } from '../../core/allocation.ts';
import type { PaymentStatus } from '../../core/allocation.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Page } from '../../core/paging.ts';
import { optionalText, requiredText } from '../../core/text.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import { assertCustomerExists, lockCustomerForMoney } from '../customers/index.ts';
import { allocationsOfSources, applyAllocations, releaseAllocations } from './allocation.service.ts';
import type { Allocation, AllocationRequest, MoneySource } from './allocation.service.ts';
import * as repo from './creditNote.repository.ts';
import type { CreditNoteRow } from './creditNote.repository.ts';
import { allocationRequestOf, checkMoneyFields, reallocateWithAmount } from './moneySource.ts';
import type { MoneyFieldsInput } from './moneySource.ts';

/**
 * Credit notes: money the account credits a customer with, allocated to the customer's invoices only (never to
 * positive adjustments). On an invoice they count in TotalNegativeAdjs and are listed in
 * NegativeAdjustmentsApplied with their creditNoteID. They are never pending nor failed: always settled.
 */
export interface CreditNote {
  id: number;
  customerId: number;
  currencyCode: string;
  amountMinor: number;
  allocatedMinor: number;
  date: PlainDate;
  creditNumber: string;
  memo: string | null;
  /** Allocated, Partial or Unallocated (the spec's Pending and Failed never apply to a credit note). */
  status: PaymentStatus;
  allocations: Allocation[];
}

/** A request's credit note: amounts and dates as the wire sent them, checked here against the currency and zone. */
export interface CreditNoteInput extends MoneyFieldsInput {
  customerId: number;
  creditNumber: string;
  memo?: string | null;
}

function sourceOf(
  row: Pick<CreditNoteRow, 'id' | 'customer_id' | 'currency_code' | 'amount_minor'>,
): MoneySource {
  return {
    type: 'credit_note',
    id: row.id,
    customerId: row.customer_id,
    currencyCode: row.currency_code,
    amountMinor: row.amount_minor,
    invoiceColumn: 'negative_adjs_minor',
    label: `credit note ${row.id}`,
  };
}

async function assemble(ctx: ServiceContext, rows: CreditNoteRow[]): Promise<CreditNote[]> {
  const allocations = await allocationsOfSources(
    ctx,
    'credit_note',
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    id: row.id,
    customerId: row.customer_id,
    currencyCode: row.currency_code,
    amountMinor: row.amount_minor,
    allocatedMinor: row.allocated_minor,
    date: row.credit_date,
    creditNumber: row.credit_number,
    memo: row.memo,
    status: paymentStatus('settled', row.amount_minor, row.allocated_minor),
    allocations: allocations.get(row.id) ?? [],
  }));
}

async function findCreditNoteRow(ctx: ServiceContext, creditNoteId: number): Promise<CreditNoteRow> {
  const row = await repo.findCreditNote(ctx.db, ctx.account.id, creditNoteId);
  if (!row) throw new NotFoundError('Credit note', creditNoteId);
  return row;
}

export async function getCreditNote(ctx: ServiceContext, creditNoteId: number): Promise<CreditNote> {
  return (await assemble(ctx, [await findCreditNoteRow(ctx, creditNoteId)]))[0]!;
}

export async function listCreditNotes(
  ctx: ServiceContext,
  page: Page,
  customerId?: number,
): Promise<CreditNote[]> {
  if (customerId !== undefined) await assertCustomerExists(ctx, customerId);
  return assemble(ctx, await repo.listCreditNotes(ctx.db, ctx.account.id, page, customerId));
}

interface CheckedCreditNote {
  amountMinor: number;
  currencyCode: string;
  date: PlainDate;
  creditNumber: string;
  memo: string | null;
  request: AllocationRequest;
}

async function checkCreditNote(ctx: ServiceContext, input: CreditNoteInput): Promise<CheckedCreditNote> {
  const problems: FieldProblem[] = [];
  const { currencyCode, amountMinor, date } = await checkMoneyFields(ctx, input, problems);
  const creditNumber = requiredText(input.creditNumber, 'CreditNumber', problems);
  // Spec, Credit notes: allocations name invoices only (invoiceID, else invoiceNumber).
  const request = allocationRequestOf(input, currencyCode, { adjustments: false }, problems);
  if (problems.length > 0) throw new ValidationError(problems);
  return {
    amountMinor,
    currencyCode,
    date: date!,
    creditNumber,
    memo: optionalText(input.memo) ?? null,
    request,
  };
}

function creditNumberTaken(creditNumber: string, holder?: number): ConflictError {
  return new ConflictError(
    'credit_number_taken',
    holder === undefined
      ? `CreditNumber "${creditNumber}" belongs to another credit note`
      : `CreditNumber "${creditNumber}" belongs to credit note ${holder}`,
  );
}

/**
 * CreditNumber is unique per account (a unique index): checked first for a clear message, and the index's refusal
 * is read as the same conflict when a concurrent request took the number in between.
 */
async function assertCreditNumberFree(
  ctx: ServiceContext,
  creditNumber: string,
  creditNoteId?: number,
): Promise<void> {
  const holder = await repo.findCreditNoteIdByNumber(ctx.db, ctx.account.id, creditNumber);
  if (holder && holder.id !== creditNoteId) throw creditNumberTaken(creditNumber, holder.id);
}

async function writingCreditNumber<T>(creditNumber: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw isUniqueViolation(error) ? creditNumberTaken(creditNumber) : error;
  }
}

/** Records a credit note and allocates it, in one transaction with the invoices' and the customer's figures. */
export function createCreditNote(ctx: ServiceContext, input: CreditNoteInput): Promise<CreditNote> {
  return withTransaction(ctx, async (ctx) => {
    await lockCustomerForMoney(ctx, input.customerId);
    const credit = await checkCreditNote(ctx, input);
    await assertCreditNumberFree(ctx, credit.creditNumber);
    const now = ctx.clock.now().toISOString();
    const id = await writingCreditNumber(credit.creditNumber, () =>
      repo.insertCreditNote(ctx.db, {
        account_id: ctx.account.id,
        customer_id: input.customerId,
        currency_code: credit.currencyCode,
        amount_minor: credit.amountMinor,
        credit_date: credit.date,
        credit_number: credit.creditNumber,
        memo: credit.memo,
        created_at: now,
        updated_at: now,
      }),
    );
    await applyAllocations(
      ctx,
      sourceOf({
        id,
        customer_id: input.customerId,
        currency_code: credit.currencyCode,
        amount_minor: credit.amountMinor,
      }),
      credit.request,
    );
    return getCreditNote(ctx, id);
  });
}

/**
 * The customer's lock first, then the credit note as it is under that lock (it may have been changed or deleted
 * meanwhile). `customerId` is read before the transaction opens: a credit note never changes customer, and on
 * SQLite a read inside a deferred transaction would make the lock's write fail at once (SQLITE_BUSY, which the
 * busy timeout does not cover) whenever another process wrote in between.
 */
async function lockCreditNote(
  ctx: ServiceContext,
  creditNoteId: number,
  customerId: number,
): Promise<CreditNoteRow> {
  await lockCustomerForMoney(ctx, customerId);
  return findCreditNoteRow(ctx, creditNoteId);
}

/**
 * Replaces a credit note's fields and makes its allocations the list sent (Spec, Credit notes: add, edit and
 * delete as Payments rule 4). The customer of a credit note does not change: a credit issued to the wrong
 * customer is deleted and issued again.
 */
export async function updateCreditNote(
  ctx: ServiceContext,
  creditNoteId: number,
  input: CreditNoteInput,
): Promise<void> {
  const { customer_id: customerId } = await findCreditNoteRow(ctx, creditNoteId);
  return withTransaction(ctx, async (ctx) => {
    const row = await lockCreditNote(ctx, creditNoteId, customerId);
    if (input.customerId !== row.customer_id) {
      throw ValidationError.field('customerID', `must be the credit note's customer (${row.customer_id})`);
    }
    const credit = await checkCreditNote(ctx, input);
    await assertCreditNumberFree(ctx, credit.creditNumber, creditNoteId);
    const changes = {
      currency_code: credit.currencyCode,
      amount_minor: credit.amountMinor,
      credit_date: credit.date,
      credit_number: credit.creditNumber,
      memo: credit.memo,
      updated_at: ctx.clock.now().toISOString(),
    };
    const source = sourceOf({ ...row, currency_code: credit.currencyCode, amount_minor: credit.amountMinor });
    await reallocateWithAmount(ctx, source, row.amount_minor, credit.request, () =>
      writingCreditNumber(credit.creditNumber, () =>
        repo.updateCreditNote(ctx.db, ctx.account.id, creditNoteId, changes),
      ),
    );
  });
}

/** Deletes a credit note with its allocations; every invoice it credited owes that money again. */
export async function deleteCreditNote(ctx: ServiceContext, creditNoteId: number): Promise<void> {
  const { customer_id: customerId } = await findCreditNoteRow(ctx, creditNoteId);
  return withTransaction(ctx, async (ctx) => {
    const row = await lockCreditNote(ctx, creditNoteId, customerId);
    await releaseAllocations(ctx, sourceOf(row));
    await repo.deleteCreditNote(ctx.db, ctx.account.id, creditNoteId);
  });
}
