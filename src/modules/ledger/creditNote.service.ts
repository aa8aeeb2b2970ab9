import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import { paymentStatus } from '../../core/allocation.ts';
import type { PaymentStatus } from '../../core/allocation.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Page } from '../../core/paging.ts';
import { optionalText, requiredText } from '../../core/text.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import { assertCustomerExists } from '../customers/index.ts';
import { snapshotResource } from '../events/index.ts';
import type { EventToEmit } from '../events/index.ts';
import { allocationsOfSources, applyAllocations, releaseAllocations } from './allocation.service.ts';
import type { Allocation, MoneySource } from './allocation.service.ts';
import * as repo from './creditNote.repository.ts';
import type { CreditNoteRow } from './creditNote.repository.ts';
import { createMoneySource, deleteMoneySource, moneyRef, updateMoneySource } from './moneySource.ts';
import type { BeforeCommit, MoneySourceInput, MoneySourceKind } from './moneySource.ts';

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

/** A request's credit note, read from the wire; its amounts are checked here against the currency. */
export interface CreditNoteInput extends MoneySourceInput {
  /** Left out: a new credit note takes the next number of the account's sequence, an edited one keeps its own. */
  creditNumber?: string;
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

async function getCreditNoteRow(ctx: ServiceContext, creditNoteId: number): Promise<CreditNoteRow> {
  const row = await repo.findCreditNote(ctx.db, ctx.account.id, creditNoteId);
  if (!row) throw new NotFoundError('Credit note', creditNoteId);
  return row;
}

export async function getCreditNote(ctx: ServiceContext, creditNoteId: number): Promise<CreditNote> {
  return (await assemble(ctx, [await getCreditNoteRow(ctx, creditNoteId)]))[0]!;
}

/** The account's credit notes with these ids, as getCreditNote reads them (unknown ids left out). */
export async function creditNotesByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, CreditNote>> {
  const found = await assemble(ctx, await repo.findCreditNotes(ctx.db, ctx.account.id, ids));
  return new Map(found.map((creditNote) => [creditNote.id, creditNote]));
}

export async function listCreditNotes(
  ctx: ServiceContext,
  page: Page,
  customerId?: number,
): Promise<CreditNote[]> {
  if (customerId !== undefined) await assertCustomerExists(ctx, customerId);
  return assemble(ctx, await repo.listCreditNotes(ctx.db, ctx.account.id, page, customerId));
}

/** The fields a credit note adds to those every money source has. */
interface CreditNoteFields {
  /** Null when none was given (see CreditNoteInput). */
  creditNumber: string | null;
  memo: string | null;
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

/**
 * The CreditNumber of the n-th credit note the account numbers itself: `CN-` and the number, at least four digits
 * (`CN-0001`, ..., `CN-10000`), as the spec's example reference reads (docs/spec-decisions.md, "Credit notes").
 */
export function sequenceCreditNumber(n: number): string {
  return `CN-${String(n).padStart(4, '0')}`;
}

/**
 * The next number of the account's sequence that no credit note holds. A number already given by hand is passed
 * over: that credit note carries it, so the account's numbers still run without a gap.
 */
async function nextCreditNumber(ctx: ServiceContext): Promise<string> {
  for (;;) {
    const creditNumber = sequenceCreditNumber(await repo.takeCreditNumber(ctx.db, ctx.account.id));
    if (!(await repo.findCreditNoteIdByNumber(ctx.db, ctx.account.id, creditNumber))) return creditNumber;
  }
}

async function writingCreditNumber<T>(creditNumber: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw isUniqueViolation(error) ? creditNumberTaken(creditNumber) : error;
  }
}

const creditNotes: MoneySourceKind<CreditNoteRow, CreditNoteInput, CreditNoteFields, CreditNote> = {
  noun: 'credit note',
  resourceType: 'credit_note',
  getRow: getCreditNoteRow,
  sourceOf,
  checkFields: (input, problems) => ({
    creditNumber:
      input.creditNumber === undefined ? null : requiredText(input.creditNumber, 'CreditNumber', problems),
    memo: optionalText(input.memo) ?? null,
  }),
  assertWritable: async (ctx, credit, current) => {
    if (credit.creditNumber !== null) await assertCreditNumberFree(ctx, credit.creditNumber, current?.id);
  },
  async insert(ctx, columns, credit) {
    // Numbered last, just before the insert: the account row stays held for as short a time as can be.
    const creditNumber = credit.creditNumber ?? (await nextCreditNumber(ctx));
    const row = {
      ...columns,
      credit_date: credit.date,
      credit_number: creditNumber,
      memo: credit.memo,
    };
    const id = await writingCreditNumber(creditNumber, () => repo.insertCreditNote(ctx.db, row));
    return sourceOf({ ...row, id });
  },
  update: (ctx, row, changes, credit) => {
    const creditNumber = credit.creditNumber ?? row.credit_number;
    return writingCreditNumber(creditNumber, () =>
      repo.updateCreditNote(ctx.db, ctx.account.id, row.id, {
        ...changes,
        credit_date: credit.date,
        credit_number: creditNumber,
        memo: credit.memo,
      }),
    );
  },
  delete: (ctx, row) => repo.deleteCreditNote(ctx.db, ctx.account.id, row.id),
  read: getCreditNote,
};

/**
 * Records a credit note and allocates it, in one transaction with the invoices' and the customer's figures;
 * `beforeCommit` runs last in it.
 */
export function createCreditNote(
  ctx: ServiceContext,
  input: CreditNoteInput,
  beforeCommit?: BeforeCommit<CreditNote>,
): Promise<CreditNote> {
  return createMoneySource(creditNotes, ctx, input, beforeCommit);
}

/**
 * Replaces a credit note's fields and makes its allocations the list sent (Spec, Credit notes: add, edit and
 * delete as Payments rule 4). The customer of a credit note does not change: a credit issued to the wrong
 * customer is deleted and issued again.
 */
export function updateCreditNote(
  ctx: ServiceContext,
  creditNoteId: number,
  input: CreditNoteInput,
): Promise<void> {
  return updateMoneySource(creditNotes, ctx, creditNoteId, input);
}

/** Deletes a credit note with its allocations; every invoice it credited owes that money again. */
export function deleteCreditNote(ctx: ServiceContext, creditNoteId: number): Promise<void> {
  return deleteMoneySource(creditNotes, ctx, creditNoteId);
}

/** A credit note issued by another use case, in its transaction, with the events it leaves to the caller. */
export interface IssuedCreditNote {
  id: number;
  /** `credit_note.created`, then the invoices' events, for the caller to emit with its own. */
  events: EventToEmit[];
}

/**
 * In the caller's transaction (which holds the customer's lock): a credit note of the sum of `allocations`,
 * allocated to those invoices (a refund's goodwill credit, docs/gateways.md "Refunds"). 409 when the number is taken.
 */
export async function issueCreditNoteInTransaction(
  ctx: ServiceContext,
  input: {
    customerId: number;
    currencyCode: string;
    date: PlainDate;
    /** Undefined: the next of the account's sequence. */
    creditNumber: string | undefined;
    memo: string | null;
    allocations: readonly { invoiceId: number; amountMinor: number }[];
  },
): Promise<IssuedCreditNote> {
  const creditNumber = input.creditNumber ?? (await nextCreditNumber(ctx));
  await assertCreditNumberFree(ctx, creditNumber);
  const now = ctx.clock.now().toISOString();
  const row = {
    account_id: ctx.account.id,
    customer_id: input.customerId,
    currency_code: input.currencyCode,
    amount_minor: input.allocations.reduce((sum, allocation) => sum + allocation.amountMinor, 0),
    created_at: now,
    updated_at: now,
    credit_date: input.date,
    credit_number: creditNumber,
    memo: input.memo,
  };
  const id = await writingCreditNumber(creditNumber, () => repo.insertCreditNote(ctx.db, row));
  const outcome = await applyAllocations(ctx, sourceOf({ ...row, id }), {
    autoApply: false,
    entries: input.allocations.map((allocation, i) => ({
      allocationId: null,
      amountMinor: allocation.amountMinor,
      target: { type: 'invoice' as const, id: allocation.invoiceId },
      field: `allocations[${i}]`,
      targetField: `allocations[${i}].invoiceID`,
    })),
  });
  return {
    id,
    events: [{ type: 'credit_note.created', ref: moneyRef('credit_note', id) }, ...outcome.targetEvents],
  };
}

/**
 * In the caller's transaction (which holds the customer's lock): deletes a credit note issued with
 * issueCreditNoteInTransaction, if it is still there; the invoices it credited owe that money again. Returns the
 * events for the caller to emit (none when it was already gone).
 */
export async function withdrawCreditNoteInTransaction(
  ctx: ServiceContext,
  creditNoteId: number,
): Promise<EventToEmit[]> {
  const row = await repo.findCreditNote(ctx.db, ctx.account.id, creditNoteId);
  if (!row) return [];
  const ref = moneyRef('credit_note', creditNoteId);
  const before = await snapshotResource(ctx, ref);
  const outcome = await releaseAllocations(ctx, sourceOf(row));
  await repo.deleteCreditNote(ctx.db, ctx.account.id, creditNoteId);
  return [{ type: 'credit_note.deleted', ref, before }, ...outcome.targetEvents];
}
