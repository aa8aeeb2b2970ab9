/** The recurring invoice use cases of the API: create, edit, cancel, reactivate, delete. */
import { emitEvent, snapshotResource } from '../events/index.ts';
import { emitRecurringChange, recurringInvoiceRef, withRecurringInvoiceEvents } from './invoicingEvents.ts';
import { inTransaction, nowInstant, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { periodCountResumingAt, scheduleState } from './recurringBilling.ts';
import type { RecurringSchedule } from './recurringBilling.ts';
import { getCustomer } from '../customers/index.ts';
import { assertReferenceFree, referenceConflict } from './invoiceInput.ts';
import { scheduleOf } from './recurringInvoice.ts';
import type { RecurringInvoice, RecurringInvoiceFields, RecurringInvoiceRecord } from './recurringInvoice.ts';
import * as repo from './recurringInvoice.repository.ts';
import { checkRecord, checkedFields } from './recurringInvoiceInput.ts';
import type { RecurringInvoiceInput, RecurringRecord } from './recurringInvoiceInput.ts';
import { getRecurringInvoice, lockRecurringInvoice } from './recurringInvoiceReads.service.ts';

/** The record's own fields, without its customer and lines. */
function fieldsOf(record: RecurringRecord): RecurringInvoiceFields {
  return {
    currencyCode: record.currencyCode,
    reference: record.reference,
    term: record.term,
    termType: record.termType,
    startDate: record.startDate,
    endDate: record.endDate,
    numDaysBeforeToInv: record.numDaysBeforeToInv,
    collectionMethod: record.collectionMethod,
    gatewayId: record.gatewayId,
    customerPaymentMethodId: record.customerPaymentMethodId,
    invoiceTerms: record.invoiceTerms,
    invoiceNotes: record.invoiceNotes,
  };
}

/** The record's schedule as the planner reads it. */
function recordSchedule(
  record: RecurringRecord,
): Pick<RecurringSchedule, 'startDate' | 'endDate' | 'term' | 'numDaysBeforeToInv'> {
  return {
    startDate: record.startDate,
    endDate: record.endDate,
    term: { count: record.term, unit: record.termType as RecurringSchedule['term']['unit'] },
    numDaysBeforeToInv: record.numDaysBeforeToInv,
  };
}

/** POST /v1/recurring-invoices. */
export async function createRecurringInvoice(
  ctx: ServiceContext,
  input: RecurringInvoiceInput & { customerId: number; startDate: string },
): Promise<RecurringInvoice> {
  // Our rule for ids in bodies: a customer the account cannot see is a 404, like the same id in a path.
  const customer = await getCustomer(ctx, input.customerId);
  const chargesField = input.chargesField ?? 'RecurInvoiceCharges';
  const problems: FieldProblem[] = [];
  const fields = checkedFields(ctx, input, problems);
  if (!input.charges) problems.push({ field: 'RecurInvoiceCharges', message: 'is required' });
  const record: RecurringRecord = {
    customerId: customer.id,
    // Spec: CurrencyCode defaults to the customer's.
    currencyCode: fields.currencyCode ?? customer.currencyCode,
    reference: fields.reference ?? null,
    // Spec: Term defaults to 1 when unset on add.
    term: fields.term ?? 1,
    termType: fields.termType ?? 'months',
    startDate: fields.startDate ?? '',
    endDate: fields.endDate ?? null,
    numDaysBeforeToInv: fields.numDaysBeforeToInv ?? 0,
    collectionMethod: fields.collectionMethod ?? null,
    gatewayId: fields.gatewayId ?? null,
    customerPaymentMethodId: fields.customerPaymentMethodId ?? null,
    invoiceTerms: fields.invoiceTerms ?? null,
    invoiceNotes: fields.invoiceNotes ?? null,
    charges: fields.charges ?? [],
    taxes: fields.taxes ?? [],
  };
  if (problems.length) throw new ValidationError(problems);
  await checkRecord(ctx, record, () => true, chargesField, problems);
  if (problems.length) throw new ValidationError(problems);
  if (record.reference) await assertReferenceFree(ctx, 'recurring invoice', record.reference);

  const now = nowInstant(ctx);
  const state = scheduleState({
    ...recordSchedule(record),
    createdOn: today(ctx),
    isCancelled: false,
    periodCount: 0,
    lastRenewDate: null,
    lastInvDate: null,
  });
  let recurringInvoiceId: number;
  try {
    recurringInvoiceId = await ctx.db.transaction().execute(async (trx) => {
      const id = await repo.insertRecurringInvoice(trx, {
        accountId: ctx.account.id,
        customerId: record.customerId,
        fields: fieldsOf(record),
        state,
        isCancelled: false,
        createdAt: now,
        updatedAt: now,
      });
      await repo.replaceCharges(trx, ctx.account.id, id, record.charges);
      await repo.replaceTaxes(trx, ctx.account.id, id, record.taxes);
      await emitEvent(inTransaction(ctx, trx), 'recurring_invoice.created', recurringInvoiceRef(id));
      return id;
    });
  } catch (error) {
    throw referenceConflict(error, 'recurring invoice', record.reference);
  }
  return getRecurringInvoice(ctx, recurringInvoiceId);
}

/**
 * PUT /v1/recurring-invoices/{id}: fields left out keep their values, null clears one; RecurInvoiceCharges and
 * Taxes, when sent, replace the lists. The schedule (StartDate, Term, TermType) changes only until the first
 * invoice is made (409 after: the invoices made follow the old schedule; cancel and create a new one).
 */
export async function editRecurringInvoice(
  ctx: ServiceContext,
  recurringInvoiceId: number,
  input: RecurringInvoiceInput,
): Promise<void> {
  const chargesField = input.chargesField ?? 'RecurInvoiceCharges';
  const problems: FieldProblem[] = [];
  const fields = checkedFields(ctx, input, problems);
  let reference: string | null = null;
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const tctx = inTransaction(ctx, trx);
      const row = await lockRecurringInvoice(tctx, recurringInvoiceId);
      const before = await snapshotResource(tctx, recurringInvoiceRef(recurringInvoiceId));
      if (input.customerId !== undefined && input.customerId !== row.customerId) {
        problems.push(customerCannotChange(row));
      }
      const record = editedRecord(row, fields, await linesOfEdit(tctx, recurringInvoiceId, fields));
      if (problems.length) throw new ValidationError(problems);
      await checkEditedRecord(tctx, row, record, chargesField, problems);
      if (problems.length) throw new ValidationError(problems);

      const scheduleChanged =
        record.startDate !== row.startDate || record.term !== row.term || record.termType !== row.termType;
      if (scheduleChanged) await assertNoInvoiceMade(tctx, recurringInvoiceId);
      reference = record.reference;
      if (record.reference && record.reference !== row.reference) {
        await assertReferenceFree(tctx, 'recurring invoice', record.reference, recurringInvoiceId);
      }
      await updateEditedRecurringInvoice(tctx, row, record, scheduleChanged);
      await replaceSentLines(tctx, recurringInvoiceId, record, fields);
      await emitRecurringChange(tctx, before, 'recurring_invoice.updated');
    });
  } catch (error) {
    throw referenceConflict(error, 'recurring invoice', reference);
  }
}

