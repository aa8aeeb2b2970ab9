import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { invoiceTaxedTotals } from '../invoicing/index.ts';
import { nextCreditNumber } from './creditNumbers.ts';
import { announceTaxCreditNotes } from './taxCreditNoteNotice.ts';
import * as repo from './reduction.repository.ts';
import * as taxCreditNoteRepo from './taxCreditNote.repository.ts';
import { sourceKey, taxedReductions } from './reduction.ts';
import type {
  InvoiceReduction,
  ReducedSoFar,
  ReducingChange,
  ReductionChange,
  ReductionSource,
  ReductionSourceType,
} from './reduction.ts';

/**
 * Reductions of invoices' consideration with their VAT (docs/tax.md, "The VAT in a reduction"), recorded in the
 * transaction that moves the money: by the allocation writer for sources whose allocations reduce what they pay
 * (credit notes, negative adjustments made through the API, prepaid credit that carries VAT), and stated by a
 * subscription's credit for the invoice of the time it credits.
 */

/** A change to what a source takes off an invoice, dated as asked. */
export interface ReductionRequest extends Omit<ReductionChange, 'date'> {
  date: PlainDate | 'invoice';
}

/** Records the changes with their VAT, in order, under the invoices' locks the caller holds. */
export async function recordReductions(
  ctx: ServiceContext,
  requests: readonly ReductionRequest[],
): Promise<void> {
  const changes = requests.filter((request) => request.amountMinor !== 0);
  if (changes.length === 0) return;
  const invoiceIds = [...new Set(changes.map((change) => change.invoiceId))];
  const invoices = await invoiceTaxedTotals(ctx, invoiceIds);
  const soFar = await reducedSoFar(ctx, invoiceIds);
  const dated = changes.map((change) => ({
    ...change,
    date: change.date === 'invoice' ? (invoices.get(change.invoiceId)?.invoiceDate ?? '') : change.date,
  }));
  await repo.insertReductions(
    ctx.db,
    ctx.account.id,
    taxedReductions(dated, invoices, soFar),
    nowInstant(ctx),
  );
}

