import crypto from 'node:crypto';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import {
  ACCOUNT_NUMBER_MAX_DIGITS,
  ACCOUNT_NUMBER_MIN_DIGITS,
  ACCOUNT_TYPES,
  DEBIT_METHODS,
  accountNumberDigits,
  accountTypeOf,
  debitMethodOf,
  ibanProblem,
  isValidBic,
  isValidBranchCode,
  isValidRoutingNumber,
  lastFour,
  normalizeIban,
} from '../../core/bankAccounts.ts';
import type { AccountType, DebitMethod } from '../../core/bankAccounts.ts';
import { dateAt } from '../../core/calendar.ts';
import {
  CARD_NUMBER_MAX_DIGITS,
  CARD_NUMBER_MIN_DIGITS,
  CARD_TYPES,
  cardDigits,
  cardTypeOf,
  cardTypesOf,
  isLuhnValid,
  matchesCardType,
} from '../../core/cards.ts';
import type { CardType } from '../../core/cards.ts';
import type { Page } from '../../core/paging.ts';
import { optionalText, requiredText } from '../../core/text.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../../storage/database.ts';
import { assertCustomerExists, getCustomer } from '../customers/index.ts';
import {
  findPrimaryGateway,
  gatewayAccepts,
  getGateway,
  isGatewayUsable,
  vaultCard,
} from '../gateways/index.ts';
import type { Gateway, PaymentMethodKind } from '../gateways/index.ts';
import {
  countInvoicesUsingPaymentMethod,
  countRecurringInvoicesUsingPaymentMethod,
} from '../invoicing/index.ts';
import * as repo from './paymentMethod.repository.ts';
import type { PaymentMethodRow, SealedPaymentMethodRow } from './paymentMethod.repository.ts';

export interface CreditCardDetails {
  cardType: string;
  nameOnCard: string;
  lastNameOnCard: string;
  expiryMonth: number;
  expiryYear: number;
  lastFour: string;
}

export interface BankAccountDetails {
  debitMethod: string;
  accountType: string;
  accountHolder: string;
  bank: string;
  branchCode: string | null;
  bic: string | null;
  routingNumber: string | null;
  emandateToken: string | null;
  lastFour: string;
  /**
   * The opened account number and IBAN: only on the single-item read (undefined elsewhere, so that lists never
   * decrypt). The account number is never kept for sepa (spec: never returned populated for sepa).
   */
  secrets?: { accountNumber: string | null; iban: string | null };
}

export interface PaymentMethod {
  id: number;
  customerId: number;
  type: PaymentMethodKind;
  isPrimary: boolean;
  isValid: boolean;
  /** The gateway vault's token for a card, ours for a bank account: what PrimaryPaymentMethodInfo shows. */
  token: string;
  /** The gateway whose vault keeps a card; null for a bank account. */
  gatewayId: number | null;
  creditCard: CreditCardDetails | null;
  bankAccount: BankAccountDetails | null;
}

export interface AddCreditCardInput {
  customerId: number;
  isPrimary: boolean;
  cardType: string;
  /** Input only: goes to the gateway's vault and nowhere else. */
  number: string;
  nameOnCard: string;
  lastNameOnCard: string;
  expiryMonth: number;
  expiryYear: number;
}

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
}

export interface AddBankAccountInput {
  customerId: number;
  isPrimary: boolean;
  bankAccount: BankAccountInput;
}

export interface ValidateBankAccountInput {
  gatewayId: number;
  bankAccount: BankAccountInput;
  customerId?: number | null;
  paymentMethodType?: string | null;
}

/** A card may be at most this many years from expiring: further is a typing mistake. */
const CARD_YEARS_AHEAD = 20;
const PRIMARY_ATTEMPTS = 3;

