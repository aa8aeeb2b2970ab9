import type { PlainDate } from '../../core/calendar.ts';
import { shareByWeights } from '../../core/taxShare.ts';

/**
 * The VAT report's pure rules (docs/tax.md, "The VAT report"): which box of the VAT201 return a document's supply
 * goes in, and the report as the sum of its documents, per currency, so that it reconciles with them by
 * construction. Amounts in the currency's minor unit; a credit note's are negative.
 */

/**
 * standard: taxed above 0 % (fields 1 and 4); zero_rated: taxed at 0 % (field 2); export: zero-rated to a customer
 * in another country than the seller's (field 2A); exempt: no tax, to a customer at home or whose country is unknown
 * (field 3); non_supply: prepaid credit taxed when used, which is no supply when sold (field 3 too: "exempt and
 * non-supplies").
 */
export const SUPPLY_CATEGORIES = ['standard', 'zero_rated', 'export', 'exempt', 'non_supply'] as const;
export type SupplyCategory = (typeof SUPPLY_CATEGORIES)[number];

/** Where an invoice's supply is declared, from its taxes and where its customer is. */
export function supplyCategory(
  invoice: { taxes: readonly { perc: string }[]; isNonSupply: boolean },
  customerCountryId: number | null,
  sellerCountryId: number | null,
): SupplyCategory {
  if (invoice.isNonSupply) return 'non_supply';
  if (invoice.taxes.some((tax) => Number(tax.perc) > 0)) return 'standard';
  const abroad =
    customerCountryId !== null && sellerCountryId !== null && customerCountryId !== sellerCountryId;
  if (abroad) return 'export';
  return invoice.taxes.length > 0 ? 'zero_rated' : 'exempt';
}

/**
 * One line of the report's listing: an invoice, a tax credit note's reduction of one invoice, prepaid credit given
 * back off an invoice (what it owes again), or money received.
 */
export interface ReportDocument {
  kind: 'invoice' | 'credit_note' | 'credit_returned' | 'payment';
  /** The invoice's number, the credit note's, or the payment's reference. */
  number: string;
  date: PlainDate;
  invoiceId: number;
  invoiceNum: number | null;
  taxCreditNoteId: number | null;
  paymentId: number | null;
  customerId: number;
  customerName: string;
  vatNo: string | null;
  currencyCode: string;
  category: SupplyCategory;
  /** The invoice's taxes, as "VAT 15%". */
  rates: string;
  amountExMinor: number;
  taxMinor: number;
  amountIncMinor: number;
}

/** The lines of an invoice that bear one set of rates, summed: AmountInc and the tax in it. */
export interface RateShare {
  rates: string;
  totalMinor: number;
  taxMinor: number;
  /** The positions of these rates among the invoice's taxes. */
  positions?: readonly number[];
}

/** What of a credit note states the rates it was taken at (a cut's credit): by the positions of its taxes. */
export interface StatedPart {
  positions: readonly number[];
  /** Taxes included, with the document's sign (a credit note's negative). */
  amountMinor: number;
  taxesMinor: readonly number[];
}

/**
 * A document of an invoice whose lines bear different rates (a period cut at a change of rate, docs/tax.md
 * "Supplies that span a change") as one document per rate, so that `ByRate` declares each rate's supplies and VAT
 * apart: its amount shared by the rates' AmountInc and its VAT by their VAT (taxShare.ts, largest remainder), so the
 * parts add up to the document exactly and a whole invoice gives each rate exactly its lines. A credit note's VAT is
 * shared as its credit note shows it (each tax's part by the invoice's taxes' totals).
 */
export function splitByRate(document: ReportDocument, shares: readonly RateShare[]): ReportDocument[] {
  if (shares.length <= 1) return [document];
  const amounts = shareByWeights(
    document.amountIncMinor,
    shares.map((share) => share.totalMinor),
  );
  const taxes = shareByWeights(
    document.taxMinor,
    shares.map((share) => share.taxMinor),
  );
  return shares.map((share, i) => ({
    ...document,
    rates: share.rates,
    amountIncMinor: amounts[i]!,
    taxMinor: taxes[i]!,
    amountExMinor: amounts[i]! - taxes[i]!,
  }));
}

/**
 * A credit note's document whose reductions state their rates (a cut's credit of an invoice at two rates, docs/tax.md
 * "How a crossing period is invoiced"): each stated part lands on the rate of its positions, as its credit note
 * shows it, and only the rest is shared as splitByRate shares it. A part whose positions no rate has is shared too.
 */
