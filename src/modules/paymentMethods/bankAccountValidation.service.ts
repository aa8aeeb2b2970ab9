import { nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { optionalText } from '../../core/text.ts';
import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { assertCustomerExists } from '../customers/index.ts';
import { emitEvents, snapshotResources } from '../events/index.ts';
import {
  GatewayTimeoutError,
  gatewayAccepts,
  getGateway,
  isGatewayUsable,
  validateBankAccountAtGateway,
} from '../gateways/index.ts';
import type { BankValidationResult, FailureReason, Gateway } from '../gateways/index.ts';
import { checkedBankAccount } from './bankAccount.service.ts';
import type { BankAccountInput, CheckedBankAccount } from './bankAccount.service.ts';
import { verificationReference } from './bankAccountVerification.service.ts';
import * as repo from './paymentMethod.repository.ts';
import { paymentMethodRef } from './paymentMethod.service.ts';
import type { BankAccountVerification, SealedPaymentMethod } from './paymentMethod.ts';

export interface ValidateBankAccountInput {
  gatewayId: number;
  bankAccount: BankAccountInput;
  customerId?: number | null;
  paymentMethodType?: string | null;
}

/**
 * POST /v1/ValidateBankAccount/{gatewayID} (docs/design/collections.md, "Bank-account validation"): the offline
 * checks an add makes (422 naming the field), then the gateway's own validation (the test gateway answers by account
 * number, as a bank's AVS would; Netcash asks the bank's, docs/gateways/netcash.md, "Account verification"). When the
 * body names a customer, its stored bank accounts with these details take the answer: isValid true on a match, false
 * on a permanent refusal, with the verification's status and date, each change a `payment_method.updated`; and one
 * this gateway already verified answers from what it recorded, without asking again. A refusal is then a 422 naming
 * the account (the stored methods keep what they learnt); an answer still pending leaves them as they are, unless the
 * bank will answer later under a reference, which they keep for the run to ask by.
 */
export async function validateBankAccount(
  ctx: ServiceContext,
  input: ValidateBankAccountInput,
): Promise<void> {
  const gateway = await getGateway(ctx, input.gatewayId);
  const problems: FieldProblem[] = [];
  if (!isGatewayUsable(gateway)) {
    problems.push({ field: 'gatewayID', message: `gateway ${gateway.id} is disabled or retired` });
  } else if (!gatewayAccepts(gateway, 'bank_account')) {
    problems.push({ field: 'gatewayID', message: `gateway ${gateway.id} does not take bank accounts` });
  }
  const type = optionalText(input.paymentMethodType);
  if (type && type !== 'bank_account') {
    problems.push({ field: 'PaymentMethodType', message: 'must be bank_account (or left out)' });
  }
  const checked = checkedBankAccount(input.bankAccount, problems);
  if (problems.length) throw new ValidationError(problems);
  let matching: SealedPaymentMethod[] = [];
  if (input.customerId != null) {
    await assertCustomerExists(ctx, input.customerId);
    matching = await matchingAccounts(ctx, input.customerId, checked);
  }
  const known = matching
    .map((method) => method.bankAccount!.verification)
    .find(
      (verification) =>
        verification?.gatewayId === gateway.id &&
        (verification.status === 'verified' || verification.status === 'failed'),
    );
  const result = known ? answerRecorded(known) : await askGateway(ctx, gateway, checked, matching[0]);
  if (!known && (result.outcome !== 'pending' || result.providerRef !== undefined)) {
    await recordOnMatching(ctx, matching, gateway.id, result);
  }
  if (result.outcome === 'declined') {
    throw ValidationError.field(
      checked.debitMethod === 'sepa' ? 'BankAccount.IBAN' : 'BankAccount.AccountNumber',
      `was refused by gateway ${gateway.id}: ${result.detail} (${result.reason})`,
      'bank_account_refused',
    );
  }
}

/** What a recorded verification answers. */
function answerRecorded(verification: BankAccountVerification): BankValidationResult {
  return verification.status === 'verified'
    ? { outcome: 'ok', detail: verification.detail ?? 'verified' }
    : {
        outcome: 'declined',
        reason: verification.reason as FailureReason,
        rawCode: 'recorded',
        detail: verification.detail ?? 'not verified',
      };
}

/**
 * The gateway's answer for these details, with the identity number given, else the stored account's (the one a
 * later bulk answer is recorded on, under its reference). No answer in time is an answer still pending.
 */
async function askGateway(
  ctx: ServiceContext,
  gateway: Gateway,
  checked: CheckedBankAccount,
  stored: SealedPaymentMethod | undefined,
): Promise<BankValidationResult> {
  const storedNumber = stored?.sealed.idNumberSealed ?? null;
  const storedIdentity = stored?.bankAccount?.identity;
  const identity =
    checked.identity ??
    (storedNumber !== null && storedIdentity
      ? { kind: storedIdentity.kind, number: ctx.secrets.open(storedNumber) }
      : null);
  try {
    return await validateBankAccountAtGateway(ctx, gateway, {
      method: checked.debitMethod,
      accountHolder: checked.accountHolder,
      accountNumber: checked.accountNumber,
      branchCode: checked.branchCode,
      routingNumber: checked.routingNumber,
      iban: checked.iban,
      accountType: checked.accountType,
      identity,
      reference: stored ? verificationReference(stored.id) : null,
    });
  } catch (error) {
    if (error instanceof GatewayTimeoutError) return { outcome: 'pending', detail: error.message };
    throw error;
  }
}

/**
 * The customer's stored bank accounts with these details (method, account number, IBAN, branch code, routing
 * number, and the identity number when the body gives one).
 */
async function matchingAccounts(
  ctx: ServiceContext,
  customerId: number,
  account: CheckedBankAccount,
): Promise<SealedPaymentMethod[]> {
  const stored = await repo.listSealedBankAccountsOfCustomer(ctx.db, ctx.account.id, customerId);
  const open = (sealed: string | null) => (sealed === null ? null : ctx.secrets.open(sealed));
  return stored.filter(
    ({ bankAccount, sealed }) =>
      bankAccount!.debitMethod === account.debitMethod &&
      open(sealed.accountNumberSealed) === account.accountNumber &&
      open(sealed.ibanSealed) === account.iban &&
      bankAccount!.branchCode === account.branchCode &&
      bankAccount!.routingNumber === account.routingNumber &&
      (!account.identity || open(sealed.idNumberSealed) === account.identity.number),
  );
}

/**
 * The matching accounts take the gateway's answer: the verification's status and date, and isValid (true when the
 * details pass, false when refused), each change a `payment_method.updated`; an answer pending under the provider's
 * reference goes to the account the question named. Accounts already showing that answer do not change.
 */
async function recordOnMatching(
  ctx: ServiceContext,
  matching: readonly SealedPaymentMethod[],
  gatewayId: number,
  result: BankValidationResult,
): Promise<void> {
  const now = nowInstant(ctx);
  const verification: BankAccountVerification = {
    status: result.outcome === 'ok' ? 'verified' : result.outcome === 'declined' ? 'failed' : 'pending',
    reason: result.outcome === 'declined' ? result.reason : null,
    detail: result.detail ?? null,
    checkedAt: now,
    gatewayId,
    ref: result.outcome === 'pending' ? (result.providerRef ?? null) : null,
  };
  // A bank's later answer comes back under the reference it was asked with: the first matching account's.
  const recording = verification.status === 'pending' ? matching.slice(0, 1) : matching;
  const changing = recording.filter(
    (method) =>
      method.bankAccount!.verification?.status !== verification.status ||
      (verification.status !== 'pending' && method.isValid !== (verification.status === 'verified')),
  );
  if (changing.length === 0) return;
  await withTransaction(ctx, async (tctx) => {
    const before = await snapshotResources(
      tctx,
      'payment_method',
      changing.map((method) => method.id),
    );
    const changed: number[] = [];
    for (const method of changing) {
      const isValid = verification.status === 'pending' ? method.isValid : verification.status === 'verified';
      const asked = method.bankAccount!.verification;
      if (
        await repo.setBankAccountVerification(tctx.db, tctx.account.id, method.id, asked, {
          verification,
          isValid,
          updatedAt: now,
        })
      ) {
        changed.push(method.id);
      }
    }
    await emitEvents(
      tctx,
      changed.map((id) => ({
        type: 'payment_method.updated',
        ref: paymentMethodRef(id),
        before: before.get(id),
      })),
    );
  });
}