function paymentMethodFromRow(
  row: PaymentMethodRow | SealedPaymentMethodRow,
  ctx?: ServiceContext,
): PaymentMethod {
  const type = row.method_type as PaymentMethodKind;
  let secrets: BankAccountDetails['secrets'];
  if (ctx && 'account_number_sealed' in row) {
    secrets = {
      accountNumber: row.account_number_sealed === null ? null : ctx.secrets.open(row.account_number_sealed),
      iban: row.iban_sealed === null ? null : ctx.secrets.open(row.iban_sealed),
    };
  }
  return {
    id: row.id,
    customerId: row.customer_id,
    type,
    isPrimary: Boolean(row.is_primary),
    isValid: Boolean(row.is_valid),
    token: row.token,
    gatewayId: row.gateway_id,
    creditCard:
      type === 'credit_card'
        ? {
            cardType: row.card_type!,
            nameOnCard: row.name_on_card!,
            lastNameOnCard: row.last_name_on_card!,
            expiryMonth: row.expiry_month!,
            expiryYear: row.expiry_year!,
            lastFour: row.last_four,
          }
        : null,
    bankAccount:
      type === 'bank_account'
        ? {
            debitMethod: row.debit_method!,
            accountType: row.account_type!,
            accountHolder: row.account_holder!,
            bank: row.bank!,
            branchCode: row.branch_code,
            bic: row.bic,
            routingNumber: row.routing_number,
            emandateToken: row.emandate_token,
            lastFour: row.last_four,
            secrets,
          }
        : null,
  };
}

/**
 * A payment method as an add answers it: the bank account number and IBAN are not opened. NOTE: responses to POSTs
 * are kept for Idempotency-Key replays (idempotency_keys.response_body, in clear), so they must not carry them.
 */
async function readUnopenedPaymentMethod(
  ctx: ServiceContext,
  paymentMethodId: number,
): Promise<PaymentMethod> {
  const row = await repo.findPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
  if (!row) throw new NotFoundError('Payment method', paymentMethodId);
  return paymentMethodFromRow(row);
}

/** The full payment method, bank account number and IBAN opened (spec: the single-item read returns the full set). */
export async function getPaymentMethod(ctx: ServiceContext, paymentMethodId: number): Promise<PaymentMethod> {
  const row = await repo.findSealedPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
  if (!row) throw new NotFoundError('Payment method', paymentMethodId);
  return paymentMethodFromRow(row, ctx);
}

/** The account's payment methods, or one customer's (404 when the customer is not the account's), by id. */
export async function listPaymentMethods(
  ctx: ServiceContext,
  page: Page,
  customerId?: number,
): Promise<PaymentMethod[]> {
  if (customerId !== undefined) await assertCustomerExists(ctx, customerId);
  return (await repo.listPaymentMethods(ctx.db, ctx.account.id, page, customerId)).map((row) =>
    paymentMethodFromRow(row),
  );
}

// Checking a request. Problems are keyed by wire field paths (CreditCard.Number, BankAccount.IBAN).

interface CheckedCard {
  cardType: CardType;
  digits: string;
  nameOnCard: string;
  lastNameOnCard: string;
  expiryMonth: number;
  expiryYear: number;
}

/**
 * Spec, Payment methods: every CreditCard field is required; CardType is one of the listed brands, and the Number
 * must be a card number (Luhn) of that brand. NOTE: no message ever quotes the number.
 */
