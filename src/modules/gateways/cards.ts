/**
 * Payment card numbers: the Luhn check and which brand a number belongs to. Pure; the number passes through and
 * is never kept or put into a message (callers must not log it either).
 */

/** Spec, Payment methods: the CardType values, spelled as the spec writes them. */
export const CARD_TYPES = [
  'Visa',
  'Mastercard',
  'American Express',
  'Diners Club',
  'Discover',
  'JCB',
  'Dankort',
  'Maestro',
  'Forbrugsforeningen',
  'Unknown',
] as const;
export type CardType = (typeof CARD_TYPES)[number];

/** ISO/IEC 7812: a card number has 12 to 19 digits (Maestro goes as low as 12). */
export const CARD_NUMBER_MIN_DIGITS = 12;
export const CARD_NUMBER_MAX_DIGITS = 19;

/** The brand spelled as the spec spells it, whatever the letter case and spacing given; undefined if none. */
export function cardTypeOf(text: string): CardType | undefined {
  const wanted = text.trim().replace(/\s+/g, ' ').toLowerCase();
  return CARD_TYPES.find((type) => type.toLowerCase() === wanted);
}

/** The digits of a number as people write it (spaces and dashes between groups); undefined if anything else. */
export function cardDigits(text: string): string | undefined {
  const digits = text.replace(/[\s-]/g, '');
  return /^\d+$/.test(digits) ? digits : undefined;
}

/** The Luhn (mod 10) check that every card number carries in its last digit. */
export function isLuhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** An issuer identification number range: numbers whose first digits lie in [from, to], with these lengths. */
interface IinRange {
  from: number;
  to: number;
  lengths: readonly number[];
}

const range = (from: number, to: number, lengths: readonly number[]): IinRange => ({ from, to, lengths });
const span = (min: number, max: number) => Array.from({ length: max - min + 1 }, (_, i) => min + i);

/**
 * The brands' published IIN ranges. Brands overlap (Maestro's wide 5 and 6 ranges take in Dankort, Discover and
 * Forbrugsforeningen numbers, and a co-branded Visa/Dankort card starts 4571), so a number may fit more than one;
 * a card is accepted as any brand whose ranges it fits.
 */
const IIN_RANGES: Record<Exclude<CardType, 'Unknown'>, readonly IinRange[]> = {
  Visa: [range(4, 4, [13, 16, 19])],
  Mastercard: [range(51, 55, [16]), range(2221, 2720, [16])],
  'American Express': [range(34, 34, [15]), range(37, 37, [15])],
  'Diners Club': [
    range(300, 305, span(14, 19)),
    range(3095, 3095, span(14, 19)),
    range(36, 36, span(14, 19)),
    range(38, 39, span(14, 19)),
  ],
  Discover: [
    range(6011, 6011, span(16, 19)),
    range(644, 649, span(16, 19)),
    range(65, 65, span(16, 19)),
    // China UnionPay cards co-branded with Discover.
    range(622126, 622925, span(16, 19)),
  ],
  JCB: [range(3528, 3589, span(16, 19))],
  Dankort: [range(5019, 5019, [16]), range(4571, 4571, [16])],
  Maestro: [range(50, 50, span(12, 19)), range(56, 69, span(12, 19))],
  Forbrugsforeningen: [range(600722, 600722, [16])],
};

function fits(digits: string, iin: IinRange): boolean {
  const width = String(iin.from).length;
  const prefix = Number(digits.slice(0, width));
  return (
    digits.length >= width && prefix >= iin.from && prefix <= iin.to && iin.lengths.includes(digits.length)
  );
}

/**
 * Whether a Luhn-valid number of a card's length can be a card of this brand. Unknown accepts any such number:
 * it is what a client sends for a brand outside the list.
 */
export function matchesCardType(digits: string, type: CardType): boolean {
  if (digits.length < CARD_NUMBER_MIN_DIGITS || digits.length > CARD_NUMBER_MAX_DIGITS) return false;
  if (type === 'Unknown') return true;
  return IIN_RANGES[type].some((iin) => fits(digits, iin));
}

/** The brands a number may belong to, most specific first (for telling a client what its number looks like). */
export function cardTypesOf(digits: string): CardType[] {
  const types = (Object.keys(IIN_RANGES) as Exclude<CardType, 'Unknown'>[]).filter((type) =>
    matchesCardType(digits, type),
  );
  // Maestro's ranges are the widest: a number that fits another brand is first of all that brand.
  return types.sort((a, b) => Number(a === 'Maestro') - Number(b === 'Maestro'));
}
