import { identityKindOf, identityNumberEnding, identityNumberProblem } from '../../core/identityNumbers.ts';
import type { IdentityKind } from '../../core/identityNumbers.ts';
import type { FieldProblem } from '../../errors.ts';
import type { DebitMethod } from '../mandates/index.ts';

/**
 * The debtor's identity number of a debit-order bank account (beyond the spec; docs/spec-decisions.md, "The debtor's
 * ID number"): `IdNumber`, a South-African ID number (13 digits, its birth date and its Luhn check digit) or a
 * passport number, and `IdType`, which of the two (`sa_id` when left out). South-African account verification and
 * DebiCheck send it to the debtor's bank. The problems never repeat the number.
 */

export const IDENTITY_KINDS: readonly IdentityKind[] = ['sa_id', 'passport'];

/** An identity number as it is kept: its kind and the number, written without spaces (a passport's in capitals). */
export interface Identity {
  kind: IdentityKind;
  number: string;
}

/** What a person may be shown of it: its kind and its last three characters. */
export const shownIdentity = (identity: Identity) => ({
  kind: identity.kind,
  ending: identityNumberEnding(identity.number),
});

const field = (name: string) => `BankAccount.${name}`;
const blank = (text: string | null | undefined) => text === null || text === undefined || text.trim() === '';

/**
 * The identity number a body gives: undefined when it gives none (both fields left out: an edit keeps the account's
 * own), null when IdNumber is null or blank (cleared), else the checked number. Only a debit_order account carries
 * one. Every problem goes to `problems`, keyed `BankAccount.IdNumber` or `BankAccount.IdType`.
 */
export function checkedIdentity(
  given: { idNumber?: string | null; idType?: string | null },
  method: DebitMethod | undefined,
  problems: FieldProblem[],
): Identity | null | undefined {
  if (given.idNumber === undefined && given.idType === undefined) return undefined;
  if (blank(given.idNumber)) {
    if (!blank(given.idType))
      problems.push({ field: field('IdType'), message: 'is only given with an IdNumber' });
    return null;
  }
  if (method !== undefined && method !== 'debit_order') {
    problems.push({ field: field('IdNumber'), message: `is only for debit_order, not ${method}` });
    return null;
  }
  const kind = blank(given.idType) ? 'sa_id' : identityKindOf(given.idType!);
  if (kind === undefined) {
    problems.push({ field: field('IdType'), message: `must be one of ${IDENTITY_KINDS.join(', ')}` });
    return null;
  }
  const written = given.idNumber!.replace(/[\s-]/g, '');
  const number = kind === 'passport' ? written.toUpperCase() : written;
  const problem = identityNumberProblem(kind, number);
  if (problem !== null) {
    problems.push({ field: field('IdNumber'), message: problem });
    return null;
  }
  return { kind, number };
}
