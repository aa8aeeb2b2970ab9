/**
 * Tax-inclusive prices: a price that already contains the invoice's taxes, split into net and tax. Pure; amounts
 * in the currency's minor unit. The rule is per line, like the rounding of exclusive lines (invoiceMath.ts):
 *
 * 1. The gross G = Qty × the unit price including tax, rounded once (money.ts: half away from zero). It is the
 *    line's AmountInc: what the customer was quoted is what they pay.
 * 2. The net N = G / (1 + Σ percs), rounded half away from zero. It is the line's AmountEx.
 * 3. The line's tax T = G − N, so N + T = G exactly, whatever the rounding of N did.
 * 4. With several taxes, T is shared in proportion to their percs by the largest remainder: each tax first gets
 *    the floor of T × perc / Σ percs, then the minor units left over go one each to the taxes with the largest
 *    remainders (ties: the larger perc, then the earlier tax). So the parts sum to T exactly and each is less
 *    than one minor unit from its proportional share; a zero-rated tax gets 0.
 *
 * A negative gross (a discount line) is split as its magnitude and negated, so a discount mirrors the charge.
 *
 * Worked examples, USD:
 * - 10.00 at 15%: N = 10.00 / 1.15 = 8.6956… → 8.70; T = 1.30. (Exclusive, 8.70 would give 8.70 + 1.31 =
 *   10.01: pricing the net and adding the tax is the off-by-a-cent error this rule avoids.)
 * - 100.00 at 15% and 2%: N = 100.00 / 1.17 = 85.4700… → 85.47; T = 14.53; in cents the shares are
 *   1453 × 15/17 = 1282.05… and 1453 × 2/17 = 170.94…; the floors 1282 and 170 leave one cent, which goes to the
 *   larger remainder, the second: taxes 12.82 and 1.71.
 */

/** An exact decimal fraction ("0.15") as an integer over a power of ten. */
function parsePerc(perc: string): { units: bigint; scale: number } {
  if (!/^\d+(\.\d+)?$/.test(perc)) throw new RangeError(`not a tax fraction: ${perc}`);
  const [whole, fraction = ''] = perc.split('.');
  return { units: BigInt(whole! + fraction), scale: fraction.length };
}

/** The percs on one common scale: units_i / 10^scale. */
function commonScale(taxPercs: readonly string[]): { units: bigint[]; denominator: bigint } {
  const parsed = taxPercs.map(parsePerc);
  const scale = Math.max(0, ...parsed.map((p) => p.scale));
  return {
    units: parsed.map((p) => p.units * 10n ** BigInt(scale - p.scale)),
    denominator: 10n ** BigInt(scale),
  };
}

/** numerator / denominator rounded half away from zero, for numerator ≥ 0 and denominator > 0. */
function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (denominator * 2n);
}

function toSafeNumber(value: bigint): number {
  const result = Number(value);
  if (!Number.isSafeInteger(result)) throw new RangeError(`amount ${value} is beyond the safe integer range`);
  return result;
}

export interface InclusiveSplit {
  netMinor: number;
  /** One entry per tax, in the taxes' order; they sum to gross − net exactly. */
  taxMinor: number[];
}

/**
 * A line's own percs among the invoice's taxes (docs/tax.md, "Supplies that span a change"): a tax whose position is
 * not among the line's is 0 for it, so it takes none of the line's tax; null positions: all of the invoice's taxes.
 */
export function lineTaxPercs(
  taxPercs: readonly string[],
  positions: readonly number[] | null | undefined,
): string[] {
  if (positions === null || positions === undefined) return [...taxPercs];
  return taxPercs.map((perc, i) => (positions.includes(i) ? perc : '0'));
}

/** A gross amount that includes the taxes, split into net and one part per tax by the rule above. */
export function splitInclusive(grossMinor: number, taxPercs: readonly string[]): InclusiveSplit {
  if (!Number.isSafeInteger(grossMinor)) throw new RangeError(`amount ${grossMinor} is not a safe integer`);
  const sign = grossMinor < 0 ? -1n : 1n;
  const gross = BigInt(grossMinor) * sign;
  const { units, denominator } = commonScale(taxPercs);
  const percSum = units.reduce((a, b) => a + b, 0n);
  const net = divideHalfUp(gross * denominator, denominator + percSum);
  const tax = gross - net;
  const parts = units.map(() => 0n);
  if (percSum > 0n) {
    const remainders = units.map((u, i) => {
      parts[i] = (tax * u) / percSum;
      return { i, remainder: (tax * u) % percSum, perc: u };
    });
    let left = tax - parts.reduce((a, b) => a + b, 0n);
    remainders.sort((a, b) =>
      a.remainder !== b.remainder
        ? Number(b.remainder - a.remainder)
        : a.perc !== b.perc
          ? Number(b.perc - a.perc)
          : a.i - b.i,
    );
    for (const { i } of remainders) {
      if (left === 0n) break;
      parts[i]! += 1n;
      left -= 1n;
    }
  }
  return {
    netMinor: toSafeNumber(net * sign),
    taxMinor: parts.map((p) => toSafeNumber(p * sign)),
  };
}

/**
 * The unit price excluding tax that an inclusive unit price stands for, to `decimals` places (half away from
 * zero). Only shown beside the price (UnitCostEx of a tax-inclusive charge); the amounts come from
 * splitInclusive, never from this figure.
 */
export function netUnitPrice(unitCostInc: string, taxPercs: readonly string[], decimals: number): string {
  if (!/^-?\d+(\.\d+)?$/.test(unitCostInc)) throw new RangeError(`not a plain decimal: ${unitCostInc}`);
  const negative = unitCostInc.startsWith('-');
  const { units: priceUnits, scale: priceScale } = parsePerc(negative ? unitCostInc.slice(1) : unitCostInc);
  const { units, denominator } = commonScale(taxPercs);
  const percSum = units.reduce((a, b) => a + b, 0n);
  // price × 10^decimals × denominator / ((denominator + Σ) × 10^priceScale)
  const scaled = divideHalfUp(
    priceUnits * 10n ** BigInt(decimals) * denominator,
    (denominator + percSum) * 10n ** BigInt(priceScale),
  );
  const text = scaled.toString().padStart(decimals + 1, '0');
  const body = decimals === 0 ? text : `${text.slice(0, -decimals)}.${text.slice(-decimals)}`;
  return negative && scaled !== 0n ? `-${body}` : body;
}
