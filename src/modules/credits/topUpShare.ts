/**
 * A paid top-up's credit against its invoice's money (docs/credits.md, "Crediting a top-up", "Refunding unused
 * credit"): the invoice sells `creditMinor` of credit for `totalMinor` (the credit and its tax), so each part of the
 * invoice's money stands for the same part of the credit. Figures are cumulative, so that parts taken one at a time
 * add up exactly to the whole: the credit a credit note stands for is creditOf(credited after) − creditOf(credited
 * before), never a rounding of its own. Both round half up, in integers.
 */
export interface TopUpPrice {
  /** The credit sold (the grant's Amount), in minor units; above 0. */
  creditMinor: number;
  /** The invoice's total: the credit with its tax; at least creditMinor. */
  totalMinor: number;
}

/** The credit that `moneyMinor` of the invoice's money stands for (0 to creditMinor). */
export function creditOf(price: TopUpPrice, moneyMinor: number): number {
  return roundedRatio(moneyMinor, price.creditMinor, price.totalMinor);
}

/**
 * The invoice's money that `creditMinor` of its credit stands for. creditOf(moneyOf(c)) is c for every c: with tax
 * each cent of money is worth less than a cent of credit, so rounding the money never crosses half a cent of credit;
 * without, both are the identity.
 */
export function moneyOf(price: TopUpPrice, creditMinor: number): number {
  return roundedRatio(creditMinor, price.totalMinor, price.creditMinor);
}

/** a × b / c rounded half up, exactly (a, b, c ≥ 0, c > 0). */
function roundedRatio(a: number, b: number, c: number): number {
  return Number((2n * BigInt(a) * BigInt(b) + BigInt(c)) / (2n * BigInt(c)));
}
