/**
 * SEPA identifiers (mandate references, message and payment ids) as the EPC rules allow them: checked when a person
 * types a bank account's mandate reference and again when a pain.008 is written.
 */

/** EPC SDD Core IG: Max35Text identifiers. */
export const SEPA_MAX_ID = 35;

/** The SEPA (EPC) Latin character set: the only characters every bank in the scheme must carry. */
export const SEPA_CHARACTERS = /^[A-Za-z0-9/\-?:().,'+ ]*$/;

/**
 * Identifiers are never converted: the bank echoes them back and we match on them. EPC: Latin characters only,
 * no leading or trailing `/`, no `//`.
 */
export function sepaIdProblem(id: string, max: number): string | undefined {
  if (id.length === 0) return 'must not be empty';
  if (id.length > max) return `must be at most ${max} characters, not ${id.length}`;
  if (!SEPA_CHARACTERS.test(id)) return "must use only A-Z a-z 0-9 / - ? : ( ) . , ' + and space";
  if (id !== id.trim()) return 'must not start or end with a space';
  if (id.startsWith('/') || id.endsWith('/') || id.includes('//')) {
    return 'must not start or end with / nor contain //';
  }
  return undefined;
}

/** What is wrong with a unique mandate reference (UMR) for a pain.008, as a person typed it: undefined if nothing. */
export function mandateReferenceProblem(reference: string): string | undefined {
  return sepaIdProblem(reference, SEPA_MAX_ID);
}