function checkedCard(ctx: ServiceContext, input: AddCreditCardInput, problems: FieldProblem[]): CheckedCard {
  const cardType = cardTypeOf(input.cardType);
  if (!cardType) {
    problems.push({ field: 'CreditCard.CardType', message: `must be one of ${CARD_TYPES.join(', ')}` });
  }
  const digits = cardDigits(input.number);
  if (digits === undefined) {
    problems.push({
      field: 'CreditCard.Number',
      message: 'must be digits (spaces and dashes between groups are allowed)',
    });
  } else if (
    digits.length < CARD_NUMBER_MIN_DIGITS ||
    digits.length > CARD_NUMBER_MAX_DIGITS ||
    !isLuhnValid(digits)
  ) {
    problems.push({ field: 'CreditCard.Number', message: 'is not a valid card number' });
  } else if (cardType && !matchesCardType(digits, cardType)) {
    const looksLike = cardTypesOf(digits)[0];
    problems.push({
      field: 'CreditCard.Number',
      message: `is not a ${cardType} card number${looksLike ? ` (it looks like ${looksLike})` : ''}`,
    });
  }
  const nameOnCard = requiredText(input.nameOnCard, 'CreditCard.NameOnCard', problems);
  const lastNameOnCard = requiredText(input.lastNameOnCard, 'CreditCard.LastNameOnCard', problems);

  const { expiryMonth, expiryYear } = input;
  const monthOk = expiryMonth >= 1 && expiryMonth <= 12;
  if (!monthOk) problems.push({ field: 'CreditCard.ExpiryMonth', message: 'must be 1 to 12' });
  const [thisYear, thisMonth] = dateAt(ctx.clock.now(), ctx.account.timeZone).split('-').map(Number) as [
    number,
    number,
  ];
  if (expiryYear < 1000 || expiryYear > 9999) {
    problems.push({ field: 'CreditCard.ExpiryYear', message: 'must be a four-digit year' });
  } else if (expiryYear > thisYear + CARD_YEARS_AHEAD) {
    problems.push({
      field: 'CreditCard.ExpiryYear',
      message: `must be at most ${CARD_YEARS_AHEAD} years ahead`,
    });
  } else if (expiryYear < thisYear || (monthOk && expiryYear === thisYear && expiryMonth < thisMonth)) {
    // A card is good to the end of its expiry month, in the account's time zone.
    problems.push({
      field: expiryYear < thisYear ? 'CreditCard.ExpiryYear' : 'CreditCard.ExpiryMonth',
      message: 'the card has expired',
    });
  }
  return {
    cardType: cardType ?? 'Unknown',
    digits: digits ?? '',
    nameOnCard,
    lastNameOnCard,
    expiryMonth,
    expiryYear,
  };
}

/** A bank account as stored: clear fields, and the account number and IBAN still to be sealed. */
interface CheckedBankAccount {
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
}

/**
 * Spec, Payment methods, bank-account field rules: AccountNumber is not required for sepa; BranchCode may be set
 * only when the method is neither sepa nor ach; RoutingNumber is required for ach; IBAN and BIC are required for
 * sepa. Ours besides: debit_order needs AccountNumber and BranchCode, ach needs AccountNumber, and RoutingNumber,
 * IBAN and BIC belong to their method only. Blank counts as not given. Every problem is reported at once.
 */
