import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { IdentityKind } from '../../core/identityNumbers.ts';
import { ConflictError } from '../../errors.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import * as repo from './emandate.repository.ts';
import { emandateRef, getEmandate } from './emandate.service.ts';
import { tokenDigest } from './emandateToken.ts';

/** The bank account a payment method is to be collected under the mandate with, as payment methods checked it. */
export interface MandatedBankAccount {
  customerId: number;
  debitMethod: string;
  accountNumber: string | null;
  branchCode: string | null;
  /** The method itself, on an edit (its own link is no conflict). */
  paymentMethodId?: number;
}

const comparable = (code: string | null) => (code ?? '').replace(/[\s-]/g, '').toUpperCase();

/**
 * Why a bank account may not be linked to the eMandate `token` names (docs/design/mandates.md, "Lifecycle": an
 * unsigned or expired token is refused), or undefined when it may: the mandate is signed, for the same account
 * number and branch code (a debit order), for the same customer when it names one, and not linked to another
 * payment method. A message to put after the field's name.
 */
export async function emandateLinkProblem(
  ctx: ServiceContext,
  token: string,
  account: MandatedBankAccount,
): Promise<string | undefined> {
  const record = await repo.findEmandateByTokenDigest(ctx.db, ctx.account.id, tokenDigest(token));
  if (!record) return 'does not name an eMandate of this account';
  const mandate = await getEmandate(ctx, token);
  if (mandate.status === 'expired') return 'names an eMandate that expired unsigned';
  if (mandate.status === 'rejected') return 'names an eMandate the signee declined';
  if (mandate.status === 'cancelled') return 'names an eMandate that was cancelled';
  if (mandate.status !== 'signed') return 'names an eMandate that is not signed yet';
  if (account.debitMethod !== mandate.bankAccount.debitMethod) {
    return `names a ${mandate.bankAccount.debitMethod} eMandate; this account is ${account.debitMethod}`;
  }
  if (
    account.accountNumber !== ctx.secrets.open(record.accountNumberSealed) ||
    comparable(account.branchCode) !== comparable(mandate.bankAccount.branchCode)
  ) {
    return 'names an eMandate for another bank account (the account number and branch code must match)';
  }
  if (mandate.customerId !== null && mandate.customerId !== account.customerId) {
    return `names an eMandate for customer ${mandate.customerId}`;
  }
  if (mandate.paymentMethodId !== null && mandate.paymentMethodId !== account.paymentMethodId) {
    return `names an eMandate already linked to payment method ${mandate.paymentMethodId}`;
  }
  return undefined;
}

/**
 * The debtor's identity number of the DebiCheck mandate `token` names, opened (a bank account under it carries the
 * same: docs/spec-decisions.md, "The debtor's ID number"); null for an ordinary mandate.
 */
export async function debiCheckDebtorOf(
  ctx: ServiceContext,
  token: string,
): Promise<{ kind: IdentityKind; number: string } | null> {
  const record = await repo.findEmandateByTokenDigest(ctx.db, ctx.account.id, tokenDigest(token));
  if (!record?.debiCheck || record.debiCheckIdSealed === null) return null;
  return { kind: record.debiCheck.idKind, number: ctx.secrets.open(record.debiCheckIdSealed) };
}

/**
 * Links the signed mandate to its bank account (customerPaymentMethodID), in the caller's transaction, with an
 * `emandate.updated` event. 409 when another payment method linked it meanwhile.
 */
export async function linkEmandate(
  ctx: ServiceContext,
  token: string,
  paymentMethodId: number,
): Promise<void> {
  const mandate = await getEmandate(ctx, token);
  if (mandate.paymentMethodId === paymentMethodId) return;
  const ref = emandateRef(mandate.id);
  const before = await snapshotResource(ctx, ref);
  const linked = await repo.linkPaymentMethod(
    ctx.db,
    ctx.account.id,
    mandate.id,
    paymentMethodId,
    nowInstant(ctx),
  );
  if (!linked) {
    throw new ConflictError('emandate_linked', 'The eMandate was linked to another payment method meanwhile');
  }
  await emitEvent(ctx, 'emandate.updated', ref, { before });
}

/**
 * The mandates of payment methods deleted, or edited to another token (`keepToken`), are linked to nothing again
 * (customerPaymentMethodID null), each with an `emandate.updated`; in the caller's transaction.
 */
export async function unlinkEmandates(
  ctx: ServiceContext,
  paymentMethodIds: readonly number[],
  keepToken: string | null = null,
): Promise<void> {
  const linked = await repo.listEmandateIdsLinkedTo(
    ctx.db,
    ctx.account.id,
    paymentMethodIds,
    keepToken === null ? null : tokenDigest(keepToken),
  );
  for (const { id } of linked) {
    const ref = emandateRef(id);
    const before = await snapshotResource(ctx, ref);
    await repo.clearPaymentMethod(ctx.db, ctx.account.id, id, nowInstant(ctx));
    await emitEvent(ctx, 'emandate.updated', ref, { before });
  }
}