export function splitStatedByRate(
  document: ReportDocument,
  shares: readonly RateShare[],
  stated: readonly StatedPart[],
): ReportDocument[] {
  const keyOf = (positions: readonly number[] | undefined) => (positions ?? []).join(',');
  const placed = stated.filter((part) =>
    shares.some((share) => keyOf(share.positions) === keyOf(part.positions)),
  );
  if (shares.length <= 1 || placed.length === 0) return splitByRate(document, shares);
  const taxOf = (part: StatedPart) => part.taxesMinor.reduce((a, b) => a + b, 0);
  const restIncMinor = document.amountIncMinor - placed.reduce((sum, part) => sum + part.amountMinor, 0);
  const restTaxMinor = document.taxMinor - placed.reduce((sum, part) => sum + taxOf(part), 0);
  const rest = { ...document, amountIncMinor: restIncMinor, taxMinor: restTaxMinor };
  const split = splitByRate({ ...rest, amountExMinor: restIncMinor - restTaxMinor }, shares);
  const rows = split.map((row, i) => {
    const own = placed.filter((part) => keyOf(part.positions) === keyOf(shares[i]!.positions));
    const amountIncMinor = row.amountIncMinor + own.reduce((sum, part) => sum + part.amountMinor, 0);
    const taxMinor = row.taxMinor + own.reduce((sum, part) => sum + taxOf(part), 0);
    return { ...row, amountIncMinor, taxMinor, amountExMinor: amountIncMinor - taxMinor };
  });
  // A rate the credit took nothing of gets no row.
  return rows.filter((row) => row.amountIncMinor !== 0 || row.taxMinor !== 0);
}

export interface Figures {
  amountExMinor: number;
  taxMinor: number;
  amountIncMinor: number;
}

export interface CurrencyVatReport {
  currencyCode: string;
  /** Each box's supplies, their credit notes netted. */
  supplies: Record<SupplyCategory, Figures>;
  /** The credit notes within, all boxes together (already netted in `supplies`). */
  creditNotes: Figures;
  outputTaxMinor: number;
  /**
   * The documents summed per set of rates they were taxed at ("VAT 15%", "VAT 15.5%"; "" for none), by that text:
   * a change of rate in a tax period declares each rate's supplies and tax apart (docs/tax.md, "The VAT report").
   */
  byRate: { rates: string; figures: Figures }[];
  documents: ReportDocument[];
}

const nothing = (): Figures => ({ amountExMinor: 0, taxMinor: 0, amountIncMinor: 0 });

function add(to: Figures, document: Figures): void {
  to.amountExMinor += document.amountExMinor;
  to.taxMinor += document.taxMinor;
  to.amountIncMinor += document.amountIncMinor;
}

/** The report of the documents: per currency (in code order), each box the sum of its documents. */
export function vatReportOf(documents: readonly ReportDocument[]): CurrencyVatReport[] {
  const byCurrency = new Map<string, CurrencyVatReport>();
  for (const document of documents) {
    let report = byCurrency.get(document.currencyCode);
    if (!report) {
      report = {
        currencyCode: document.currencyCode,
        supplies: Object.fromEntries(SUPPLY_CATEGORIES.map((c) => [c, nothing()])) as Record<
          SupplyCategory,
          Figures
        >,
        creditNotes: nothing(),
        outputTaxMinor: 0,
        byRate: [],
        documents: [],
      };
      byCurrency.set(document.currencyCode, report);
    }
    add(report.supplies[document.category], document);
    if (document.kind === 'credit_note') add(report.creditNotes, document);
    report.outputTaxMinor += document.taxMinor;
    let atRates = report.byRate.find((group) => group.rates === document.rates);
    if (!atRates) {
      atRates = { rates: document.rates, figures: nothing() };
      report.byRate.push(atRates);
    }
    add(atRates.figures, document);
    report.documents.push(document);
  }
  for (const report of byCurrency.values()) report.byRate.sort((a, b) => (a.rates < b.rates ? -1 : 1));
  return [...byCurrency.values()].sort((a, b) => a.currencyCode.localeCompare(b.currencyCode));
}

/**
 * The VAT201's boxes of sales: 1 standard-rated supplies (consideration including VAT), 2 zero-rated (not exported),
 * 2A exported, 3 exempt and non-supplies, 4 the output tax of box 1.
 */
export function vat201Boxes(report: CurrencyVatReport): Record<'1' | '2' | '2A' | '3' | '4', number> {
  const { supplies } = report;
  return {
    '1': supplies.standard.amountIncMinor,
    '2': supplies.zero_rated.amountIncMinor,
    '2A': supplies.export.amountIncMinor,
    '3': supplies.exempt.amountIncMinor + supplies.non_supply.amountIncMinor,
    '4': supplies.standard.taxMinor,
  };
}
