import { shareByWeights } from '../../core/taxShare.ts';

/**
 * The rates a reduction's VAT was taken at (docs/tax.md, "How a crossing period is invoiced"). Pure; amounts in the
 * currency's minor unit, with the reduction's sign.
 *
 * A reduction's VAT is, as a rule, a share of its invoice's, spread over the invoice's taxes by their totals
 * (taxShare.ts). A cut's credit of an invoice billed at two rates credits the unused days at those days' rates
 * (src/modules/subscriptions/subscriptionChanges.ts, `creditsForCut`), so it states its parts: per set of the
 * invoice's taxes its days bore (their positions in the invoice's taxes), the amount with taxes and each tax's VAT.
 * Example: the quarter of 300.00 billed 98.90 at 15 % (position 0) and 201.10 at 15.5 % (position 1), cut on
 * 16 June: one part, positions [1], amount 57.11, VAT [7.66]; the credit note shows 0 at 15 % and 7.66 at 15.5 %.
 */
export interface ReductionTaxPart {
  /** Positions in the invoice's taxes, in their order. */
  positions: readonly number[];
  /** Taxes included. */
  amountMinor: number;
  /** Each position's VAT. */
  taxesMinor: readonly number[];
}

export const taxOfParts = (parts: readonly ReductionTaxPart[]): number =>
  parts.reduce((sum, part) => sum + part.taxesMinor.reduce((a, b) => a + b, 0), 0);

export const amountOfParts = (parts: readonly ReductionTaxPart[]): number =>
  parts.reduce((sum, part) => sum + part.amountMinor, 0);

/** Stored as JSON; null: a share of the whole invoice. */
export function taxPartsToColumn(parts: readonly ReductionTaxPart[] | null | undefined): string | null {
  if (!parts || parts.length === 0) return null;
  return JSON.stringify(
    parts.map(({ positions, amountMinor, taxesMinor }) => ({ positions, amountMinor, taxesMinor })),
  );
}

export function taxPartsFromColumn(column: string | null): ReductionTaxPart[] | null {
  if (column === null) return null;
  return (JSON.parse(column) as ReductionTaxPart[]).map((part) => ({
    positions: part.positions.map(Number),
    amountMinor: Number(part.amountMinor),
    taxesMinor: part.taxesMinor.map(Number),
  }));
}

/** Parts of the same positions added together; a part given back (negative) nets out. */
export function sumTaxParts(lists: readonly (readonly ReductionTaxPart[])[]): ReductionTaxPart[] {
  const byKey = new Map<string, ReductionTaxPart & { taxesMinor: number[] }>();
  for (const part of lists.flat()) {
    const key = part.positions.join(',');
    const sum = byKey.get(key) ?? {
      positions: part.positions,
      amountMinor: 0,
      taxesMinor: part.positions.map(() => 0),
    };
    sum.amountMinor += part.amountMinor;
    part.taxesMinor.forEach((tax, i) => (sum.taxesMinor[i] = (sum.taxesMinor[i] ?? 0) + tax));
    byKey.set(key, sum);
  }
  return [...byKey.values()];
}

/**
 * The VAT of reductions by the invoice's taxes (`taxTotals`, in their order): the stated parts' VAT at their
 * positions, and the VAT of the rest (`unstatedTaxMinor`, reductions that state none) shared by the taxes' totals.
 */
export function taxesByPosition(
  taxTotals: readonly number[],
  stated: readonly ReductionTaxPart[],
  unstatedTaxMinor: number,
): number[] {
  const taxes = shareByWeights(unstatedTaxMinor, taxTotals);
  for (const part of stated)
    part.positions.forEach((position, i) => {
      if (position < taxes.length) taxes[position]! += part.taxesMinor[i] ?? 0;
    });
  return taxes;
}
