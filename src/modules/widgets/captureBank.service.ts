import { nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ValidationError } from '../../errors.ts';
import { emitEvents } from '../events/index.ts';
import {
  gatewayAccepts,
  getGateway,
  isGatewayUsable,
  validateBankAccountAtGateway,
} from '../gateways/index.ts';
import { bankAccountIdentity, bankAccountProblems } from '../paymentMethods/index.ts';
import { assertOpen, failAttempt, refused } from './capture.service.ts';
import type { CaptureSummary, SubmittedBankAccount } from './capture.service.ts';
import { claimLost, claimSession, endClaim, releaseClaim } from './captureClaim.ts';
import { bankRailFor, keepsBankAccounts } from './captureSession.ts';
import type { BankRail, CaptureSessionRecord, StoredState } from './captureSession.ts';
import { captureSessionRef } from './captureSession.service.ts';

// A bank account submitted in the capture widget's frame (docs/design/hosted-pages.md): the card's sibling in
// capture.service.ts, sharing its claim, attempt count and refusals.

/** The bank rail the frame offers this session, if any: kept only, in a currency with a rail, at a gateway taking them. */
export async function bankRailOf(
  ctx: ServiceContext,
  row: CaptureSessionRecord,
): Promise<BankRail | undefined> {
  if (!keepsBankAccounts(row.vaultingType, row.saleType)) return undefined;
  const gateway = await getGateway(ctx, row.gatewayId);
  if (!isGatewayUsable(gateway) || !gatewayAccepts(gateway, 'bank_account')) return undefined;
  return bankRailFor(row.currencyCode);
}

/** The frame's names of the bank fields, from an add's (BankAccount.AccountNumber is accountNumber). */
const BANK_FIELDS: Record<string, string> = {
  'BankAccount.AccountHolder': 'accountHolder',
  'BankAccount.Bank': 'bank',
  'BankAccount.AccountType': 'accountType',
  'BankAccount.AccountNumber': 'accountNumber',
  'BankAccount.BranchCode': 'branchCode',
  'BankAccount.RoutingNumber': 'routingNumber',
  'BankAccount.IBAN': 'iban',
  'BankAccount.BIC': 'bic',
  'BankAccount.IdNumber': 'idNumber',
  'BankAccount.IdType': 'idType',
};

/**
 * POST /widget/capture/{HashToken}/submit with a bank account: checked offline as an add is, then by the gateway
 * (the test gateway answers by account number, docs/gateways.md, "Bank-account validation"); the details are kept
 * sealed on the session until complete makes them the customer's method. Personal data, not card data
 * (docs/design/hosted-pages.md, "Card data and PCI scope").
 */
export async function submitBankAccount(
  ctx: ServiceContext,
  found: CaptureSessionRecord,
  input: SubmittedBankAccount,
): Promise<CaptureSummary> {
  assertOpen(ctx, found);
  const rail = await bankRailOf(ctx, found);
  if (!rail) throw ValidationError.field('kind', 'This form takes cards only', 'bank_account_not_offered');
  const row = await claimSession(ctx, found);

  const details = {
    method: rail,
    accountType: input.accountType,
    accountHolder: input.accountHolder,
    bank: input.bank,
    accountNumber: rail === 'sepa' ? null : (input.accountNumber ?? null),
    branchCode: rail === 'debit_order' ? (input.branchCode ?? null) : null,
    routingNumber: rail === 'ach' ? (input.routingNumber ?? null) : null,
    iban: rail === 'sepa' ? (input.iban ?? null) : null,
    bic: rail === 'sepa' ? (input.bic ?? null) : null,
    ...(rail === 'debit_order' && input.idNumber?.trim()
      ? { idNumber: input.idNumber, idType: input.idType ?? null }
      : {}),
  };
  const problems = bankAccountProblems(details).map((problem) => ({
    field: BANK_FIELDS[problem.field] ?? 'accountType',
    message: problem.message,
  }));
  if (problems.length > 0) throw refused(await failAttempt(ctx, row, 'invalid_fields'), problems);

  const gateway = await getGateway(ctx, row.gatewayId);
  const digitsOf = (text: string | null) => (text === null ? null : text.replace(/[\s-]/g, '').toUpperCase());
  let answer;
  try {
    answer = await validateBankAccountAtGateway(ctx, gateway, {
      method: rail,
      accountHolder: details.accountHolder,
      accountNumber: digitsOf(details.accountNumber),
      branchCode: digitsOf(details.branchCode),
      routingNumber: digitsOf(details.routingNumber),
      iban: digitsOf(details.iban),
      accountType: details.accountType,
      identity: bankAccountIdentity(details),
    });
  } catch (error) {
    await releaseClaim(ctx, row);
    throw error;
  }
  if (answer.outcome === 'declined') {
    const left = await failAttempt(ctx, row, `bank_${answer.reason}`);
    throw refused(left, [
      { field: rail === 'sepa' ? 'iban' : 'accountNumber', message: 'The bank did not accept this account' },
    ]);
  }
  const lastFour = (digitsOf(details.iban) ?? digitsOf(details.accountNumber) ?? '').slice(-4);
  const held = await withTransaction(ctx, async (tctx) => {
    const now = nowInstant(tctx);
    const ended = await endClaim(tctx, row, {
      state: 'captured' satisfies StoredState,
      methodType: 'bank_account',
      bankAccountSealed: tctx.secrets.seal(JSON.stringify(details)),
      bankName: details.bank.trim(),
      lastFour,
      capturedAt: now,
      updatedAt: now,
    });
    if (ended) await emitEvents(tctx, [{ type: 'capture_session.captured', ref: captureSessionRef(row.id) }]);
    return ended;
  });
  // The gateway only validated the account: there is nothing there to undo.
  if (!held) throw claimLost(ctx, row, 'capture');
  return { type: 'bank_account', bank: details.bank.trim(), lastFour, charged: false };
}
