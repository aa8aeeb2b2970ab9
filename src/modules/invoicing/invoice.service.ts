/** The invoice use cases of the API: create, edit, finalize, delete (sending is in invoiceMail.service.ts). */
import { inTransaction, nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError } from '../../errors.ts';
import { isForeignKeyViolation } from '../../storage/database.ts';
import { getCustomer, lockCustomerForMoney } from '../customers/index.ts';
import { emitEvent, emitEvents, snapshotResource } from '../events/index.ts';
import type { Invoice, InvoiceRecord } from './invoice.ts';
import * as repo from './invoice.repository.ts';
import type { InvoiceChanges } from './invoice.repository.ts';
import { firstCollectionTry } from './invoiceCollection.service.ts';
import { invoiceRef } from './invoicingEvents.ts';
import { tellInvoicesIssued } from './invoiceCredit.ts';
import { assertReferenceFree, checkedInvoice, newInvoiceOf, referenceConflict } from './invoiceInput.ts';
import type { CheckedInvoice, InvoiceInput } from './invoiceInput.ts';
import { chargeRowsOf, insertInvoices, priceNewInvoice, taxRowsOf } from './invoiceInsert.service.ts';
import type { PricedInvoice } from './invoiceMath.ts';
import { getInvoice, getInvoiceRecord } from './invoiceReads.service.ts';

/** Unique and foreign-key refusals of a write, as the conflicts they mean. */
function writeConflict(error: unknown, reference: string | null): unknown {
  if (isForeignKeyViolation(error)) {
    return new ConflictError(
      'concurrent_change',
      'The customer, currency or gateway was removed while the invoice was being written; nothing was changed',
    );
  }
  return referenceConflict(error, 'invoice', reference);
}

/**
 * POST /v1/invoices. Our rule: an invoice posted is issued (numbered, due) unless the request asks for a draft
 * with isDraft true, as an invoice made by hand is usually meant to be sent.
 */
export async function createInvoice(
  ctx: ServiceContext,
  input: InvoiceInput & { customerId: number },
): Promise<Invoice> {
  const customer = await getCustomer(ctx, input.customerId);
  const checked = await checkedInvoice(ctx, input, customer);
  if (checked.reference) await assertReferenceFree(ctx, 'invoice', checked.reference);
  let invoiceId: number;
  try {
    invoiceId = await ctx.db.transaction().execute(async (trx) => {
      const tctx = inTransaction(ctx, trx);
      const [id] = await insertInvoices(tctx, [newInvoiceOf(checked, input.isDraft ?? false)]);
      return id!;
    });
  } catch (error) {
    throw writeConflict(error, checked.reference);
  }
  return getInvoice(ctx, invoiceId);
}

function notDraft(stored: InvoiceRecord): ConflictError {
  return new ConflictError(
    'invoice_not_draft',
    `Invoice ${stored.id} is ${stored.isCancelled ? 'cancelled' : 'issued'}; only drafts can be changed`,
  );
}

/**
 * PUT /v1/invoices/{id} (public service notes: drafts only are editable). Fields left out keep their values;
 * Charges and Taxes, when sent, replace the lists. isDraft false issues the draft, as finalize does.
 */
export async function editInvoice(
  ctx: ServiceContext,
  invoiceId: number,
  input: InvoiceInput,
): Promise<void> {
  const stored = await getInvoiceRecord(ctx, invoiceId);
  if (!stored.isDraft) throw notDraft(stored);
  const customer = await getCustomer(ctx, input.customerId ?? stored.customerId);
  const checked = await checkedInvoice(ctx, input, customer, await storedDraftOf(ctx, stored));
  if (checked.reference && checked.reference !== stored.reference) {
    await assertReferenceFree(ctx, 'invoice', checked.reference, invoiceId);
  }
  const relines = linesChange(input, checked, stored);
  const priced = priceNewInvoice(newInvoiceOf(checked, true));
  const now = nowInstant(ctx);
  const issue = input.isDraft === false;
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const tctx = inTransaction(ctx, trx);
      // Issuing pays from credit, a money movement: the customer's lock comes before the invoice's.
      if (issue) await lockCustomerForMoney(tctx, checked.customer.id);
      await repo.holdInvoice(trx, ctx.account.id, invoiceId);
      const before = await snapshotResource(tctx, invoiceRef(invoiceId));
      await updateEditedDraft(tctx, stored, editedDraftChanges(ctx, checked, priced, issue, now), issue);
      if (relines) await replaceLines(tctx, invoiceId, checked, priced);
      // Issuing through an edit is a finalize as well: both events, from the same `before`.
      await emitEvents(tctx, [
        { type: 'invoice.updated', ref: invoiceRef(invoiceId), before },
        ...(issue ? [{ type: 'invoice.finalized', ref: invoiceRef(invoiceId), before }] : []),
      ]);
      if (issue) {
        await tellInvoicesIssued(tctx, [
          { invoiceId, customerId: checked.customer.id, currencyCode: checked.currencyCode },
        ]);
      }
    });
  } catch (error) {
    throw writeConflict(error, checked.reference);
  }
}