function checkedBankAccount(input: BankAccountInput, problems: FieldProblem[]): CheckedBankAccount {
  const field = (name: string) => `BankAccount.${name}`;
  const method = debitMethodOf(input.method);
  if (!method) {
    problems.push({ field: field('Method'), message: `must be one of ${DEBIT_METHODS.join(', ')}` });
  }
  const accountType = accountTypeOf(input.accountType);
  if (!accountType) {
    problems.push({ field: field('AccountType'), message: `must be one of ${ACCOUNT_TYPES.join(', ')}` });
  }
  const accountHolder = requiredText(input.accountHolder, field('AccountHolder'), problems);
  const bank = requiredText(input.bank, field('Bank'), problems);

  const given = {
    accountNumber: optionalText(input.accountNumber) ?? null,
    branchCode: optionalText(input.branchCode) ?? null,
    routingNumber: optionalText(input.routingNumber) ?? null,
    iban: optionalText(input.iban) ?? null,
    bic: optionalText(input.bic) ?? null,
  };
  const required = (name: string, value: string | null) => {
    if (value === null) problems.push({ field: field(name), message: `is required for ${method}` });
    return value !== null;
  };
  const refused = (name: string, value: string | null, only: string) => {
    if (value !== null) problems.push({ field: field(name), message: `is only for ${only}, not ${method}` });
  };

  let accountNumber: string | null = null;
  let branchCode: string | null = null;
  let routingNumber: string | null = null;
  let iban: string | null = null;
  let bic: string | null = null;
  if (method !== 'sepa' && method !== undefined && required('AccountNumber', given.accountNumber)) {
    accountNumber = accountNumberDigits(given.accountNumber!) ?? null;
    if (accountNumber === null) {
      problems.push({
        field: field('AccountNumber'),
        message: `must be ${ACCOUNT_NUMBER_MIN_DIGITS} to ${ACCOUNT_NUMBER_MAX_DIGITS} digits (spaces and dashes between groups are allowed)`,
      });
    }
  }
  if (method === 'debit_order') {
    if (required('BranchCode', given.branchCode)) {
      branchCode = given.branchCode;
      if (!isValidBranchCode(branchCode!)) {
        problems.push({
          field: field('BranchCode'),
          message: 'must be 3 to 20 letters and digits (spaces and dashes between groups are allowed)',
        });
      }
    }
  } else if (method) {
    // Spec: BranchCode may be set only when the method is neither sepa nor ach.
    refused('BranchCode', given.branchCode, 'debit_order');
  }
  if (method === 'ach') {
    // Spec: RoutingNumber is required for ach.
    if (required('RoutingNumber', given.routingNumber)) {
      routingNumber = given.routingNumber!.replace(/[\s-]/g, '');
      if (!isValidRoutingNumber(routingNumber)) {
        problems.push({ field: field('RoutingNumber'), message: 'is not a valid ABA routing number' });
      }
    }
  } else if (method) {
    refused('RoutingNumber', given.routingNumber, 'ach');
  }
  if (method === 'sepa') {
    // Spec: IBAN and BIC are required for sepa.
    if (required('IBAN', given.iban)) {
      iban = normalizeIban(given.iban!);
      const problem = ibanProblem(iban);
      if (problem) problems.push({ field: field('IBAN'), message: problem });
    }
    if (required('BIC', given.bic)) {
      bic = given.bic!.replace(/\s+/g, '').toUpperCase();
      if (!isValidBic(bic)) {
        problems.push({
          field: field('BIC'),
          message: 'must be a BIC: 8 or 11 letters and digits (e.g. DEUTDEFF)',
        });
      }
    }
  } else if (method) {
    refused('IBAN', given.iban, 'sepa');
    refused('BIC', given.bic, 'sepa');
  }
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
  };
}

/** The bank-account columns of a checked account, the account number and IBAN sealed. */
function bankAccountColumns(ctx: ServiceContext, account: CheckedBankAccount) {
  return {
    // The last four of what identifies the account: its IBAN for sepa, else its number.
    last_four: lastFour(account.iban ?? account.accountNumber ?? ''),
    debit_method: account.debitMethod,
    account_type: account.accountType,
    account_holder: account.accountHolder,
    bank: account.bank,
    account_number_sealed: account.accountNumber === null ? null : ctx.secrets.seal(account.accountNumber),
    branch_code: account.branchCode,
    iban_sealed: account.iban === null ? null : ctx.secrets.seal(account.iban),
    bic: account.bic,
    routing_number: account.routingNumber,
    emandate_token: account.emandateToken,
  };
}

// Writing.

/** A token of our own for a method no gateway vault keeps (bank accounts). */
function ownToken(): string {
  return `pm_${crypto.randomBytes(12).toString('hex')}`;
}

/**
 * Inserts a method with the customer's primary rules: the customer's first method becomes primary whatever
 * isPrimary says (a customer with methods always has one primary); isPrimary true moves the primary to the new
 * one. In one transaction, under the customer's lock.
 */
async function insertWithPrimaryRules(
  ctx: ServiceContext,
  row: Omit<repo.NewPaymentMethodRow, 'is_primary'>,
  wantsPrimary: boolean,
): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.transaction().execute(async (trx) => {
        await repo.lockCustomerPaymentMethods(trx, ctx.account.id, row.customer_id);
        const hasPrimary = await repo.hasPrimaryPaymentMethod(trx, ctx.account.id, row.customer_id);
        if (wantsPrimary && hasPrimary) {
          await repo.clearPrimaryPaymentMethod(trx, ctx.account.id, row.customer_id, row.updated_at);
        }
        return repo.insertPaymentMethod(trx, { ...row, is_primary: wantsPrimary || !hasPrimary });
      });
    } catch (error) {
      // Two first methods of one customer at once: there was no row to lock, and the one-primary index refused
      // the second. Its retry sees the first and follows the rules again.
      if (!isUniqueViolation(error) || attempt >= PRIMARY_ATTEMPTS) throw error;
    }
  }
}

