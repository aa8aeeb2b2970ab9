import { ratioOfMinor } from './money.ts';

/**
 * The tax inside a part of a document's money (docs/tax.md, "The VAT in a reduction"). Pure; amounts in the
 * currency's minor unit. An invoice's taxes apply to all its lines, so each unit of its Total carries the same
 * share of tax: a part P of a Total T with tax V carries P × V / T, rounded half away from zero (money.ts).
 *
 * Parts are counted cumulatively (src/modules/ledger/reduction.ts), so that an invoice reduced in several parts has
 * exactly its tax taken off once it is reduced by its whole Total: the tax of a part is share(reduced after) − the
 * tax reduced before, never a rounding of its own. Example: an invoice of 115.00 with 15.00 of VAT reduced by 10.00 three times: shares of
 * 10.00, 20.00, 30.00 are 1.30 (1.304…), 2.61 (2.608…), 3.91 (3.913…), so the parts carry 1.30, 1.31 and 1.30;
 * rounded one by one they would carry 1.30 three times and leave a cent behind when the invoice is credited whole.
 */
export interface TaxedTotal {
  /** The document's Total, taxes included; 0 or above. */
  totalMinor: number;
  /** The taxes in it (Σ of the taxes' totals). */
  taxMinor: number;
}

/** The tax that `partMinor` of the Total carries, on its own (what the part's share is when nothing else is). */
export function taxShareOf(document: TaxedTotal, partMinor: number): number {
  if (document.totalMinor <= 0 || document.taxMinor === 0) return 0;
  return ratioOfMinor(document.taxMinor, partMinor, document.totalMinor);
}

/**
 * An amount shared by weights (the taxes' totals of an invoice) by the largest remainder: each part the floor of
 * amount × weight / Σ weights, the minor units left one each to the largest remainders (ties: the earlier weight).
 * The parts sum to the amount exactly; a negative amount is shared as its magnitude and negated. All weights 0:
 * the first takes it all.
 */
export function shareByWeights(amountMinor: number, weights: readonly number[]): number[] {
  if (weights.length === 0) return [];
  const sign = amountMinor < 0 ? -1n : 1n;
  const amount = BigInt(amountMinor) * sign;
  const units = weights.map((weight) => BigInt(Math.abs(weight)));
  const sum = units.reduce((a, b) => a + b, 0n);
  if (sum === 0n) return weights.map((_, i) => (i === 0 ? amountMinor : 0));
  const parts = units.map((unit) => (amount * unit) / sum);
  let left = amount - parts.reduce((a, b) => a + b, 0n);
  const byRemainder = units
    .map((unit, i) => ({ i, remainder: (amount * unit) % sum }))
    .sort((a, b) => (a.remainder === b.remainder ? a.i - b.i : a.remainder > b.remainder ? -1 : 1));
  for (const { i } of byRemainder) {
    if (left === 0n) break;
    parts[i]! += 1n;
    left -= 1n;
  }
  return parts.map((part) => Number(part * sign));
}