/** The draft as stored, for the fields and lists an edit leaves out. */
async function storedDraftOf(ctx: ServiceContext, stored: InvoiceRecord) {
  const storedCharges = await repo.listCharges(ctx.db, ctx.account.id, [stored.id]);
  const storedTaxes = await repo.listTaxes(ctx.db, ctx.account.id, [stored.id]);
  return {
    record: stored,
    charges: storedCharges.map((c) => ({
      descrip: c.descrip,
      qty: c.qty,
      unitCostEx: c.unitCostEx,
      isTaxInclusive: c.isTaxInclusive,
      line: c.line,
      displayOrder: c.displayOrder,
      periodStart: c.periodStart,
      periodEnd: c.periodEnd,
    })),
    taxes: storedTaxes.map((t) => ({ name: t.name, perc: t.perc })),
  };
}

/** Lines are priced in the invoice's currency, so a new currency reprices them as well. */
function linesChange(input: InvoiceInput, checked: CheckedInvoice, stored: InvoiceRecord): boolean {
  return (
    input.charges !== undefined || input.taxes !== undefined || checked.currencyCode !== stored.currencyCode
  );
}

/** Every field of the draft an edit may set, as checked and priced; issuing, it stops being a draft. */
function editedDraftChanges(
  ctx: ServiceContext,
  checked: CheckedInvoice,
  priced: PricedInvoice,
  issue: boolean,
  now: string,
): InvoiceChanges {
  return {
    customer_id: checked.customer.id,
    currency_code: checked.currencyCode,
    invoice_date: checked.invoiceDate,
    due_date: checked.dueDate,
    reference: checked.reference,
    po_number: checked.poNumber,
    notes: checked.notes ?? null,
    terms: checked.terms ?? null,
    collection_method: checked.collectionMethod,
    gateway_id: checked.gatewayId,
    customer_payment_method_id: checked.customerPaymentMethodId,
    total_minor: priced.totalMinor,
    updated_at: now,
    ...(issue ? { is_draft: false } : {}),
    next_try_date: firstCollectionTry(
      {
        isDraft: !issue,
        collectionMethod: checked.collectionMethod,
        gatewayId: checked.gatewayId,
        customerPaymentMethodId: checked.customerPaymentMethodId,
        dueDate: checked.dueDate,
      },
      ctx.account.timeZone,
    ),
  };
}

/** Writes the edit (issuing, with the next invoice number) over a draft that is still a draft. */
async function updateEditedDraft(
  tctx: ServiceContext,
  stored: InvoiceRecord,
  changes: InvoiceChanges,
  issue: boolean,
): Promise<void> {
  const written = issue
    ? { ...changes, invoice_num: await repo.takeInvoiceNumbers(tctx.db, tctx.account.id, 1) }
    : changes;
  // Issued or deleted by a concurrent request since it was read.
  if (!(await repo.updateDraft(tctx.db, tctx.account.id, stored.id, written)))
    throw notDraft({ ...stored, isDraft: false });
}

/** Charges and taxes replaced by the checked lists. */
async function replaceLines(
  tctx: ServiceContext,
  invoiceId: number,
  checked: CheckedInvoice,
  priced: PricedInvoice,
): Promise<void> {
  const accountId = tctx.account.id;
  await repo.deleteLinesOf(tctx.db, accountId, invoiceId);
  await repo.insertChargeRows(tctx.db, chargeRowsOf(accountId, invoiceId, checked.charges, priced));
  await repo.insertTaxRows(tctx.db, taxRowsOf(accountId, invoiceId, checked.taxes));
}

