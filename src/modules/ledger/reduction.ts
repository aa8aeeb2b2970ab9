import { ratioOfMinor } from '../../core/money.ts';
import { taxShareOf } from '../../core/taxShare.ts';
import type { TaxedTotal } from '../../core/taxShare.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { taxOfParts } from './reductionTaxParts.ts';
import type { ReductionTaxPart } from './reductionTaxParts.ts';

/**
 * Reductions of an invoice's consideration (docs/tax.md, "The VAT in a reduction"): what a credit note, a negative
 * adjustment that reduces a supply, or prepaid credit that carries VAT takes off an invoice, with the VAT in it.
 * Pure: the rule that gives each reduction its VAT.
 */

/** What reduced it: a credit note, a negative adjustment, or a credit grant (prepaid credit). */
export type ReductionSourceType = 'credit_note' | 'adjustment' | 'credit_grant';

export interface ReductionSource {
  type: ReductionSourceType;
  id: number;
}

export interface InvoiceReduction {
  id: number;
  customerId: number;
  invoiceId: number;
  source: ReductionSource;
  /** The tax credit note of prepaid credit's reduction made after the invoice's issue; null otherwise. */
  taxCreditNoteId: number | null;
  /** Taken off (positive) or given back (negative), taxes included. */
  amountMinor: number;
  /** The VAT in amountMinor, with its sign. */
  taxMinor: number;
  /** The rates it was taken at, stated by a cut's credit (reductionTaxParts.ts); null or absent: a share of all. */
  taxParts?: readonly ReductionTaxPart[] | null;
  date: PlainDate;
}

export type NewReduction = Omit<InvoiceReduction, 'id'>;

/** An invoice a credit reduces, by how much (taxes included), and, for a cut's credit, at which rates. */
export interface StatedReduction {
  invoiceId: number;
  amountMinor: number;
  taxParts?: readonly ReductionTaxPart[] | null;
}

/** A change to what a source takes off an invoice, before its VAT is known. */
export type ReductionChange = Omit<NewReduction, 'taxMinor'>;

/** What an invoice has been reduced by so far: in all, and by each source. */
export interface ReducedSoFar {
  amountMinor: number;
  taxMinor: number;
  bySource: Map<string, { amountMinor: number; taxMinor: number }>;
}

/**
 * How a source's allocations to invoices reduce their consideration; a source without one pays them (money). The
 * reductions' date is the source's own (a credit note's Date), or each invoice's (prepaid credit at its issue, shown
 * on the invoice). Prepaid credit applied after an invoice's issue gives each invoice it reduces a tax credit note
 * of its own, dated that day, with these words (docs/tax.md, "Prepaid credit").
 */
export type SupplyReduction =
  | { date: PlainDate | 'invoice'; newCreditNote?: undefined }
  | { date: PlainDate; newCreditNote: { reason: string } };

/** One source's allocation change as the allocation writer made it: what moved on each target. */
export interface ReducingChange {
  source: {
    type: ReductionSourceType | 'payment';
    id: number;
    customerId: number;
    currencyCode: string;
    reduces?: SupplyReduction;
  };
  plan: { targetDeltas: readonly { target: { type: string; id: number }; deltaMinor: number }[] };
}

export const sourceKey = (source: ReductionSource): string => `${source.type} ${source.id}`;

/**
 * Each change with its VAT, in order, the running figures moved as it goes:
 * - a part taken off carries share(reduced before + part) − the VAT reduced before, so that every invoice's VAT
 *   reduced is its share of what it has been reduced by, and an invoice reduced by its whole Total has all its
 *   tax taken off, whatever the parts;
 *   (past the invoice's Total a part carries none: no more VAT comes off than the invoice holds);
 * - a part given back carries the same share of what its own source took off (VAT × part / amount, rounded), so that
 *   a source that gives back all it took nets to exactly nothing; it gives back no more than the source's reductions
 *   recorded (a credit note made before reductions were recorded took none off), and a give-back of nothing is no
 *   reduction at all.
 * An invoice whose figures are unknown carries no VAT. A part that states its rates (a cut's credit of an invoice at
 * two rates, reductionTaxParts.ts) carries the VAT it states.
 */
export function taxedReductions(
  changes: readonly ReductionChange[],
  invoices: ReadonlyMap<number, TaxedTotal>,
  soFar: Map<number, ReducedSoFar>,
): NewReduction[] {
  return changes.flatMap((change) => {
    const invoice = invoices.get(change.invoiceId);
    const reduced = soFar.get(change.invoiceId) ?? { amountMinor: 0, taxMinor: 0, bySource: new Map() };
    soFar.set(change.invoiceId, reduced);
    const key = sourceKey(change.source);
    const own = reduced.bySource.get(key) ?? { amountMinor: 0, taxMinor: 0 };
    const amountMinor = Math.max(change.amountMinor, -Math.max(own.amountMinor, 0));
    if (amountMinor === 0) return [];
    let taxMinor = 0;
    const stated = change.taxParts && amountMinor > 0 ? change.taxParts : null;
    if (stated) {
      taxMinor = taxOfParts(stated);
    } else if (invoice && amountMinor > 0) {
      const after = Math.min(reduced.amountMinor + amountMinor, invoice.totalMinor);
      taxMinor = Math.max(taxShareOf(invoice, after) - reduced.taxMinor, 0);
    } else if (amountMinor < 0) {
      taxMinor =
        -amountMinor >= own.amountMinor
          ? -own.taxMinor
          : -ratioOfMinor(own.taxMinor, -amountMinor, own.amountMinor);
    }
    reduced.amountMinor += amountMinor;
    reduced.taxMinor += taxMinor;
    reduced.bySource.set(key, {
      amountMinor: own.amountMinor + amountMinor,
      taxMinor: own.taxMinor + taxMinor,
    });
    return [{ ...change, amountMinor, taxMinor, taxParts: stated }];
  });
}
