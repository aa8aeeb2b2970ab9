import Big from 'big.js';

/** Text for invoice documents (invoicePdf.ts). Pure. */

/** A tax fraction as a percentage: "0.15" → "15", "0.075" → "7.5". */
export function percentText(perc: string): string {
  return new Big(perc).times(100).toFixed();
}

/**
 * A stored decimal (a unit price, a quantity) with at least `digits` decimals, so prices line up with amounts:
 * ("3", 2) → "3.00", ("3.333", 2) → "3.333", ("-0.5", 2) → "-0.50". Never rounded: the document shows the price
 * that was billed.
 */
export function decimalForDocument(text: string, digits: number): string {
  const amount = new Big(text);
  const decimals = Math.max(0, amount.c.length - amount.e - 1);
  return amount.toFixed(Math.max(decimals, digits));
}

/** The characters of Windows-1252 beyond Latin-1 (0x80 to 0x9F). */
const CP1252_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/**
 * Text the standard PDF fonts can show. NOTE: Helvetica, built into every PDF reader, encodes Windows-1252 only;
 * other characters would come out as unrelated glyphs, so they are shown as "?" instead. Embedding a Unicode font
 * would lift this.
 */
export function winAnsiText(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    const printable =
      (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || CP1252_EXTRA.has(char);
    out += printable ? char : char === '\n' || char === '\t' ? char : '?';
  }
  return out;
}
