import { minorToDecimalText } from '../../core/money.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { priceInvoice } from '../invoicing/index.ts';
import type { NewInvoice, NewInvoiceCharge } from '../invoicing/index.ts';

/**
 * The last line of an invoice whose lines below zero (a usage correction, a deduction of what progressive invoices
 * charged under a coupon's whole discount) took its Total below zero.
 */
export const CREDIT_CARRIED_DESCRIP = 'Credit beyond this invoice, carried to your account';

/** A subscription invoice as it is issued, and what it carries to the subscription's credit. */
export interface CarriedInvoice {
  invoice: NewInvoice;
  /** What the last line took off a Total below zero, taxes included; 0 when the Total was not below zero. */
  creditMinor: number;
  /** The service time of the lines that lowered the Total (the corrected periods), for the credit's record. */
  creditPeriod: { start: PlainDate; end: PlainDate } | null;
}

/**
 * An invoice never totals below zero (docs/spec-decisions.md, "Usage billed from events"):
 * when its lines (a negative usage correction larger than the rest) add up to a Total below 0.00, every line stays
 * and one more brings the Total to exactly 0.00; what it took off is issued as the subscription's credit, as Kill
 * Bill's credit balance adjustment does. The line is priced excluding tax at the negative of the other lines' net,
 * so each tax nets to zero too; where each line's tax, rounded on its own (invoicing's invoiceMath.ts), would leave
 * a cent, it is priced including tax at the Total instead, the taxes split out of it, so the Total is 0.00 exactly.
 */
export function carryNegativeTotal(invoice: NewInvoice): CarriedInvoice {
  const percs = invoice.taxes.map((tax) => tax.perc);
  const priced = pricedOrNull(invoice.charges, percs, invoice.currencyCode);
  if (priced === null || priced.totalMinor >= 0) return { invoice, creditMinor: 0, creditPeriod: null };
  const creditMinor = -priced.totalMinor;
  return {
    invoice: { ...invoice, charges: [...invoice.charges, ...creditLines(invoice, percs)] },
    creditMinor,
    creditPeriod: periodOfNegativeLines(invoice.charges, priced.charges),
  };
}

/**
 * The lines bringing the Total to 0.00: one, or on an invoice whose lines bear different taxes (a period cut at a
 * change of rate, subscriptionTaxParts.ts) one per set of taxes borne, each bringing its lines to 0.00, so that
 * every rate's tax nets to zero too.
 */
function creditLines(invoice: NewInvoice, percs: readonly string[]): NewInvoiceCharge[] {
  const groups = new Map<string, NewInvoiceCharge[]>();
  for (const charge of invoice.charges) {
    const key = charge.taxPositions ? charge.taxPositions.join(',') : 'all';
    groups.set(key, [...(groups.get(key) ?? []), charge]);
  }
  return [...groups.values()].flatMap((charges) => {
    const taxPositions = charges[0]!.taxPositions;
    const priced = pricedOrNull(charges, percs, invoice.currencyCode)!;
    if (groups.size > 1 && priced.totalMinor === 0) return [];
    const bears = taxPositions ? { taxPositions } : {};
    const exclusive = { ...creditLine(-priced.exTotalMinor, false, invoice.currencyCode), ...bears };
    const netsToZero = pricedOrNull([...charges, exclusive], percs, invoice.currencyCode)?.totalMinor === 0;
    return [
      netsToZero ? exclusive : { ...creditLine(-priced.totalMinor, true, invoice.currencyCode), ...bears },
    ];
  });
}

function creditLine(amountMinor: number, isTaxInclusive: boolean, currencyCode: string): NewInvoiceCharge {
  return {
    descrip: CREDIT_CARRIED_DESCRIP,
    qty: '1',
    unitCostEx: minorToDecimalText(amountMinor, currencyCode),
    isTaxInclusive,
  };
}

/** The invoice's figures, or null beyond what an amount may be (the bill run parks it: assertInvoiceWithinBounds). */
function pricedOrNull(charges: readonly NewInvoiceCharge[], percs: readonly string[], currencyCode: string) {
  try {
    return priceInvoice(charges, percs, currencyCode);
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
}

/** From the earliest start to the latest end of the lines below zero that name a period. */
function periodOfNegativeLines(
  charges: readonly NewInvoiceCharge[],
  priced: readonly { amountIncMinor: number }[],
): { start: PlainDate; end: PlainDate } | null {
  const periods = charges.flatMap((charge, i) =>
    priced[i]!.amountIncMinor < 0 && charge.periodStart && charge.periodEnd
      ? [{ start: charge.periodStart.slice(0, 10), end: charge.periodEnd.slice(0, 10) }]
      : [],
  );
  if (periods.length === 0) return null;
  return {
    start: periods.map((p) => p.start).reduce((a, b) => (b < a ? b : a)),
    end: periods.map((p) => p.end).reduce((a, b) => (b > a ? b : a)),
  };
}
