import Big from 'big.js';
import { MAX_PRICE, decimalToMinor, fractionOfMinor, productToMinor } from '../../core/money.ts';
import { lineTaxPercs, splitInclusive } from '../../core/taxInclusive.ts';
import { taxShareOf } from '../../core/taxShare.ts';

/**
 * An invoice's figures from its lines and taxes (spec, Invoice). Pure; amounts in the currency's minor unit.
 *
 * - AmountEx of a line = Qty × UnitCostEx, rounded once (money.ts: half away from zero).
 * - Each tax of the invoice applies to every line, unless the line names the taxes it bears (taxPositions: a part of a
 *   period before a change of rate bears the old rate only, docs/tax.md "Supplies that span a change"); a tax the
 *   line does not bear is 0 for it. The line's tax for one tax = AmountEx × Perc, rounded; the line's AmountInc =
 *   AmountEx + its taxes. So every line reconciles on its own.
 * - Total = Σ AmountInc; a tax's total on the invoice = Σ of that tax over the lines. Totals are never rounded.
 * - Balance = Total − paid (actual and pending) − negative adjustments; ActualBalance leaves pending payments
 *   in: Total − actual payments − negative adjustments.
 *
 * - A tax-inclusive line is priced the other way round (taxInclusive.ts): AmountInc = Qty × the unit price,
 *   rounded once, and AmountEx and the taxes are split out of it, so they add up to it exactly.
 *
 * Worked example, USD, tax 0.15: lines 3 × 3.333 and 1 × 0.05.
 *   AmountEx 9.999 → 10.00 and 0.05; taxes 1.50 and 0.0075 → 0.01; AmountInc 11.50 and 0.06; Total 11.56.
 */
export interface ChargeAmounts {
  qty: string;
  /** The unit price as listed: excluding tax, or including the invoice's taxes when isTaxInclusive. */
  unitCostEx: string;
  isTaxInclusive?: boolean;
  /** The positions of the invoice's taxes the line bears; null or left out: all of them. */
  taxPositions?: readonly number[] | null;
}

export interface PricedCharge {
  amountExMinor: number;
  /** One entry per invoice tax, in the taxes' order. */
  taxMinor: number[];
  amountIncMinor: number;
}

export interface PricedInvoice {
  charges: PricedCharge[];
  /** One entry per invoice tax: its total over the lines. */
  taxTotalsMinor: number[];
  exTotalMinor: number;
  totalMinor: number;
}

/** a + b, refusing a sum a binary double cannot hold exactly (it would be silently off by a few units). */
function addMinor(a: number, b: number): number {
  const sum = a + b;
  if (!Number.isSafeInteger(sum)) throw new RangeError(`amount ${a} + ${b} is beyond the safe integer range`);
  return sum;
}

function priceCharge(
  charge: ChargeAmounts,
  invoicePercs: readonly string[],
  currencyCode: string,
): PricedCharge {
  const listedMinor = productToMinor(charge.qty, charge.unitCostEx, currencyCode);
  const taxPercs = lineTaxPercs(invoicePercs, charge.taxPositions);
  if (charge.isTaxInclusive) {
    const split = splitInclusive(listedMinor, taxPercs);
    return { amountExMinor: split.netMinor, taxMinor: split.taxMinor, amountIncMinor: listedMinor };
  }
  const taxMinor = taxPercs.map((perc) => fractionOfMinor(listedMinor, perc));
  return { amountExMinor: listedMinor, taxMinor, amountIncMinor: taxMinor.reduce(addMinor, listedMinor) };
}

export function priceInvoice(
  charges: readonly ChargeAmounts[],
  taxPercs: readonly string[],
  currencyCode: string,
): PricedInvoice {
  const taxTotalsMinor = taxPercs.map(() => 0);
  let exTotalMinor = 0;
  let totalMinor = 0;
  const priced = charges.map((charge) => {
    const { amountExMinor, taxMinor, amountIncMinor } = priceCharge(charge, taxPercs, currencyCode);
    taxMinor.forEach((tax, i) => (taxTotalsMinor[i] = addMinor(taxTotalsMinor[i]!, tax)));
    exTotalMinor = addMinor(exTotalMinor, amountExMinor);
    totalMinor = addMinor(totalMinor, amountIncMinor);
    return { amountExMinor, taxMinor, amountIncMinor };
  });
  return { charges: priced, taxTotalsMinor, exTotalMinor, totalMinor };
}

