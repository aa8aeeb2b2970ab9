import type Big from 'big.js';
import { decimalToMinor, minorToDecimalText } from '../../core/money.ts';
import { BillingInvariantError } from '../invoicing/index.ts';
import { packageBlocks, pricePackage } from '../catalogue/index.ts';
import type { PackagePrice } from '../catalogue/index.ts';
import {
  PriceDecimal,
  PRICE_ZERO,
  chargedTiers,
  isScheme,
  parseQuantity,
  priceUsage,
  tiersOf,
} from '../catalogue/index.ts';
import type { Bracket, Scheme, Tier } from '../catalogue/index.ts';

/**
 * One usage charge, whatever the scheme: the amount (exact, unrounded) and the words an invoice line shows beside
 * the quantity. The bill run, the upcoming-invoice preview and every other preview price usage here.
 *
 * Line shape (docs/spec-decisions.md, "Pricing models"): one invoice line per usage period, as before, whose
 * description carries the breakdown. Brackets without flat fees under unit and volume keep their old line
 * exactly when the whole quantity is at one rate; where units are included (a bracket at 0.00) or reached at
 * several rates, the line says how many units at which rate (docs/spec-decisions.md, "Usage lines say what is
 * billed"): "1,000 included; 101 at 0.05". The other cases add their breakdown in parentheses:
 *   unit with flat fees: "1–100 units at 1.00 + 5.00 flat; 101–1,000 units at 0.50 + 10.00 flat"
 *   volume with flat fees: "101–1,000 units at 0.50 + 10.00 flat"
 *   stairstep: "101–1,000 units: 10.00 flat"
 *   package: "3 blocks of 100 at 5.00", or "first 50 free, 3 blocks of 100 at 5.00"
 * A quantity in no bracket (0, with the first bracket from 1) shows no breakdown. When more than 5 brackets are
 * reached, the first two and the last two are shown with the count of those between.
 */
export interface UsagePrice {
  scheme: Scheme;
  /** Empty under package. */
  brackets: readonly Bracket[];
  /** Set under package only. */
  pack?: PackagePrice | null;
}

export interface UsageCharge {
  /** Canonical decimal string in major units, not rounded. */
  amount: string;
  /** The breakdown for the invoice line, or null when the line keeps its plain shape. */
  detail: string | null;
}

function grouped(text: string): string {
  const [whole = '0', fraction] = text.split('.');
  const thousands = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? thousands : `${thousands}.${fraction}`;
}

/** "1234567.5" → "1,234,567.5": quantities as written, with thousands separated. */
export function groupedNumber(value: Big): string {
  return grouped(value.toFixed());
}

/** A price with at least 2 decimals and all it has (up to 4): "0.5" → "0.50", "0.125" → "0.125". */
export function shownPrice(value: Big): string {
  const decimals = Math.max(2, value.toFixed().split('.')[1]?.length ?? 0);
  return grouped(value.toFixed(decimals));
}

function rangeOf(tier: Tier): string {
  const from = groupedNumber(new PriceDecimal(tier.bracket.qtyFrom));
  return tier.upper === null ? `${from}+ units` : `${from}–${groupedNumber(tier.upper)} units`;
}

function bracketDetail(scheme: Scheme, tier: Tier): string {
  if (scheme === 'stairstep') return `${rangeOf(tier)}: ${shownPrice(tier.flat)} flat`;
  const flat = tier.flat.gt(PRICE_ZERO) ? ` + ${shownPrice(tier.flat)} flat` : '';
  return `${rangeOf(tier)} at ${shownPrice(tier.price)}${flat}`;
}

/** More brackets reached than this are shortened in the description. */
const MAX_BRACKETS_SHOWN = 5;

function hasFlatPrices(brackets: readonly Bracket[]): boolean {
  return brackets.some((b) => b.flatPrice !== undefined && b.flatPrice !== null);
}