type EditedFields = ReturnType<typeof checkedFields>;

function customerCannotChange(row: RecurringInvoiceRecord): FieldProblem {
  return {
    field: 'customerID',
    message: `cannot change (it is ${row.customerId}); create a recurring invoice for the other customer`,
  };
}

/** The lists sent, or else the stored ones: they count towards the invoice Total when only one is replaced. */
async function linesOfEdit(
  ctx: ServiceContext,
  recurringInvoiceId: number,
  fields: EditedFields,
): Promise<Pick<RecurringRecord, 'charges' | 'taxes'>> {
  const charges =
    fields.charges ??
    (await repo.listCharges(ctx.db, ctx.account.id, [recurringInvoiceId])).map((c) => ({
      descrip: c.descrip,
      qty: c.qty,
      unitCostEx: c.unitCostEx,
      isTaxInclusive: c.isTaxInclusive,
      line: c.line,
      displayOrder: c.displayOrder,
    }));
  const taxes =
    fields.taxes ??
    (await repo.listTaxes(ctx.db, ctx.account.id, [recurringInvoiceId])).map((t) => ({
      name: t.name,
      perc: t.perc,
    }));
  return { charges, taxes };
}

/** The recurring invoice as the edit leaves it: each field sent, or else the stored value. */
function editedRecord(
  row: RecurringInvoiceRecord,
  fields: EditedFields,
  lines: Pick<RecurringRecord, 'charges' | 'taxes'>,
): RecurringRecord {
  const keep = <T>(value: T | undefined, current: T): T => (value === undefined ? current : value);
  return {
    customerId: row.customerId,
    currencyCode: keep(fields.currencyCode, row.currencyCode),
    reference: keep(fields.reference, row.reference),
    term: keep(fields.term, row.term),
    termType: keep(fields.termType, row.termType),
    startDate: keep(fields.startDate, row.startDate),
    endDate: keep(fields.endDate, row.endDate),
    numDaysBeforeToInv: keep(fields.numDaysBeforeToInv, row.numDaysBeforeToInv),
    collectionMethod: keep(fields.collectionMethod, row.collectionMethod),
    gatewayId: keep(fields.gatewayId, row.gatewayId),
    customerPaymentMethodId: keep(fields.customerPaymentMethodId, row.customerPaymentMethodId),
    invoiceTerms: keep(fields.invoiceTerms, row.invoiceTerms),
    invoiceNotes: keep(fields.invoiceNotes, row.invoiceNotes),
    charges: lines.charges,
    taxes: lines.taxes,
  };
}