/** PUT /v1/invoices/{id}/finalize: a draft becomes an issued invoice and takes the next invoice number. */
export async function finalizeInvoice(ctx: ServiceContext, invoiceId: number): Promise<void> {
  const stored = await getInvoiceRecord(ctx, invoiceId);
  if (!stored.isDraft) throw notDraft(stored);
  await ctx.db.transaction().execute(async (trx) => {
    const tctx = inTransaction(ctx, trx);
    // Issuing pays from credit, a money movement: the customer's lock comes before the invoice's.
    await lockCustomerForMoney(tctx, stored.customerId);
    await repo.holdInvoice(trx, ctx.account.id, invoiceId);
    const before = await snapshotResource(tctx, invoiceRef(invoiceId));
    const invoiceNum = await repo.takeInvoiceNumbers(trx, ctx.account.id, 1);
    const issued = await repo.updateDraft(trx, ctx.account.id, invoiceId, {
      is_draft: false,
      invoice_num: invoiceNum,
      next_try_date: firstCollectionTry({ ...stored, isDraft: false }, ctx.account.timeZone),
      updated_at: nowInstant(ctx),
    });
    // Finalized or deleted concurrently: throwing rolls the number back.
    if (!issued) throw notDraft({ ...stored, isDraft: false });
    await emitEvent(tctx, 'invoice.finalized', invoiceRef(invoiceId), { before });
    await tellInvoicesIssued(tctx, [
      { invoiceId, customerId: stored.customerId, currencyCode: stored.currencyCode },
    ]);
  });
}

/**
 * DELETE /v1/invoices/{id} (public service notes): deletes a draft; cancels an issued invoice. An invoice that
 * money is allocated to cannot be cancelled (remove the allocations first), and a cancelled one stays cancelled.
 */
export async function deleteInvoice(ctx: ServiceContext, invoiceId: number): Promise<void> {
  const stored = await getInvoiceRecord(ctx, invoiceId);
  if (stored.isDraft) {
    try {
      const deleted = await withTransaction(ctx, async (tctx) => {
        await repo.holdInvoice(tctx.db, ctx.account.id, invoiceId);
        const before = await snapshotResource(tctx, invoiceRef(invoiceId));
        if (!(await repo.deleteDraft(tctx.db, ctx.account.id, invoiceId))) return false;
        await emitEvent(tctx, 'invoice.deleted', invoiceRef(invoiceId), { before });
        return true;
      });
      if (deleted) return;
    } catch (error) {
      if (!isForeignKeyViolation(error)) throw error;
      throw new ConflictError(
        'invoice_in_use',
        `Draft ${invoiceId} is a billed period of a subscription or recurring invoice and cannot be deleted`,
      );
    }
    throw new ConflictError(
      'concurrent_change',
      `Invoice ${invoiceId} was finalized or deleted meanwhile; nothing was changed`,
    );
  }
  if (stored.isCancelled)
    throw new ConflictError('invoice_cancelled', `Invoice ${invoiceId} is already cancelled`);
  await withTransaction(ctx, async (tctx) => {
    // Prepaid credit that paid it goes back to its grants first (docs/credits.md, "Consumption order"): credit is
    // the business's own to give back, unlike a payment; under the customer's lock, taken before the invoice's.
    const issued = { invoiceId, customerId: stored.customerId, currencyCode: stored.currencyCode };
    await tctx.ports.invoicing.beforeCancel(tctx, issued);
    await repo.holdInvoice(tctx.db, ctx.account.id, invoiceId);
    const before = await snapshotResource(tctx, invoiceRef(invoiceId));
    if (await repo.cancelIssuedInvoice(tctx.db, ctx.account.id, invoiceId, nowInstant(ctx))) {
      await emitEvent(tctx, 'invoice.cancelled', invoiceRef(invoiceId), { before });
      return;
    }
    // Thrown inside, so that the credit given back is rolled back with the refusal.
    const after = await getInvoiceRecord(tctx, invoiceId);
    if (after.isCancelled)
      throw new ConflictError('invoice_cancelled', `Invoice ${invoiceId} is already cancelled`);
    throw new ConflictError(
      'invoice_has_allocations',
      `Invoice ${invoiceId} has payments or adjustments allocated to it; remove them before cancelling it`,
    );
  });
}
