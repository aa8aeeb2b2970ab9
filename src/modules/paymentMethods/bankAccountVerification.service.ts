import { nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { getCustomer } from '../customers/index.ts';
import { emitEvents, snapshotResource } from '../events/index.ts';
import {
  bankValidationOutcomeAtGateway,
  findPrimaryGateway,
  gatewayAccepts,
  getGateway,
  validateBankAccountAtGateway,
  verifiesNewBankAccounts,
} from '../gateways/index.ts';
import type { BankAccountToValidate, BankValidationResult, Gateway } from '../gateways/index.ts';
import { noticeBankAccountNotVerified } from './bankAccountNotice.ts';
import * as repo from './paymentMethod.repository.ts';
import { paymentMethodRef } from './paymentMethod.service.ts';
import type { BankAccountVerification, SealedPaymentMethod } from './paymentMethod.ts';

/**
 * A debit-order bank account verified with the debtor's bank before its first debit (docs/gateways/netcash.md,
 * "Account verification"; docs/gateways.md, "Bank-account validation"). An account added (or edited) for a customer
 * whose gateway verifies new accounts (Netcash with its AVS key: the customer's PrimaryGatewayID, else the account's
 * primary gateway) starts `pending`, and is asked about at once when the add is not inside another transaction;
 * otherwise, and when the gateway gave no answer, the daily run asks (followBankAccountVerifications). A bank that
 * answers later (bulk) leaves it pending under the provider's reference, which the run asks again each day. The
 * answer is recorded on the account: verified (isValid true), or failed (isValid false, the reason, and the customer
 * asked by e-mail to check the details); an account that is not valid is never debited (docs/gateways.md, "No due
 * debit without a plan or a problem").
 */

/** Our reference for the question at the provider: the account's masterfile key at Netcash (`PM000042`). */
export const verificationReference = (paymentMethodId: number) =>
  `PM${String(paymentMethodId).padStart(6, '0')}`;

/** The gateway that verifies a new bank account of the customer, if its gateway does. */
export async function verifyingGateway(
  ctx: ServiceContext,
  customerId: number,
): Promise<Gateway | undefined> {
  const { primaryGatewayId } = await getCustomer(ctx, customerId);
  const gateway =
    primaryGatewayId !== null
      ? await getGateway(ctx, primaryGatewayId).catch(() => undefined)
      : await findPrimaryGateway(ctx);
  if (!gateway || !gatewayAccepts(gateway, 'bank_account')) return undefined;
  return (await verifiesNewBankAccounts(ctx, gateway)) ? gateway : undefined;
}

/** A verification still to be asked of the gateway. */
export const toBeAsked = (gatewayId: number): BankAccountVerification => ({
  status: 'pending',
  reason: null,
  detail: null,
  checkedAt: null,
  gatewayId,
  ref: null,
});

/** The account as the gateway is asked about it: the numbers opened for the call only. */
function accountToValidate(ctx: ServiceContext, method: SealedPaymentMethod): BankAccountToValidate {
  const bank = method.bankAccount!;
  const open = (sealed: string | null) => (sealed === null ? null : ctx.secrets.open(sealed));
  const idNumber = open(method.sealed.idNumberSealed);
  return {
    method: bank.debitMethod as BankAccountToValidate['method'],
    accountHolder: bank.accountHolder,
    accountNumber: open(method.sealed.accountNumberSealed),
    branchCode: bank.branchCode,
    routingNumber: bank.routingNumber,
    iban: open(method.sealed.ibanSealed),
    accountType: bank.accountType,
    identity:
      idNumber === null || bank.identity === null ? null : { kind: bank.identity.kind, number: idNumber },
    reference: verificationReference(method.id),
  };
}

/**
 * Asks the gateway about a bank account whose verification is pending: the question itself, or, once the bank
 * answers in bulk, its answer under the provider's reference; then records what it said. An account that is not
 * pending, or a gateway that gave no answer (a timeout: asked again by the next run), changes nothing. Outside a
 * transaction (the gateway is called). What changed: `verified`, `failed`, `pending` (still), or undefined.
 */
export async function verifyBankAccount(
  ctx: ServiceContext,
  paymentMethodId: number,
): Promise<BankAccountVerification['status'] | undefined> {
  const method = await repo.findSealedPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
  const asked = method?.bankAccount?.verification;
  if (!method || asked?.status !== 'pending' || asked.gatewayId === null) return undefined;
  const gateway = await getGateway(ctx, asked.gatewayId).catch(() => undefined);
  if (!gateway) return undefined;
  let answer: BankValidationResult;
  try {
    answer =
      asked.ref === null
        ? await validateBankAccountAtGateway(ctx, gateway, accountToValidate(ctx, method))
        : await bankValidationOutcomeAtGateway(ctx, gateway, asked.ref, verificationReference(method.id));
  } catch (error) {
    // The call and its failure are in gateway_calls; the message names no number (the driver's words only).
    ctx.log.warn(
      { err: error, paymentMethodId },
      'the account verification got no answer; the run asks again',
    );
    return undefined;
  }
  return recordVerification(ctx, method.id, asked, answer);
}

/** The verification an answer makes: pending keeps (or gains) the provider's reference. */
function verificationOf(
  asked: BankAccountVerification,
  answer: BankValidationResult,
  now: string,
): BankAccountVerification {
  const base = { gatewayId: asked.gatewayId, checkedAt: now, detail: answer.detail ?? null };
  if (answer.outcome === 'ok') return { ...base, status: 'verified', reason: null, ref: null };
  if (answer.outcome === 'declined') return { ...base, status: 'failed', reason: answer.reason, ref: null };
  return { ...base, status: 'pending', reason: null, ref: answer.providerRef ?? asked.ref };
}

/**
 * Records the gateway's answer on the account, unless it changed meanwhile (an edit started another verification):
 * verified makes it valid, failed not valid, each with `payment_method.updated`, and a failure asks the customer to
 * check the details. A pending answer keeps the account as it is, with the provider's reference once it has one.
 */
export async function recordVerification(
  ctx: ServiceContext,
  paymentMethodId: number,
  asked: BankAccountVerification,
  answer: BankValidationResult,
): Promise<BankAccountVerification['status'] | undefined> {
  const now = nowInstant(ctx);
  const verification = verificationOf(asked, answer, now);
  if (verification.status === 'pending' && verification.ref === asked.ref) return 'pending';
  const told = await withTransaction(ctx, async (tctx) => {
    const current = await repo.findPaymentMethod(tctx.db, tctx.account.id, paymentMethodId);
    if (!current) return undefined;
    const ref = paymentMethodRef(paymentMethodId);
    const before = await snapshotResource(tctx, ref);
    const recorded = await repo.setBankAccountVerification(tctx.db, tctx.account.id, paymentMethodId, asked, {
      verification,
      // Still pending: the account stays as unproven as it was.
      isValid: verification.status === 'pending' ? current.isValid : verification.status === 'verified',
      updatedAt: now,
    });
    if (!recorded) return undefined;
    await emitEvents(tctx, [{ type: 'payment_method.updated', ref, before }]);
    return verification.status === 'failed'
      ? noticeBankAccountNotVerified(tctx, current, verification.reason!)
      : false;
  });
  if (told === undefined) return undefined;
  if (told) ctx.mailQueued();
  return verification.status;
}

/** How many pending verifications one run follows, at most: the rest wait for the next run. */
const FOLLOWED_PER_RUN = 200;

/**
 * The run's part (batches' runBatches, before it bundles): every pending verification of the account asked again,
 * the question if it was never answered, the bank's bulk answer otherwise. How many were answered, by outcome.
 */
export async function followBankAccountVerifications(
  ctx: ServiceContext,
): Promise<{ verified: number; failed: number }> {
  const counts = { verified: 0, failed: 0 };
  for (const id of await repo.listPendingVerifications(ctx.db, ctx.account.id, FOLLOWED_PER_RUN)) {
    const status = await verifyBankAccount(ctx, id);
    if (status === 'verified' || status === 'failed') counts[status] += 1;
  }
  return counts;
}