/**
 * The gateway whose vault keeps the customer's card: the customer's PrimaryGatewayID when set, else the account's
 * primary gateway. It must be usable and take cards.
 */
async function cardGateway(ctx: ServiceContext, primaryGatewayId: number | null): Promise<Gateway> {
  const gateway =
    primaryGatewayId !== null ? await getGateway(ctx, primaryGatewayId) : await findPrimaryGateway(ctx);
  if (!gateway) {
    throw ValidationError.field(
      'CreditCard',
      'cannot be kept: the customer has no PrimaryGatewayID and the account has no usable primary gateway',
      'no_card_gateway',
    );
  }
  if (!isGatewayUsable(gateway)) {
    throw ValidationError.field(
      'CreditCard',
      `cannot be kept: the customer's gateway ${gateway.id} is disabled or retired`,
      'gateway_not_usable',
    );
  }
  if (!gatewayAccepts(gateway, 'credit_card')) {
    throw ValidationError.field(
      'CreditCard',
      `cannot be kept: gateway ${gateway.id} does not take credit cards`,
      'gateway_refuses_cards',
    );
  }
  return gateway;
}

/**
 * POST /v1/paymentmethods/creditcard. The number goes to the gateway's vault, which hands back a token; we keep
 * the token, the brand, the last four digits, the names and the expiry (never the number). Spec: a card is
 * isValid true on add.
 */
export async function addCreditCard(ctx: ServiceContext, input: AddCreditCardInput): Promise<PaymentMethod> {
  const problems: FieldProblem[] = [];
  const card = checkedCard(ctx, input, problems);
  if (problems.length) throw new ValidationError(problems);
  const customer = await getCustomer(ctx, input.customerId);
  const gateway = await cardGateway(ctx, customer.row.primary_gateway_id);
  const { token } = await vaultCard(
    ctx,
    gateway,
    {
      number: card.digits,
      cardType: card.cardType,
      nameOnCard: card.nameOnCard,
      lastNameOnCard: card.lastNameOnCard,
      expiryMonth: card.expiryMonth,
      expiryYear: card.expiryYear,
    },
    'CreditCard',
  );
  const now = ctx.clock.now().toISOString();
  const id = await insertWithPrimaryRules(
    ctx,
    {
      account_id: ctx.account.id,
      customer_id: customer.row.id,
      gateway_id: gateway.id,
      method_type: 'credit_card',
      token,
      is_valid: true,
      last_four: lastFour(card.digits),
      card_type: card.cardType,
      name_on_card: card.nameOnCard,
      last_name_on_card: card.lastNameOnCard,
      expiry_month: card.expiryMonth,
      expiry_year: card.expiryYear,
      created_at: now,
      updated_at: now,
    },
    input.isPrimary,
  );
  return readUnopenedPaymentMethod(ctx, id);
}

/**
 * POST /v1/paymentmethods/bankaccount. The account number and IBAN are sealed at rest. Spec: a bank account is
 * isValid false on add (nothing has proved it yet).
 */
export async function addBankAccount(
  ctx: ServiceContext,
  input: AddBankAccountInput,
): Promise<PaymentMethod> {
  const problems: FieldProblem[] = [];
  const account = checkedBankAccount(input.bankAccount, problems);
  if (problems.length) throw new ValidationError(problems);
  await assertCustomerExists(ctx, input.customerId);
  const now = ctx.clock.now().toISOString();
  const id = await insertWithPrimaryRules(
    ctx,
    {
      account_id: ctx.account.id,
      customer_id: input.customerId,
      gateway_id: null,
      method_type: 'bank_account',
      token: ownToken(),
      is_valid: false,
      ...bankAccountColumns(ctx, account),
      created_at: now,
      updated_at: now,
    },
    input.isPrimary,
  );
  return readUnopenedPaymentMethod(ctx, id);
}

