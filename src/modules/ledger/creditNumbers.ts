import type { ServiceContext } from '../../context.ts';
import { ConflictError } from '../../errors.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import * as creditNoteRepo from './creditNumber.repository.ts';
import * as taxCreditNoteRepo from './taxCreditNote.repository.ts';

/**
 * The one sequence of tax credit note numbers (docs/tax.md, "Tax credit notes"): credit notes of /v1/credits,
 * negative adjustments that reduce a supply and prepaid credit's documents take their numbers from it, and a
 * number is held by one document of the account (the register's unique index, tax_credit_notes).
 */

/**
 * The number of the n-th document the account numbers itself: `CN-` and the number, at least four digits
 * (`CN-0001`, ..., `CN-10000`), as the spec's example reference reads (docs/spec-decisions.md, "Credit notes").
 */
export function sequenceCreditNumber(n: number): string {
  return `CN-${String(n).padStart(4, '0')}`;
}

/**
 * The next number of the account's sequence that no document holds. A number already given by hand is passed
 * over: that credit note carries it, so the account's numbers still run without a gap.
 */
export async function nextCreditNumber(ctx: ServiceContext): Promise<string> {
  for (;;) {
    const creditNumber = sequenceCreditNumber(await creditNoteRepo.takeCreditNumber(ctx.db, ctx.account.id));
    if (!(await taxCreditNoteRepo.findIdByNumber(ctx.db, ctx.account.id, creditNumber))) return creditNumber;
  }
}

export function creditNumberTaken(creditNumber: string, holder?: number): ConflictError {
  return new ConflictError(
    'credit_number_taken',
    holder === undefined
      ? `CreditNumber "${creditNumber}" belongs to another credit note`
      : `CreditNumber "${creditNumber}" belongs to credit note ${holder}`,
  );
}

/**
 * A CreditNumber sent for a credit note is free when no other document holds it: checked first for a clear message
 * (naming the credit note that holds it), and the index's refusal is read as the same conflict when a concurrent
 * request took the number in between (writingCreditNumber).
 */
export async function assertCreditNumberFree(
  ctx: ServiceContext,
  creditNumber: string,
  creditNoteId?: number,
): Promise<void> {
  const holder = await creditNoteRepo.findCreditNoteIdByNumber(ctx.db, ctx.account.id, creditNumber);
  if (holder) {
    if (holder.id !== creditNoteId) throw creditNumberTaken(creditNumber, holder.id);
    return;
  }
  if (await taxCreditNoteRepo.findIdByNumber(ctx.db, ctx.account.id, creditNumber))
    throw creditNumberTaken(creditNumber);
}

export async function writingCreditNumber<T>(creditNumber: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw isUniqueViolation(error) ? creditNumberTaken(creditNumber) : error;
  }
}
