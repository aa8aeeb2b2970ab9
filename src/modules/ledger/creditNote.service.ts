import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { NotFoundError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { paymentStatus } from './allocation.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Page } from '../../core/paging.ts';
import { optionalText, requiredText } from '../../core/text.ts';
import { assertCustomerExists } from '../customers/index.ts';
import { lockInvoicesForAllocation } from '../invoicing/index.ts';
import { emitEvents, snapshotResource } from '../events/index.ts';
import type { EventToEmit, ResourceRef } from '../events/index.ts';
import { allocateNewSource, allocationsOfSources, releaseAllocations } from './allocation.service.ts';
import type { AllocationRequest, MoneySource } from './allocation.service.ts';
import type { CreditNote, CreditNoteInput, CreditNoteRecord } from './creditNote.ts';
import * as repo from './creditNote.repository.ts';
import * as taxCreditNoteRepo from './taxCreditNote.repository.ts';
import { assertCreditNumberFree, nextCreditNumber, writingCreditNumber } from './creditNumbers.ts';
import { redocumentSource } from './reduction.service.ts';
import { announceDocumentsOf } from './taxCreditNoteNotice.ts';
import { toCreditNoteDto } from './creditNotes.serializer.ts';
import type { CreditNoteOut } from './creditNotes.schemas.ts';
import {
  allocationRequestOf,
  assertSameCustomer,
  checkMoneyFields,
  editEvents,
  reallocateWithAmount,
  throwProblems,
  withLockedCustomer,
  withLockedRecord,
} from './moneyMovement.ts';
import type { Rendered } from './moneyMovement.ts';

export type { CreditNote, CreditNoteInput } from './creditNote.ts';

const creditNoteRef = (id: number): ResourceRef => ({ type: 'credit_note', id });

/** A credit note reduces what the invoices it is allocated to were sold for, on its Date (docs/tax.md). */
function sourceOf(
  row: Pick<CreditNoteRecord, 'id' | 'customerId' | 'currencyCode' | 'amountMinor' | 'date'>,
): MoneySource {
  return {
    type: 'credit_note',
    id: row.id,
    customerId: row.customerId,
    currencyCode: row.currencyCode,
    amountMinor: row.amountMinor,
    invoiceColumn: 'negative_adjs_minor',
    label: `credit note ${row.id}`,
    reduces: { date: row.date },
  };
}

async function assemble(ctx: ServiceContext, rows: CreditNoteRecord[]): Promise<CreditNote[]> {
  const allocations = await allocationsOfSources(
    ctx,
    'credit_note',
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    id: row.id,
    customerId: row.customerId,
    currencyCode: row.currencyCode,
    amountMinor: row.amountMinor,
    allocatedMinor: row.allocatedMinor,
    date: row.date,
    creditNumber: row.creditNumber,
    memo: row.memo,
    status: paymentStatus('settled', row.amountMinor, row.allocatedMinor),
    allocations: allocations.get(row.id) ?? [],
  }));
}

async function getCreditNoteRecord(ctx: ServiceContext, creditNoteId: number): Promise<CreditNoteRecord> {
  const row = await repo.findCreditNote(ctx.db, ctx.account.id, creditNoteId);
  if (!row) throw new NotFoundError('Credit note', creditNoteId);
  return row;
}