/**
 * PUT /v1/paymentmethods/bankaccount/{id}: the same body as the add, replacing the bank details. The method stays
 * with its customer (a different customerID is a 422) and keeps its token. Changed details are unproven again, so
 * isValid becomes false. isPrimary true makes it primary; false changes nothing (a customer with methods always
 * has a primary: move it by making another one primary).
 */
export async function editBankAccount(
  ctx: ServiceContext,
  paymentMethodId: number,
  input: AddBankAccountInput,
): Promise<void> {
  const current = await repo.findPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
  if (!current) throw new NotFoundError('Payment method', paymentMethodId);
  if (current.method_type !== 'bank_account') {
    throw ValidationError.field(
      'paymentMethodID',
      `payment method ${paymentMethodId} is a credit card; only bank accounts are edited here`,
      'not_a_bank_account',
    );
  }
  const problems: FieldProblem[] = [];
  const account = checkedBankAccount(input.bankAccount, problems);
  if (input.customerId !== current.customer_id) {
    await assertCustomerExists(ctx, input.customerId);
    problems.push({
      field: 'customerID',
      message: `cannot change (it is ${current.customer_id}); add the account to the other customer instead`,
    });
  }
  if (problems.length) throw new ValidationError(problems);
  const now = ctx.clock.now().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    if (input.isPrimary) await repo.lockCustomerPaymentMethods(trx, ctx.account.id, current.customer_id);
    const updated = await repo.updateBankAccount(trx, ctx.account.id, paymentMethodId, {
      ...bankAccountColumns(ctx, account),
      is_valid: false,
      updated_at: now,
    });
    if (!updated) throw new NotFoundError('Payment method', paymentMethodId);
    if (input.isPrimary) {
      await repo.setPrimaryPaymentMethod(trx, ctx.account.id, current.customer_id, paymentMethodId, now);
    }
  });
}

/** PUT /v1/paymentmethods/{id}/setprimary: the method becomes its customer's only primary, in one transaction. */
export async function setPrimaryPaymentMethod(ctx: ServiceContext, paymentMethodId: number): Promise<void> {
  const current = await repo.findPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
  if (!current) throw new NotFoundError('Payment method', paymentMethodId);
  const now = ctx.clock.now().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    await repo.lockCustomerPaymentMethods(trx, ctx.account.id, current.customer_id);
    const set = await repo.setPrimaryPaymentMethod(
      trx,
      ctx.account.id,
      current.customer_id,
      paymentMethodId,
      now,
    );
    // Deleted meanwhile: throwing rolls back the clearing of the old primary.
    if (!set) throw new NotFoundError('Payment method', paymentMethodId);
  });
}

/**
 * DELETE /v1/paymentmethods/{id}. Spec, Limits: a primary payment method cannot be deleted (409; make another one
 * primary first). Nor one that an invoice or recurring invoice names as its customerPaymentMethodID, or that a
 * payment was made with (409 `payment_method_in_use`): those records keep pointing at it.
 */
export async function deletePaymentMethod(ctx: ServiceContext, paymentMethodId: number): Promise<void> {
  const current = await repo.findPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
  if (!current) throw new NotFoundError('Payment method', paymentMethodId);
  const isPrimary = () =>
    new ConflictError(
      'payment_method_is_primary',
      `Payment method ${paymentMethodId} is the customer's primary; make another one primary before deleting it`,
    );
  if (current.is_primary) throw isPrimary();
  const inUse = (what: string) =>
    new ConflictError('payment_method_in_use', `Payment method ${paymentMethodId} is used by ${what}`);
  const invoices = await countInvoicesUsingPaymentMethod(ctx, paymentMethodId);
  if (invoices > 0) throw inUse(`${invoices} invoice(s)`);
  const recurring = await countRecurringInvoicesUsingPaymentMethod(ctx, paymentMethodId);
  if (recurring > 0) throw inUse(`${recurring} recurring invoice(s)`);
  let deleted: boolean;
  try {
    deleted = await repo.deleteNonPrimaryPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
  } catch (error) {
    // Payments refer to their method by a foreign key: the database refuses the delete.
    if (isForeignKeyViolation(error)) throw inUse('payments');
    throw error;
  }
  if (deleted) return;
  // Made primary or deleted by a concurrent request since it was read.
  const now = await repo.findPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
  if (!now) throw new NotFoundError('Payment method', paymentMethodId);
  throw isPrimary();
}

