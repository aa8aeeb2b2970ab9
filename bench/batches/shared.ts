/**
 * What the batch benchmark's parent (seeding, checks) and its measured processes share: the days, the creditor,
 * the debtors' IBANs and the lines' amounts. Light on purpose: the measured processes load it.
 */

/** A Monday: the day the batches are seeded, submitted and built (UTC account). */
export const RUN_DATE = '2026-03-02';
export const SEED_AT = `${RUN_DATE}T08:00:00.000Z`;
/** The instant the measured processes run at (their context's and their app's clock). */
export const BUILD_AT = `${RUN_DATE}T09:00:00.000Z`;

/** The bankfile gateway's settings: the SEPA creditor the files collect for. */
export const CREDITOR = {
  creditorName: 'Northwind Software',
  creditorIban: 'DE89370400440532013000',
  creditorSchemeId: 'DE98ZZZ09999999999',
} as const;

/** ISO 7064 MOD 97-10 of a string of digits, in chunks (the number is far beyond 2^53). */
function mod97(digits: string): number {
  let remainder = 0;
  for (let at = 0; at < digits.length; at += 7) {
    remainder = Number(`${remainder}${digits.slice(at, at + 7)}`) % 97;
  }
  return remainder;
}

/**
 * The i-th customer's IBAN: German (Commerzbank's bank code 37040044), account number 0500000000 + i, with correct
 * check digits (98 − the BBAN followed by "DE00" as digits, mod 97). Distinct for every customer.
 */
export function debtorIban(i: number): string {
  const bban = `37040044${String(500_000_000 + i).padStart(10, '0')}`;
  // D = 13, E = 14.
  const check = 98 - mod97(`${bban}131400`);
  return `DE${String(check).padStart(2, '0')}${bban}`;
}

/**
 * The amount of batch b's line for customer i, in cents: from 5.00 to about 1 000.00, spread (a deterministic
 * pseudo-random walk, the same in every run).
 */
export function amountMinorOf(b: number, i: number): number {
  return 500 + (((b * 1000 + i) * 7919 + 104_729) % 99_500);
}