/**
 * Values kept as stored pass even when no longer valid (a currency disabled, a gateway retired since): clients
 * send back whole objects they read.
 */
async function checkEditedRecord(
  ctx: ServiceContext,
  row: RecurringInvoiceRecord,
  record: RecurringRecord,
  chargesField: string,
  problems: FieldProblem[],
): Promise<void> {
  const stored: Partial<Record<keyof RecurringRecord, unknown>> = {
    currencyCode: row.currencyCode,
    gatewayId: row.gatewayId,
    customerPaymentMethodId: row.customerPaymentMethodId,
    collectionMethod: row.collectionMethod,
  };
  await checkRecord(ctx, record, (key) => record[key] !== stored[key], chargesField, problems);
}

/** The invoices made follow the schedule they were made on, so it is fixed once one is made. */
async function assertNoInvoiceMade(ctx: ServiceContext, recurringInvoiceId: number): Promise<void> {
  if ((await repo.countPeriods(ctx.db, ctx.account.id, recurringInvoiceId)) > 0) {
    throw new ConflictError(
      'recurring_invoice_schedule_fixed',
      `Recurring invoice ${recurringInvoiceId} has made invoices: StartDate, Term and TermType can no longer change (cancel it and create a new one)`,
    );
  }
}

async function updateEditedRecurringInvoice(
  ctx: ServiceContext,
  row: RecurringInvoiceRecord,
  record: RecurringRecord,
  scheduleChanged: boolean,
): Promise<void> {
  const schedule = scheduleOf(row, ctx.account.timeZone);
  const state = scheduleState({
    ...schedule,
    ...recordSchedule(record),
    // A new schedule before the first invoice starts over, as if created so: its periods are counted from
    // the new StartDate (periods skipped by a reactivation belonged to the old one).
    periodCount: scheduleChanged ? 0 : schedule.periodCount,
  });
  await repo.updateRecurringInvoice(ctx.db, ctx.account.id, row.id, {
    fields: fieldsOf(record),
    state,
    updatedAt: nowInstant(ctx),
  });
}