/**
 * POST /v1/ValidateBankAccount/{gatewayID}: checks a bank account's details as an add would, for a gateway that
 * takes bank accounts. It checks the format only (checksums, lengths, the method's required fields) and changes
 * nothing stored: the spec does not say that it touches isValid, and no stored method is named.
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
  checkedBankAccount(input.bankAccount, problems);
  if (problems.length) throw new ValidationError(problems);
  if (input.customerId != null) await assertCustomerExists(ctx, input.customerId);
}

// For other modules.

/**
 * The primary payment method of each of these customers that has one (PrimaryPaymentMethodInfo): one statement for
 * a page of customers.
 */
export async function primaryPaymentMethodsOf(
  ctx: ServiceContext,
  customerIds: readonly number[],
): Promise<Map<number, { paymentMethodId: number; token: string }>> {
  const rows = await repo.listPrimaryPaymentMethods(ctx.db, ctx.account.id, [...new Set(customerIds)]);
  return new Map(rows.map((row) => [row.customer_id, { paymentMethodId: row.id, token: row.token }]));
}

/** Deletes every method of a customer, in the transaction that deletes the customer. */
export async function deletePaymentMethodsOfCustomer(ctx: ServiceContext, customerId: number): Promise<void> {
  await repo.deleteCustomerPaymentMethods(ctx.db, ctx.account.id, customerId);
}

const KIND_NAMES: Record<PaymentMethodKind, string> = {
  credit_card: 'a credit card',
  bank_account: 'a bank account',
};

/**
 * The check behind an invoice's and a recurring invoice's customerPaymentMethodID (spec, Invoice: "must be a kind
 * the gateway supports"): the method must be the customer's, of the kind the collection method draws on
 * (`kind`: credit_card for credit_card, bank_account for debit_order) and of a kind the gateway takes; a card must
 * be kept by that very gateway, since its token means nothing to another. A ValidationError (422) naming `field`
 * otherwise, with the same message whether the method is missing, another customer's or another account's.
 */
export async function assertPaymentMethodUsable(
  ctx: ServiceContext,
  use: { customerId: number; paymentMethodId: number; gateway?: Gateway; kind?: PaymentMethodKind },
  field: string,
): Promise<PaymentMethod> {
  const { customerId, paymentMethodId, gateway, kind } = use;
  const row = await repo.findPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
  if (!row || row.customer_id !== customerId) {
    throw ValidationError.field(
      field,
      `customer ${customerId} has no payment method ${paymentMethodId}`,
      'payment_method_not_found',
    );
  }
  const method = paymentMethodFromRow(row);
  const problems: FieldProblem[] = [];
  if (kind && method.type !== kind) {
    problems.push({
      field,
      message: `payment method ${paymentMethodId} is ${KIND_NAMES[method.type]}; this collection method draws on ${KIND_NAMES[kind]}`,
    });
  }
  if (gateway && !gatewayAccepts(gateway, method.type)) {
    problems.push({
      field,
      message: `gateway ${gateway.id} does not collect from ${method.type === 'credit_card' ? 'credit cards' : 'bank accounts'}`,
    });
  } else if (gateway && method.gatewayId !== null && method.gatewayId !== gateway.id) {
    problems.push({
      field,
      message: `payment method ${paymentMethodId} is kept by gateway ${method.gatewayId} and cannot be charged through gateway ${gateway.id}`,
    });
  }
  if (problems.length) throw new ValidationError(problems, 'payment_method_not_usable');
  return method;
}
