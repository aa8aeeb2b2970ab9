import { inTransaction, nowInstant, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import {
  ACCOUNT_NUMBER_MAX_DIGITS,
  ACCOUNT_NUMBER_MIN_DIGITS,
  ACCOUNT_TYPES,
  DEBIT_METHODS,
  accountNumberDigits,
  accountTypeOf,
  bicCountryProblem,
  bicProblem,
  debitMethodOf,
  ibanProblem,
  isValidBranchCode,
  isValidRoutingNumber,
  lastFour,
  normalizeBic,
  normalizeIban,
} from '../mandates/index.ts';
import type { AccountType, DebitMethod } from '../mandates/index.ts';
import { mandateReferenceProblem } from '../mandates/index.ts';
import { parseWireCalendarDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { optionalText, requiredText } from '../../core/text.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { assertCustomerExists } from '../customers/index.ts';
import { debiCheckDebtorOf, emandateLinkProblem, linkEmandate, unlinkEmandates } from '../mandates/index.ts';
import * as repo from './paymentMethod.repository.ts';
import { newPaymentMethodToken } from './paymentMethod.ts';
import { emitEvents, snapshotResource } from '../events/index.ts';
import { checkedIdentity, shownIdentity } from './bankAccountIdentity.ts';
import type { Identity } from './bankAccountIdentity.ts';
import { toBeAsked, verifyBankAccount, verifyingGateway } from './bankAccountVerification.service.ts';
import {
  insertWithPrimaryRules,
  paymentMethodRef,
  primaryBefore,
  primaryMoveEvents,
  readUnopenedPaymentMethod,
} from './paymentMethod.service.ts';
import type {
  BankAccountIdentity,
  BankAccountVerification,
  PaymentMethod,
  StoredBankAccount,
} from './paymentMethod.ts';

export interface BankAccountInput {
  method: string;
  accountType: string;
  accountHolder: string;
  bank: string;
  accountNumber?: string | null;
  branchCode?: string | null;
  routingNumber?: string | null;
  iban?: string | null;
  bic?: string | null;
  emandateToken?: string | null;
  /**
   * Beyond the spec, for sepa: the debit mandate the account is collected under, until eMandates exist. Left out
   * on an edit, the account keeps its own; null (or blank) clears it.
   */
  mandateReference?: string | null;
  /** The day the debtor signed the mandate, as the wire wrote it (a date, in the account's time zone). */
  mandateSignatureDate?: string | null;
  /**
   * Beyond the spec, debit_order only: the debtor's identity number and its kind (bankAccountIdentity.ts). Left out
   * on an edit, the account keeps its own; a null IdNumber clears it.
   */
  idNumber?: string | null;
  idType?: string | null;
}

export interface AddBankAccountInput {
  customerId: number;
  isPrimary: boolean;
  bankAccount: BankAccountInput;
}

/** A bank account as stored: clear fields, and the account number, IBAN and identity number still to be sealed. */
export interface CheckedBankAccount {
  debitMethod: DebitMethod;
  accountType: AccountType;
  accountHolder: string;
  bank: string;
  accountNumber: string | null;
  branchCode: string | null;
  routingNumber: string | null;
  iban: string | null;
  bic: string | null;
  emandateToken: string | null;
  /** The identity number given; undefined when the body left it out (an edit keeps the account's own). */
  identity: Identity | null | undefined;
}

/**
 * Spec, Payment methods, bank-account field rules: AccountNumber is not required for sepa; BranchCode may be set
 * only when the method is neither sepa nor ach; RoutingNumber is required for ach; IBAN and BIC are required for
 * sepa. Ours besides: debit_order needs AccountNumber and BranchCode, ach needs AccountNumber, and RoutingNumber,
 * IBAN and BIC belong to their method only. Blank counts as not given. Every problem is reported at once, keyed
 * by its wire field path (BankAccount.IBAN).
 */
export function checkedBankAccount(input: BankAccountInput, problems: FieldProblem[]): CheckedBankAccount {
  const method = debitMethodOf(input.method);
  if (!method) {
    problems.push({ field: bankField('Method'), message: `must be one of ${DEBIT_METHODS.join(', ')}` });
  }
  const accountType = accountTypeOf(input.accountType);
  if (!accountType) {
    problems.push({ field: bankField('AccountType'), message: `must be one of ${ACCOUNT_TYPES.join(', ')}` });
  }
  const accountHolder = requiredText(input.accountHolder, bankField('AccountHolder'), problems);
  const bank = requiredText(input.bank, bankField('Bank'), problems);
  const rules = methodRules(method, problems);
  // In the order their problems are reported: the number, then each method's own fields.
  const accountNumber = checkedAccountNumber(optionalText(input.accountNumber) ?? null, rules);
  const branchCode = checkedBranchCode(optionalText(input.branchCode) ?? null, rules);
  const routingNumber = checkedRoutingNumber(optionalText(input.routingNumber) ?? null, rules);
  const { iban, bic } = checkedSepaNumbers(
    optionalText(input.iban) ?? null,
    optionalText(input.bic) ?? null,
    rules,
  );
  return {
    debitMethod: method ?? 'debit_order',
    accountType: accountType ?? 'Savings',
    accountHolder,
    bank,
    accountNumber,
    branchCode,
    routingNumber,
    iban,
    bic,
    emandateToken: optionalText(input.emandateToken) ?? null,
    identity: checkedIdentity(input, method, problems),
  };
}

const bankField = (name: string) => `BankAccount.${name}`;

/** Which fields the debit method asks for and which it refuses, each problem written to `problems`. */
interface MethodRules {
  method: DebitMethod | undefined;
  problems: FieldProblem[];
  /** Whether the field is given; a problem when not. */
  required(name: string, value: string | null): boolean;
  /** A problem when a field of another method (`only`) is given. */
  refused(name: string, value: string | null, only: string): void;
}

function methodRules(method: DebitMethod | undefined, problems: FieldProblem[]): MethodRules {
  return {
    method,
    problems,
    required(name, value) {
      if (value === null) problems.push({ field: bankField(name), message: `is required for ${method}` });
      return value !== null;
    },
    refused(name, value, only) {
      if (value !== null) {
        problems.push({ field: bankField(name), message: `is only for ${only}, not ${method}` });
      }
    },
  };
}

/** Every method but sepa needs an account number. */
function checkedAccountNumber(given: string | null, rules: MethodRules): string | null {
  const { method, problems } = rules;
  if (method === 'sepa' || method === undefined || !rules.required('AccountNumber', given)) return null;
  const accountNumber = accountNumberDigits(given!) ?? null;
  if (accountNumber === null) {
    problems.push({
      field: bankField('AccountNumber'),
      message: `must be ${ACCOUNT_NUMBER_MIN_DIGITS} to ${ACCOUNT_NUMBER_MAX_DIGITS} digits (spaces and dashes between groups are allowed)`,
    });
  }
  return accountNumber;
}

/** Spec: BranchCode may be set only when the method is neither sepa nor ach; debit_order needs it. */
function checkedBranchCode(given: string | null, rules: MethodRules): string | null {
  const { method, problems } = rules;
  if (method !== 'debit_order') {
    if (method) rules.refused('BranchCode', given, 'debit_order');
    return null;
  }
  if (!rules.required('BranchCode', given)) return null;
  if (!isValidBranchCode(given!)) {
    problems.push({
      field: bankField('BranchCode'),
      message: 'must be 3 to 20 letters and digits (spaces and dashes between groups are allowed)',
    });
  }
  return given;
}

/** Spec: RoutingNumber is required for ach. */
function checkedRoutingNumber(given: string | null, rules: MethodRules): string | null {
  const { method, problems } = rules;
  if (method !== 'ach') {
    if (method) rules.refused('RoutingNumber', given, 'ach');
    return null;
  }
  if (!rules.required('RoutingNumber', given)) return null;
  const routingNumber = given!.replace(/[\s-]/g, '');
  if (!isValidRoutingNumber(routingNumber)) {
    problems.push({ field: bankField('RoutingNumber'), message: 'is not a valid ABA routing number' });
  }
  return routingNumber;
}

/** Spec: IBAN and BIC are required for sepa. */
function checkedSepaNumbers(
  givenIban: string | null,
  givenBic: string | null,
  rules: MethodRules,
): { iban: string | null; bic: string | null } {
  const { method, problems } = rules;
  if (method !== 'sepa') {
    if (method) {
      rules.refused('IBAN', givenIban, 'sepa');
      rules.refused('BIC', givenBic, 'sepa');
    }
    return { iban: null, bic: null };
  }
  let iban: string | null = null;
  let bic: string | null = null;
  let ibanProblemText: string | undefined;
  let bicProblemText: string | undefined;
  if (rules.required('IBAN', givenIban)) {
    iban = normalizeIban(givenIban!);
    ibanProblemText = ibanProblem(iban);
    if (ibanProblemText) problems.push({ field: bankField('IBAN'), message: ibanProblemText });
  }
  if (rules.required('BIC', givenBic)) {
    bic = normalizeBic(givenBic!);
    bicProblemText = bicProblem(bic);
    if (bicProblemText) problems.push({ field: bankField('BIC'), message: bicProblemText });
  }
  if (iban !== null && bic !== null && !ibanProblemText && !bicProblemText) {
    // The BIC's country is the IBAN's, bar territories sharing a scheme (docs/design/collections.md, "Bank-account
    // validation").
    const mismatch = bicCountryProblem(iban, bic);
    if (mismatch) problems.push({ field: bankField('BIC'), message: mismatch });
  }
  return { iban, bic };
}

/**
 * The offline checks of a bank account's details, as an add makes them (problems keyed `BankAccount.<Field>`), for
 * details taken before their customer is known (the capture widget's frame).
 */
export function bankAccountProblems(input: BankAccountInput): FieldProblem[] {
  const problems: FieldProblem[] = [];
  checkedBankAccount(input, problems);
  return problems;
}

/**
 * The identity number of details that passed bankAccountProblems, as the gateway is asked with it (the capture
 * widget's frame asks before the account is added); null when none was given.
 */
export function bankAccountIdentity(input: BankAccountInput): Identity | null {
  return checkedIdentity(input, debitMethodOf(input.method), []) ?? null;
}

/** A SEPA mandate as stored: its reference and signature day, both or neither. */
interface Mandate {
  reference: string | null;
  signedOn: PlainDate | null;
}

/**
 * The mandate of a sepa account (beyond the spec; docs/spec-decisions.md, "Bank accounts"): a reference a pain.008
 * can carry (1 to 35 characters of the SEPA set, EPC's rules for identifiers) and the day it was signed, not in the
 * future; the two go together. Another method has none: sending one is a 422. On an edit a field left out keeps
 * what the account has (`current`), so that a client that does not know these fields never drops a mandate.
 */
function checkedMandate(
  ctx: ServiceContext,
  input: BankAccountInput,
  method: DebitMethod | undefined,
  current: Mandate | undefined,
  problems: FieldProblem[],
): Mandate {
  const field = (name: string) => `BankAccount.${name}`;
  const sentReference =
    input.mandateReference === undefined ? undefined : (optionalText(input.mandateReference) ?? null);
  const sentDate =
    input.mandateSignatureDate === undefined ? undefined : (optionalText(input.mandateSignatureDate) ?? null);
  if (method === undefined) return { reference: null, signedOn: null };
  if (method !== 'sepa') {
    if (sentReference)
      problems.push({ field: field('MandateReference'), message: `is only for sepa, not ${method}` });
    if (sentDate)
      problems.push({ field: field('MandateSignatureDate'), message: `is only for sepa, not ${method}` });
    return { reference: null, signedOn: null };
  }
  const reference = sentReference === undefined ? (current?.reference ?? null) : sentReference;
  if (sentReference) {
    const problem = mandateReferenceProblem(sentReference);
    if (problem) problems.push({ field: field('MandateReference'), message: problem });
  }
  let signedOn = sentDate === undefined ? (current?.signedOn ?? null) : null;
  if (sentDate) {
    const date = parseWireCalendarDate(sentDate, ctx.account.timeZone);
    if (date === undefined) {
      problems.push({ field: field('MandateSignatureDate'), message: 'must be a date' });
    } else if (date > today(ctx)) {
      problems.push({
        field: field('MandateSignatureDate'),
        message: `must not be in the future (today is ${today(ctx)})`,
      });
    } else {
      signedOn = date;
    }
  }
  if (
    reference !== null &&
    signedOn === null &&
    !problems.some((p) => p.field === field('MandateSignatureDate'))
  ) {
    problems.push({ field: field('MandateSignatureDate'), message: 'is required with a MandateReference' });
  }
  if (signedOn !== null && reference === null) {
    problems.push({ field: field('MandateReference'), message: 'is required with a MandateSignatureDate' });
  }
  return { reference, signedOn };
}

/**
 * docs/design/mandates.md, "Lifecycle": an account given an EMandateToken must match the signed mandate the token
 * names (an unsigned, expired or unknown one is refused). The problem goes under BankAccount.EMandateToken. The
 * account as it is to be stored: under a DebiCheck mandate, with its debtor's identity number.
 */
async function checkEmandate(
  ctx: ServiceContext,
  account: CheckedBankAccount,
  customerId: number,
  paymentMethodId: number | undefined,
  problems: FieldProblem[],
): Promise<CheckedBankAccount> {
  if (account.emandateToken === null || problems.length) return account;
  const problem = await emandateLinkProblem(ctx, account.emandateToken, {
    customerId,
    debitMethod: account.debitMethod,
    accountNumber: account.accountNumber,
    branchCode: account.branchCode,
    paymentMethodId,
  });
  if (problem) {
    problems.push({ field: 'BankAccount.EMandateToken', message: problem });
    return account;
  }
  return withDebiCheckDebtor(ctx, account, problems);
}

/**
 * docs/spec-decisions.md, "The debtor's ID number": one debtor, one number. An account under a DebiCheck mandate
 * takes the mandate's identity number when the body gives none; another number (or none, cleared) is refused.
 */
async function withDebiCheckDebtor(
  ctx: ServiceContext,
  account: CheckedBankAccount,
  problems: FieldProblem[],
): Promise<CheckedBankAccount> {
  const debtor = await debiCheckDebtorOf(ctx, account.emandateToken!);
  if (debtor === null) return account;
  if (account.identity === undefined) return { ...account, identity: debtor };
  if (account.identity?.kind !== debtor.kind || account.identity.number !== debtor.number) {
    problems.push({
      field: 'BankAccount.IdNumber',
      message:
        "must be the DebiCheck mandate's identity number (its DebiCheckIdType and DebiCheckIdNumber), or left out to take it",
    });
  }
  return account;
}

/** An identity number as it is stored: sealed, with what may be shown of it. */
interface StoredIdentity {
  idNumberSealed: string | null;
  identity: BankAccountIdentity | null;
}

/** The identity number to store: the one given, else on an edit the account's own while it stays a debit order. */
function storedIdentity(
  ctx: ServiceContext,
  account: CheckedBankAccount,
  current: StoredIdentity | undefined,
): StoredIdentity {
  if (account.identity === undefined) {
    return current && account.debitMethod === 'debit_order'
      ? current
      : { idNumberSealed: null, identity: null };
  }
  if (account.identity === null) return { idNumberSealed: null, identity: null };
  return {
    idNumberSealed: ctx.secrets.seal(account.identity.number),
    identity: shownIdentity(account.identity),
  };
}

/** A checked account as it is stored, the account number, IBAN and identity number sealed. */
function storedBankAccount(
  ctx: ServiceContext,
  account: CheckedBankAccount,
  mandate: Mandate,
  identity: StoredIdentity,
): StoredBankAccount {
  return {
    ...identity,
    mandateReference: mandate.reference,
    mandateSignedOn: mandate.signedOn,
    // The last four of what identifies the account: its IBAN for sepa, else its number.
    lastFour: lastFour(account.iban ?? account.accountNumber ?? ''),
    debitMethod: account.debitMethod,
    accountType: account.accountType,
    accountHolder: account.accountHolder,
    bank: account.bank,
    accountNumberSealed: account.accountNumber === null ? null : ctx.secrets.seal(account.accountNumber),
    branchCode: account.branchCode,
    ibanSealed: account.iban === null ? null : ctx.secrets.seal(account.iban),
    bic: account.bic,
    routingNumber: account.routingNumber,
    // No EMandateToken: the mandate names the method it is linked to (linkEmandate), and keeps only the token's
    // digest (docs/spec-decisions.md, "eMandate tokens at rest").
  };
}

/**
 * The verification a debit-order account starts with (bankAccountVerification.service.ts): one to ask when the
 * customer's gateway verifies new accounts; none otherwise.
 */
async function startingVerification(
  ctx: ServiceContext,
  customerId: number,
  account: CheckedBankAccount,
): Promise<BankAccountVerification | null> {
  if (account.debitMethod !== 'debit_order') return null;
  const gateway = await verifyingGateway(ctx, customerId);
  return gateway ? toBeAsked(gateway.id) : null;
}

/**
 * POST /v1/paymentmethods/bankaccount. The account number, IBAN and identity number are sealed at rest. Spec: a bank
 * account is isValid false on add (nothing has proved it yet), unless a signed eMandate or the gateway's account
 * verification proves it: a debit-order account whose customer's gateway verifies new accounts is asked about at
 * once, unless the add is part of another transaction (the widget's complete), when the run asks.
 */
export async function addBankAccount(
  ctx: ServiceContext,
  input: AddBankAccountInput,
): Promise<PaymentMethod> {
  const problems: FieldProblem[] = [];
  const checked = checkedBankAccount(input.bankAccount, problems);
  const mandate = checkedMandate(
    ctx,
    input.bankAccount,
    debitMethodOf(input.bankAccount.method),
    undefined,
    problems,
  );
  const account = await checkEmandate(ctx, checked, input.customerId, undefined, problems);
  if (problems.length) throw new ValidationError(problems);
  await assertCustomerExists(ctx, input.customerId);
  const verification = await startingVerification(ctx, input.customerId, account);
  const now = nowInstant(ctx);
  const emandateToken = account.emandateToken;
  const id = await insertWithPrimaryRules(
    ctx,
    {
      accountId: ctx.account.id,
      customerId: input.customerId,
      gatewayId: null,
      token: newPaymentMethodToken(),
      vaultTokenSealed: null,
      // docs/spec-decisions.md, "eMandates": an account under a signed eMandate is valid for collection.
      isValid: emandateToken !== null,
      details: {
        type: 'bank_account',
        bankAccount: storedBankAccount(ctx, account, mandate, storedIdentity(ctx, account, undefined)),
      },
      verification,
      createdAt: now,
      updatedAt: now,
    },
    input.isPrimary,
    emandateToken === null ? undefined : (tctx, methodId) => linkEmandate(tctx, emandateToken, methodId),
  );
  if (!ctx.db.isTransaction && verification?.status === 'pending') await verifyBankAccount(ctx, id);
  const added = await readUnopenedPaymentMethod(ctx, id);
  // The answer shows the token it was given, also for a mandate made before tokens could be derived again.
  return emandateToken === null ? added : { ...added, bankAccount: { ...added.bankAccount!, emandateToken } };
}

/**
 * PUT /v1/paymentmethods/bankaccount/{id}: the same body as the add, replacing the bank details. The method stays
 * with its customer (a different customerID is a 422) and keeps its token. Changed details are unproven again, so
 * isValid becomes false, and a debit-order account is verified again as a new one is. isPrimary true makes it
 * primary; false changes nothing (a customer with methods always has a primary: move it by making another one
 * primary).
 */
export async function editBankAccount(
  ctx: ServiceContext,
  paymentMethodId: number,
  input: AddBankAccountInput,
): Promise<void> {
  const current = await repo.findSealedPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
  if (!current) throw new NotFoundError('Payment method', paymentMethodId);
  if (current.bankAccount === null) {
    throw ValidationError.field(
      'paymentMethodID',
      `payment method ${paymentMethodId} is a credit card; only bank accounts are edited here`,
      'not_a_bank_account',
    );
  }
  const problems: FieldProblem[] = [];
  const checked = checkedBankAccount(input.bankAccount, problems);
  const mandate = checkedMandate(
    ctx,
    input.bankAccount,
    debitMethodOf(input.bankAccount.method),
    { reference: current.bankAccount.mandateReference, signedOn: current.bankAccount.mandateSignedOn },
    problems,
  );
  if (input.customerId !== current.customerId) {
    await assertCustomerExists(ctx, input.customerId);
    problems.push({
      field: 'customerID',
      message: `cannot change (it is ${current.customerId}); add the account to the other customer instead`,
    });
  }
  const account = await checkEmandate(ctx, checked, current.customerId, paymentMethodId, problems);
  if (problems.length) throw new ValidationError(problems);
  const identity = storedIdentity(ctx, account, {
    idNumberSealed: current.sealed.idNumberSealed,
    identity: current.bankAccount.identity,
  });
  // New details are verified again, as a new account is.
  const verification = await startingVerification(ctx, current.customerId, account);
  const now = nowInstant(ctx);
  await ctx.db.transaction().execute(async (trx) => {
    const tctx = inTransaction(ctx, trx);
    // Held before `before` is read, so that it is what this change changes.
    await repo.lockCustomerPaymentMethods(trx, ctx.account.id, current.customerId);
    const ref = paymentMethodRef(paymentMethodId);
    const before = await snapshotResource(tctx, ref);
    const becomesPrimary = input.isPrimary && before.object?.['isPrimary'] !== true;
    const formerPrimary = becomesPrimary
      ? await primaryBefore(tctx, current.customerId, paymentMethodId)
      : undefined;
    const updated = await repo.updateBankAccount(trx, ctx.account.id, paymentMethodId, {
      ...storedBankAccount(ctx, account, mandate, identity),
      // Changed details are unproven again, unless a signed eMandate for them is given.
      isValid: account.emandateToken !== null,
      verification,
      updatedAt: now,
    });
    if (!updated) throw new NotFoundError('Payment method', paymentMethodId);
    await unlinkEmandates(tctx, [paymentMethodId], account.emandateToken);
    if (account.emandateToken !== null) await linkEmandate(tctx, account.emandateToken, paymentMethodId);
    if (input.isPrimary) {
      await repo.setPrimaryPaymentMethod(trx, ctx.account.id, current.customerId, paymentMethodId, now);
    }
    await emitEvents(tctx, [
      { type: 'payment_method.updated', ref, before },
      ...(becomesPrimary ? primaryMoveEvents({ id: paymentMethodId, before }, formerPrimary) : []),
    ]);
  });
  if (!ctx.db.isTransaction && verification?.status === 'pending')
    await verifyBankAccount(ctx, paymentMethodId);
}