async function reducedSoFar(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Map<number, ReducedSoFar>> {
  const soFar = new Map<number, ReducedSoFar>();
  for (const sum of await repo.sumsOnInvoices(ctx.db, ctx.account.id, invoiceIds)) {
    const reduced = soFar.get(sum.invoiceId) ?? { amountMinor: 0, taxMinor: 0, bySource: new Map() };
    reduced.amountMinor += sum.amountMinor;
    reduced.taxMinor += sum.taxMinor;
    const source = { type: sum.sourceType as ReductionSourceType, id: sum.sourceId };
    reduced.bySource.set(sourceKey(source), { amountMinor: sum.amountMinor, taxMinor: sum.taxMinor });
    soFar.set(sum.invoiceId, reduced);
  }
  return soFar;
}

/**
 * The allocation writer's step: the invoices' money moved by sources that reduce a supply becomes reductions, each
 * invoice's change once per source; prepaid credit applied after issue gets its tax credit note first.
 */
export async function recordReductionsOfAllocations(
  ctx: ServiceContext,
  changes: readonly ReducingChange[],
): Promise<void> {
  const requests: ReductionRequest[] = [];
  const documented: number[] = [];
  for (const { source, plan } of changes) {
    if (!source.reduces || source.type === 'payment') continue;
    for (const { target, deltaMinor } of plan.targetDeltas) {
      if (target.type !== 'invoice' || deltaMinor === 0) continue;
      const reduction = { type: source.type, id: source.id };
      const reduces = source.reduces;
      requests.push({
        customerId: source.customerId,
        invoiceId: target.id,
        source: reduction,
        amountMinor: deltaMinor,
        date: reduces.date,
        taxCreditNoteId:
          reduces.newCreditNote && deltaMinor > 0
            ? await insertPrepaidCreditNote(ctx, { ...source, invoiceId: target.id }, reduces)
            : null,
      });
      if (requests.at(-1)!.taxCreditNoteId !== null) documented.push(requests.at(-1)!.taxCreditNoteId!);
    }
  }
  await recordReductions(ctx, requests);
  await announceTaxCreditNotes(ctx, documented);
}

/** The tax credit note of prepaid credit that took VAT off an issued invoice (docs/tax.md, "Prepaid credit"). */
async function insertPrepaidCreditNote(
  ctx: ServiceContext,
  credit: { customerId: number; currencyCode: string; invoiceId: number },
  { date, newCreditNote }: { date: PlainDate; newCreditNote: { reason: string } },
): Promise<number> {
  return taxCreditNoteRepo.insertTaxCreditNote(
    ctx.db,
    ctx.account.id,
    {
      customerId: credit.customerId,
      currencyCode: credit.currencyCode,
      source: { type: 'prepaid_credit', id: credit.invoiceId },
      creditNumber: await nextCreditNumber(ctx),
      date,
      reason: newCreditNote.reason,
    },
    nowInstant(ctx),
  );
}

/** A credit note's or an adjustment's date moved: its reductions carry the new one. */
export function redateReductions(
  ctx: ServiceContext,
  source: ReductionSource,
  date: PlainDate,
): Promise<void> {
  return repo.redateOfSource(ctx.db, ctx.account.id, source, date);
}

/** What credits have taken off each invoice, taxes included, and the VAT in it, by id (none: left out). */
export async function creditedOnInvoices(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Map<number, { amountMinor: number; taxMinor: number }>> {
  const credited = new Map<number, { amountMinor: number; taxMinor: number }>();
  for (const sum of await repo.sumsOnInvoices(ctx.db, ctx.account.id, invoiceIds)) {
    const figure = credited.get(sum.invoiceId) ?? { amountMinor: 0, taxMinor: 0 };
    figure.amountMinor += sum.amountMinor;
    figure.taxMinor += sum.taxMinor;
    credited.set(sum.invoiceId, figure);
  }
  return credited;
}

/** One credit's reduction of an invoice, netted, with the tax credit note that documents it (none: on the invoice). */
export interface InvoiceCreditOnDocument {
  source: ReductionSource;
  taxCreditNote: { id: number; creditNumber: string } | null;
  amountMinor: number;
  taxMinor: number;
}

/**
 * Each invoice's reductions by credit and document, in the order they were first made, for what its documents say
 * (docs/tax.md, "What an invoice shows"); a credit that gave back all it took is left out.
 */
export async function creditsOnInvoiceDocuments(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Map<number, InvoiceCreditOnDocument[]>> {
  const rows = await repo.listOnInvoices(ctx.db, ctx.account.id, invoiceIds);
  const documents = await documentsOfReductions(ctx, rows);
  const byInvoice = new Map<number, Map<string, InvoiceCreditOnDocument>>();
  for (const row of rows) {
    const document = documents.get(row.taxCreditNoteId ?? sourceKey(row.source)) ?? null;
    const key = `${sourceKey(row.source)} ${document?.id ?? ''}`;
    const credits = byInvoice.get(row.invoiceId) ?? new Map<string, InvoiceCreditOnDocument>();
    const credit = credits.get(key) ?? {
      source: row.source,
      taxCreditNote: document,
      amountMinor: 0,
      taxMinor: 0,
    };
    credit.amountMinor += row.amountMinor;
    credit.taxMinor += row.taxMinor;
    credits.set(key, credit);
    byInvoice.set(row.invoiceId, credits);
  }
  return new Map(
    [...byInvoice].map(([invoiceId, credits]) => [
      invoiceId,
      [...credits.values()].filter((credit) => credit.amountMinor !== 0 || credit.taxMinor !== 0),
    ]),
  );
}

/** The documents of the rows: by id for prepaid credit's, by their source's `type id` for the others. */
async function documentsOfReductions(
  ctx: ServiceContext,
  rows: readonly InvoiceReduction[],
): Promise<Map<number | string, { id: number; creditNumber: string }>> {
  const documents = new Map<number | string, { id: number; creditNumber: string }>();
  const ids = [
    ...new Set(rows.flatMap((row) => (row.taxCreditNoteId === null ? [] : [row.taxCreditNoteId]))),
  ];
  for (const note of await taxCreditNoteRepo.findByIds(ctx.db, ctx.account.id, ids))
    documents.set(note.id, note);
  for (const type of ['credit_note', 'adjustment'] as const) {
    const sourceIds = [
      ...new Set(rows.filter((row) => row.source.type === type).map((row) => row.source.id)),
    ];
    for (const note of await taxCreditNoteRepo.findOfSources(ctx.db, ctx.account.id, type, sourceIds))
      documents.set(sourceKey(note.source as ReductionSource), note);
  }
  return documents;
}