const PRICE_LIMIT = new Big(MAX_PRICE);

/**
 * Whether Qty × UnitCostEx stays within the bound of a price (99 999 999 999.9999 either way): every amount of the
 * line then converts to minor units exactly, and the invoice's figures survive as JSON numbers.
 */
export function isLineAmountWithinBounds(qty: string, unitCostEx: string): boolean {
  return new Big(qty).times(new Big(unitCostEx)).abs().lte(PRICE_LIMIT);
}

/**
 * Why no invoice can be made of these lines and taxes, or null when one can: each line's Qty × unit price and the
 * Total must stay within the bound of a price, as for an invoice made through the API (invoiceInput.ts).
 */
export function invoiceBoundsProblem(
  charges: readonly ChargeAmounts[],
  taxPercs: readonly string[],
  currencyCode: string,
): string | null {
  const beyond = charges.findIndex((charge) => !isLineAmountWithinBounds(charge.qty, charge.unitCostEx));
  if (beyond >= 0) return `line ${beyond + 1}: Qty × unit price must be at most ${MAX_PRICE} in size`;
  const total = `the invoice Total must be at most ${MAX_PRICE} in size`;
  try {
    const { totalMinor } = priceInvoice(charges, taxPercs, currencyCode);
    return Math.abs(totalMinor) > decimalToMinor(MAX_PRICE, currencyCode) ? total : null;
  } catch (error) {
    // A sum beyond what a double holds exactly (addMinor) is beyond the bound too.
    if (error instanceof RangeError) return total;
    throw error;
  }
}

export interface InvoiceMoney {
  totalMinor: number;
  paidActualMinor: number;
  paidPendingMinor: number;
  negativeAdjsMinor: number;
}

export interface InvoiceBalances {
  balanceMinor: number;
  actualBalanceMinor: number;
}

export function invoiceBalances(money: InvoiceMoney): InvoiceBalances {
  const actualBalanceMinor = money.totalMinor - money.paidActualMinor - money.negativeAdjsMinor;
  return { actualBalanceMinor, balanceMinor: actualBalanceMinor - money.paidPendingMinor };
}

/**
 * The invoice's VAT position (docs/tax.md, "What an invoice shows"): the taxes on its lines, what credits took off
 * them, and the VAT inside what it still owes: the Balance's share of the consideration left after the credits
 * (each unit of it carries the same tax), rounded half away from zero; 0 when nothing is owed.
 */
export function taxPosition(
  invoice: { taxes: readonly { totalMinor: number }[]; money: InvoiceMoney; balances: InvoiceBalances },
  credited: { amountMinor: number; taxMinor: number },
): { totalTaxMinor: number; balanceTaxMinor: number } {
  const totalTaxMinor = invoice.taxes.reduce((sum, tax) => sum + tax.totalMinor, 0);
  const leftMinor = invoice.money.totalMinor - credited.amountMinor;
  const owedMinor = Math.min(invoice.balances.balanceMinor, leftMinor);
  return {
    totalTaxMinor,
    balanceTaxMinor:
      owedMinor <= 0
        ? 0
        : taxShareOf({ totalMinor: leftMinor, taxMinor: totalTaxMinor - credited.taxMinor }, owedMinor),
  };
}

export const INVOICE_STATUSES = ['Draft', 'Cancelled', 'Paid', 'Pending', 'Due', 'Past Due'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/**
 * Status, first match wins:
 * 1. Cancelled when cancelled; 2. Draft while a draft;
 * 3. Paid when nothing is left to pay counting only cleared money (ActualBalance ≤ 0);
 * 4. Pending when what is left is covered by payments still pending (Balance ≤ 0 < ActualBalance);
 * 5. Past Due when money is still owed and the due date is before today (in the account's time zone);
 * 6. Due otherwise.
 */
export function invoiceStatus(
  invoice: InvoiceMoney & { isDraft: boolean; isCancelled: boolean; dueDate: string },
  today: string,
): InvoiceStatus {
  if (invoice.isCancelled) return 'Cancelled';
  if (invoice.isDraft) return 'Draft';
  const { balanceMinor, actualBalanceMinor } = invoiceBalances(invoice);
  if (actualBalanceMinor <= 0) return 'Paid';
  if (balanceMinor <= 0) return 'Pending';
  return invoice.dueDate < today ? 'Past Due' : 'Due';
}
