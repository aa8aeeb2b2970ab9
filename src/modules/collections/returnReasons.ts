/**
 * One return-reason taxonomy across rails (docs/design/batches.md, "Return reasons"; the table: docs/bank-files.md,
 * "Return reasons"): each rail's unpaid, return or reject code maps to an internal reason, which decides what
 * collections does next (retry, invalidate the method, ask for a new mandate, open a dispute).
 */

/**
 * The internal reasons. Pairs that share a row in the design (payment_stopped / authorisation_revoked, unauthorised
 * / disputed, account_frozen / legal, expired_card / lost_stolen) are kept apart because the codes say which of the
 * two happened; `unclassified` is a code no table here knows.
 */
export const RETURN_REASONS = [
  'insufficient_funds',
  'uncleared_funds',
  'account_closed',
  'invalid_account',
  'debits_not_allowed',
  'payment_stopped',
  'authorisation_revoked',
  'unauthorised',
  'disputed',
  'deceased',
  'account_frozen',
  'legal',
  'consecutive_unpaids',
  'expired_card',
  'lost_stolen',
  'authentication_required',
  'technical',
  'unclassified',
] as const;
export type ReturnReason = (typeof RETURN_REASONS)[number];

/**
 * A rail's code in the taxonomy. `retryable` means the same collection may be presented again automatically (within
 * the scheme's limits: docs/design/batches.md, "Presenting again"); everything else waits for a person, a corrected
 * file, a new method or a new mandate. It belongs to the code, not the reason: SA code 22 and ACH R09 are both
 * uncleared funds, but only the ACH one may be re-presented.
 */
export interface ReasonMapping {
  readonly reason: ReturnReason;
  readonly retryable: boolean;
}

const UNCLASSIFIED: ReasonMapping = { reason: 'unclassified', retryable: false };

function mapping(reason: ReturnReason, retryable = false): ReasonMapping {
  return { reason, retryable };
}

/**
 * A table's own entry for a code: a code comes from a bank's file or a person's form, and `toString` or `valueOf`
 * must be unknown, not a function the table inherits (docs/spec-decisions.md, "Request bodies").
 */
function lookUp(table: Readonly<Record<string, ReasonMapping>>, code: string): ReasonMapping {
  return Object.hasOwn(table, code) ? table[code]! : UNCLASSIFIED;
}

/**
 * SA EFT unpaid codes (Bankserv EF70; docs/design/batches.md, "SA debit orders"). 02 may be re-run on the next
 * mandated date (once: "Presenting again"); 22 is permanent in the current Netcash table; 83 is the one technical
 * code that says "retry allowed". The card-only codes 81-90 other than 83 belong to the card rail.
 */
const SA_EFT: Readonly<Record<string, ReasonMapping>> = {
  '02': mapping('insufficient_funds', true),
  '03': mapping('debits_not_allowed'),
  '04': mapping('payment_stopped'),
  '06': mapping('account_frozen'),
  '08': mapping('legal'),
  '10': mapping('legal'),
  '12': mapping('account_closed'),
  '14': mapping('account_closed'),
  '16': mapping('account_closed'),
  '18': mapping('deceased'),
  '22': mapping('uncleared_funds'),
  '26': mapping('invalid_account'),
  '28': mapping('disputed'),
  '30': mapping('unauthorised'),
  '32': mapping('disputed'),
  '34': mapping('authorisation_revoked'),
  '36': mapping('payment_stopped'),
  '50': mapping('invalid_account'),
  '56': mapping('legal'),
  '60': mapping('consecutive_unpaids'),
  '83': mapping('technical', true),
  '145': mapping('technical'),
};

/**
 * ACH return codes (docs/design/batches.md, "ACH"). R01 and R09 may be re-initiated up to twice within 180 days; R11
 * (not in accordance with the authorisation) is a dispute like R10. R13 and R17-R28 are file and entry errors:
 * resubmit after correction, never unchanged.
 */
const ACH: Readonly<Record<string, ReasonMapping>> = {
  R01: mapping('insufficient_funds', true),
  R02: mapping('account_closed'),
  R03: mapping('invalid_account'),
  R04: mapping('invalid_account'),
  R05: mapping('unauthorised'),
  R07: mapping('authorisation_revoked'),
  R08: mapping('payment_stopped'),
  R09: mapping('uncleared_funds', true),
  R10: mapping('unauthorised'),
  R11: mapping('disputed'),
  R14: mapping('deceased'),
  R15: mapping('deceased'),
  R16: mapping('account_frozen'),
  R20: mapping('debits_not_allowed'),
  R29: mapping('unauthorised'),
  ...Object.fromEntries(
    [13, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28].map((n) => [`R${n}`, mapping('technical')]),
  ),
};

/**
 * SEPA reason codes of rejects, returns and refunds (docs/design/batches.md, "SEPA direct debits"; the SDD
 * rulebook's list). MS03 (reason not specified) counts as insufficient funds, as the design says, because banks use
 * it to hide AM04 for data protection; the limits on presenting again stop it repeating if it hid a closed account.
 * Format and data rejects are technical.
 */
const SEPA: Readonly<Record<string, ReasonMapping>> = {
  AC01: mapping('invalid_account'),
  AC04: mapping('account_closed'),
  AC06: mapping('debits_not_allowed'),
  AC13: mapping('debits_not_allowed'),
  AG01: mapping('debits_not_allowed'),
  AG02: mapping('technical'),
  AM04: mapping('insufficient_funds', true),
  AM05: mapping('technical'),
  BE05: mapping('technical'),
  CNOR: mapping('technical'),
  DNOR: mapping('invalid_account'),
  FF01: mapping('technical'),
  MD01: mapping('authorisation_revoked'),
  MD02: mapping('technical'),
  MD06: mapping('disputed'),
  MD07: mapping('deceased'),
  MS02: mapping('payment_stopped'),
  MS03: mapping('insufficient_funds', true),
  RC01: mapping('invalid_account'),
  RR01: mapping('technical'),
  RR02: mapping('technical'),
  RR03: mapping('technical'),
  RR04: mapping('legal'),
  SL01: mapping('debits_not_allowed'),
};

/** An SA EFT unpaid code ("2" and "02" alike) in the taxonomy; `unclassified` if unknown. */
export function saEftReason(code: string): ReasonMapping {
  const digits = code.trim();
  const key = /^\d$/.test(digits) ? `0${digits}` : digits;
  return lookUp(SA_EFT, key);
}

/** An ACH return reason code (R01...) in the taxonomy; `unclassified` if unknown. */
export function achReason(code: string): ReasonMapping {
  return lookUp(ACH, code.trim().toUpperCase());
}

/** An ISO 20022 status reason code as SEPA uses it (AC01, AM04, MD01...) in the taxonomy; `unclassified` if unknown. */
export function sepaReason(code: string): ReasonMapping {
  return lookUp(SEPA, code.trim().toUpperCase());
}

/** Every code each table knows, for documentation and tests. */
export const KNOWN_REASON_CODES = {
  saEft: Object.keys(SA_EFT),
  ach: Object.keys(ACH),
  sepa: Object.keys(SEPA),
} as const;