export async function getCreditNote(ctx: ServiceContext, creditNoteId: number): Promise<CreditNote> {
  return (await assemble(ctx, [await getCreditNoteRecord(ctx, creditNoteId)]))[0]!;
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

/** Inserts a credit note of the locked customer under its number, as the money source it is. */
async function insertCreditNote(
  ctx: ServiceContext,
  customerId: number,
  credit: {
    currencyCode: string;
    amountMinor: number;
    date: PlainDate;
    creditNumber: string;
    memo: string | null;
  },
): Promise<MoneySource> {
  const now = nowInstant(ctx);
  const creditNote = {
    accountId: ctx.account.id,
    customerId,
    currencyCode: credit.currencyCode,
    amountMinor: credit.amountMinor,
    date: credit.date,
    creditNumber: credit.creditNumber,
    memo: credit.memo,
    createdAt: now,
    updatedAt: now,
  };
  const id = await writingCreditNumber(credit.creditNumber, async () => {
    const id = await repo.insertCreditNote(ctx.db, creditNote);
    await taxCreditNoteRepo.insertTaxCreditNote(
      ctx.db,
      ctx.account.id,
      {
        customerId,
        currencyCode: credit.currencyCode,
        source: { type: 'credit_note', id },
        creditNumber: credit.creditNumber,
        date: credit.date,
        reason: credit.memo ?? '',
      },
      now,
    );
    return id;
  });
  return sourceOf({ ...creditNote, id });
}

/**
 * A credit note allocated to an invoice that prepaid credit paid takes the credit's place for what the invoice no
 * longer has open: the credit note pays the open part first, and only the rest of it gives the credit back to its
 * grants (docs/credits.md, "Consumption order"). Invoices named by id; a refused allocation rolls the give-back back
 * with it.
 */
async function giveCreditBackFor(
  ctx: ServiceContext,
  customerId: number,
  request: AllocationRequest,
): Promise<void> {
  if (request.autoApply) return;
  const named = request.entries.flatMap((entry) =>
    'number' in entry.target || entry.target.type !== 'invoice' || entry.amountMinor <= 0
      ? []
      : [{ invoiceId: entry.target.id, amountMinor: entry.amountMinor }],
  );
  if (named.length === 0) return;
  const invoices = await lockInvoicesForAllocation(
    ctx,
    customerId,
    named.map((entry) => entry.invoiceId),
    [],
  );
  const openMinor = new Map(invoices.map((invoice) => [invoice.id, Math.max(0, invoice.openMinor)]));
  for (const { invoiceId, amountMinor } of named) {
    const open = openMinor.get(invoiceId) ?? 0;
    openMinor.set(invoiceId, Math.max(0, open - amountMinor));
    if (amountMinor > open)
      await ctx.ports.ledger.giveBack(ctx, { customerId, invoiceId, amountMinor: amountMinor - open });
  }
}

/** A credit note's request, checked. */
interface CheckedCreditNote {
  currencyCode: string;
  amountMinor: number;
  date: PlainDate;
  /** Null when none was given (see CreditNoteInput). */
  creditNumber: string | null;
  memo: string | null;
  request: AllocationRequest;
}

/**
 * The request's fields, every problem listed at once in the order of the wire (CurrencyCode, a 422 at once when it
 * is not enabled; Amount, Date, CreditNumber, then the allocations); then a CreditNumber held by another credit
 * note than `creditNoteId` is a 409.
 */
async function checkCreditNote(
  ctx: ServiceContext,
  input: CreditNoteInput,
  creditNoteId?: number,
): Promise<CheckedCreditNote> {
  const problems: FieldProblem[] = [];
  const money = await checkMoneyFields(ctx, input, problems);
  const creditNumber =
    input.creditNumber === undefined ? null : requiredText(input.creditNumber, 'CreditNumber', problems);
  // Spec, Credit notes: allocated to invoices only, AutoApply included.
  const request = allocationRequestOf(input, money.currencyCode, false, problems);
  throwProblems(problems);
  if (creditNumber !== null) await assertCreditNumberFree(ctx, creditNumber, creditNoteId);
  return {
    currencyCode: money.currencyCode,
    amountMinor: money.amountMinor,
    date: money.date!,
    creditNumber,
    memo: optionalText(input.memo) ?? null,
    request,
  };
}

/** Reads the credit note once, after every change, and renders it once: its event and the reply share it. */
async function renderCreditNote(
  ctx: ServiceContext,
  creditNoteId: number,
): Promise<Rendered<CreditNote, CreditNoteOut>> {
  const creditNote = await getCreditNote(ctx, creditNoteId);
  return { record: creditNote, rendered: toCreditNoteDto(creditNote, ctx.account.timeZone) };
}

/**
 * POST /v1/credits: issues a credit note and allocates it, with the invoices' and the customer's figures, in the
 * caller's transaction (the route's, which records the reply in it) or its own.
 */
export function createCreditNote(
  ctx: ServiceContext,
  input: CreditNoteInput,
): Promise<Rendered<CreditNote, CreditNoteOut>> {
  return withLockedCustomer(ctx, input.customerId, async (ctx) => {
    const checked = await checkCreditNote(ctx, input);
    // Numbered last, just before the insert: the account row stays held for as short a time as can be.
    const creditNumber = checked.creditNumber ?? (await nextCreditNumber(ctx));
    const source = await insertCreditNote(ctx, input.customerId, { ...checked, creditNumber });
    await giveCreditBackFor(ctx, input.customerId, checked.request);
    const allocated = await allocateNewSource(ctx, source, checked.request);
    const creditNote = await renderCreditNote(ctx, source.id);
    await emitEvents(ctx, [
      { type: 'credit_note.created', ref: creditNoteRef(source.id), after: creditNote.rendered },
      ...allocated.targetEvents,
    ]);
    await announceDocumentsOf(ctx, 'credit_note', [source.id]);
    return creditNote;
  });
}

/**
 * PUT /v1/credits/{creditNoteID}: replaces a credit note's fields and makes its allocations the list sent (Spec,
 * Credit notes: add, edit and delete as Payments rule 4). The customer of a credit note does not change: a credit
 * issued to the wrong customer is deleted and issued again.
 */
export function updateCreditNote(
  ctx: ServiceContext,
  creditNoteId: number,
  input: CreditNoteInput,
): Promise<void> {
  return withLockedRecord(
    ctx,
    (ctx) => getCreditNoteRecord(ctx, creditNoteId),
    async (ctx, row) => {
      assertSameCustomer(input.customerId, row.customerId, 'credit note');
      const checked = await checkCreditNote(ctx, input, creditNoteId);
      const creditNumber = checked.creditNumber ?? row.creditNumber;
      const before = await snapshotResource(ctx, creditNoteRef(creditNoteId));
      const edited = sourceOf({
        ...row,
        currencyCode: checked.currencyCode,
        amountMinor: checked.amountMinor,
        date: checked.date,
      });
      // Its document takes the number and date first: what it reduces from now on is dated by it.
      await writingCreditNumber(creditNumber, () =>
        redocumentSource(
          ctx,
          { type: 'credit_note', id: row.id },
          { creditNumber, date: checked.date, reason: checked.memo ?? '' },
        ),
      );
      const allocated = await reallocateWithAmount(ctx, edited, row.amountMinor, checked.request, () =>
        repo.updateCreditNote(ctx.db, ctx.account.id, creditNoteId, {
          currencyCode: checked.currencyCode,
          amountMinor: checked.amountMinor,
          date: checked.date,
          creditNumber,
          memo: checked.memo,
          updatedAt: nowInstant(ctx),
        }),
      );
      await emitEvents(ctx, await editEvents(ctx, before, allocated));
    },
  );
}

/**
 * DELETE /v1/credits/{creditNoteID}: deletes a credit note with its allocations; every invoice it credited owes
 * that money again.
 */
export function deleteCreditNote(ctx: ServiceContext, creditNoteId: number): Promise<void> {
  return withLockedRecord(
    ctx,
    (ctx) => getCreditNoteRecord(ctx, creditNoteId),
    async (ctx, row) => {
      await emitEvents(ctx, await removeCreditNote(ctx, row));
    },
  );
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
  const source = await insertCreditNote(ctx, input.customerId, {
    currencyCode: input.currencyCode,
    amountMinor: input.allocations.reduce((sum, allocation) => sum + allocation.amountMinor, 0),
    date: input.date,
    creditNumber,
    memo: input.memo,
  });
  const allocated = await allocateNewSource(ctx, source, {
    autoApply: false,
    entries: input.allocations.map((allocation, i) => ({
      allocationId: null,
      amountMinor: allocation.amountMinor,
      target: { type: 'invoice' as const, id: allocation.invoiceId },
      field: `allocations[${i}]`,
      targetField: `allocations[${i}].invoiceID`,
    })),
  });
  const id = source.id;
  await announceDocumentsOf(ctx, 'credit_note', [id]);
  return {
    id,
    events: [{ type: 'credit_note.created', ref: creditNoteRef(id) }, ...allocated.targetEvents],
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
  return row ? removeCreditNote(ctx, row) : [];
}

/** Deletes a credit note, its allocations released first (the invoices owe that money again); returns its events. */
async function removeCreditNote(ctx: ServiceContext, row: CreditNoteRecord): Promise<EventToEmit[]> {
  const ref = creditNoteRef(row.id);
  const before = await snapshotResource(ctx, ref);
  const released = await releaseAllocations(ctx, sourceOf(row));
  await repo.deleteCreditNote(ctx.db, ctx.account.id, row.id);
  await taxCreditNoteRepo.deleteOfSource(ctx.db, ctx.account.id, { type: 'credit_note', id: row.id });
  return [{ type: 'credit_note.deleted', ref, before }, ...released.targetEvents];
}