/** The exact charge for `quantity` units under `price`, with its breakdown for the invoice line. */
export function chargeUsage(price: UsagePrice, quantity: string): UsageCharge {
  if (!isScheme(price.scheme)) throw new RangeError(`unknown pricing scheme: ${String(price.scheme)}`);
  if (price.scheme === 'package') {
    if (!price.pack) throw new RangeError('the package scheme needs a package price');
    const blocks = packageBlocks(price.pack, quantity);
    const free =
      price.pack.freeUnits && !new PriceDecimal(price.pack.freeUnits).eq(PRICE_ZERO)
        ? price.pack.freeUnits
        : null;
    const counted = `${groupedNumber(blocks)} ${blocks.eq(new PriceDecimal('1')) ? 'block' : 'blocks'} of ${groupedNumber(
      new PriceDecimal(price.pack.packageSize),
    )} at ${shownPrice(new PriceDecimal(price.pack.price))}`;
    return {
      amount: pricePackage(price.pack, quantity),
      detail: free ? `first ${groupedNumber(new PriceDecimal(free))} free, ${counted}` : counted,
    };
  }
  const amount = priceUsage(price.scheme, price.brackets, quantity);
  const charged = chargedTiers(price.scheme, tiersOf(price.scheme, price.brackets), parseQuantity(quantity));
  if (charged.length === 0) return { amount, detail: null };
  if (price.scheme !== 'stairstep' && !hasFlatPrices(price.brackets)) {
    return { amount, detail: showsRates(charged) ? shortened(charged.map(unitsAtRate)).join('; ') : null };
  }
  const parts = charged.map(({ tier }) => bracketDetail(price.scheme, tier));
  return { amount, detail: shortened(parts).join('; ') };
}

/**
 * A line's description stays readable (and within what an invoice edit accepts): the first and last two brackets
 * reached, and how many lie between.
 */
function shortened(parts: string[]): string[] {
  return parts.length <= MAX_BRACKETS_SHOWN
    ? parts
    : [...parts.slice(0, 2), `… ${parts.length - 4} more brackets …`, ...parts.slice(-2)];
}

/**
 * Whether a plain line (no flat fees) would hide how its charge was made: units included free, or the quantity
 * reached at more than one rate. A whole quantity at one rate keeps its old line.
 */
function showsRates(charged: readonly { tier: Tier }[]): boolean {
  return charged.length > 1 || charged.some(({ tier }) => tier.price.eq(PRICE_ZERO));
}

/** "1,000 included", "101 at 0.05": the units a bracket billed and at what rate. */
function unitsAtRate({ tier, units }: { tier: Tier; units: Big }): string {
  const count = groupedNumber(units);
  return tier.price.eq(PRICE_ZERO) ? `${count} included` : `${count} at ${shownPrice(tier.price)}`;
}

/**
 * What late events added to a period already billed, priced as the difference between the period's price with
 * them and without them (docs/design/usage.md, "Late events and grace"): under tiers, the units added are priced
 * at the brackets they reach, not the first. In the currency's minor units, each price rounded as its invoice line
 * was: the period's lines then add up to the rounded price of its whole quantity, however many corrections it takes
 * (a unit at 0.005 billed as 0.01, and one more late, is corrected by 0.00, not by a second cent). Negative when the
 * quantity went down. Throws BillingInvariantError past what an amount may be, so the bill run holds the
 * subscription.
 */
export function chargeCorrection(
  price: UsagePrice,
  billed: string,
  added: string,
  currencyCode: string,
): string {
  const total = new PriceDecimal(billed).plus(new PriceDecimal(added)).toFixed();
  try {
    const minor =
      decimalToMinor(chargeUsage(price, total).amount, currencyCode) -
      decimalToMinor(chargeUsage(price, billed).amount, currencyCode);
    return minorToDecimalText(minor, currencyCode);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new BillingInvariantError(`a usage correction past what an amount may be: ${error.message}`);
  }
}