/** RecurInvoiceCharges and Taxes, each when sent, replace the stored list. */
async function replaceSentLines(
  ctx: ServiceContext,
  recurringInvoiceId: number,
  record: RecurringRecord,
  fields: EditedFields,
): Promise<void> {
  if (!fields.charges && !fields.taxes) return;
  if (fields.charges) await repo.replaceCharges(ctx.db, ctx.account.id, recurringInvoiceId, record.charges);
  if (fields.taxes) await repo.replaceTaxes(ctx.db, ctx.account.id, recurringInvoiceId, record.taxes);
}

/** PUT /v1/recurring-invoices/{id}/cancel: no more invoices (isCancelled, comp_Status Cancelled); 409 if already. */
export async function cancelRecurringInvoice(ctx: ServiceContext, recurringInvoiceId: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const tctx = inTransaction(ctx, trx);
    const row = await lockRecurringInvoice(tctx, recurringInvoiceId);
    if (row.isCancelled) {
      throw new ConflictError(
        'recurring_invoice_cancelled',
        `Recurring invoice ${recurringInvoiceId} is already cancelled`,
      );
    }
    const now = nowInstant(ctx);
    await withRecurringInvoiceEvents(tctx, recurringInvoiceId, 'recurring_invoice.updated', () =>
      repo.updateRecurringInvoice(trx, ctx.account.id, recurringInvoiceId, {
        isCancelled: true,
        cancelledAt: now,
        state: scheduleState({ ...scheduleOf(row, ctx.account.timeZone), isCancelled: true }),
        updatedAt: now,
      }),
    );
  });
}

/**
 * PUT /v1/recurring-invoices/{id}/reactivate: billing resumes with the first period whose invoice is dated today or
 * later; the periods that fell due while it was cancelled are not billed (recurringBilling.ts). 409 unless
 * cancelled.
 */
export async function reactivateRecurringInvoice(
  ctx: ServiceContext,
  recurringInvoiceId: number,
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const tctx = inTransaction(ctx, trx);
    const row = await lockRecurringInvoice(tctx, recurringInvoiceId);
    if (!row.isCancelled) {
      throw new ConflictError(
        'recurring_invoice_not_cancelled',
        `Recurring invoice ${recurringInvoiceId} is not cancelled`,
      );
    }
    const schedule = { ...scheduleOf(row, ctx.account.timeZone), isCancelled: false };
    const state = scheduleState({ ...schedule, periodCount: periodCountResumingAt(schedule, today(ctx)) });
    await withRecurringInvoiceEvents(tctx, recurringInvoiceId, 'recurring_invoice.updated', () =>
      repo.updateRecurringInvoice(trx, ctx.account.id, recurringInvoiceId, {
        isCancelled: false,
        cancelledAt: null,
        state,
        updatedAt: nowInstant(ctx),
      }),
    );
  });
}

/**
 * DELETE /v1/recurring-invoices/{id}: deletes one that never made an invoice. One that did is refused with 409
 * (cancel it instead): its invoices refer to it, and deleting it would lose which periods they billed.
 */
export async function deleteRecurringInvoice(ctx: ServiceContext, recurringInvoiceId: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const tctx = inTransaction(ctx, trx);
    await lockRecurringInvoice(tctx, recurringInvoiceId);
    const before = await snapshotResource(tctx, recurringInvoiceRef(recurringInvoiceId));
    if ((await repo.countPeriods(trx, ctx.account.id, recurringInvoiceId)) > 0) {
      throw new ConflictError(
        'recurring_invoice_has_invoices',
        `Recurring invoice ${recurringInvoiceId} has made invoices; cancel it instead`,
      );
    }
    await repo.deleteRecurringInvoice(trx, ctx.account.id, recurringInvoiceId);
    await emitEvent(tctx, 'recurring_invoice.deleted', before.ref, { before });
  });
}
