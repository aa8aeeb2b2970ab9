import { today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ACCOUNT_TYPES, accountNumberDigits, accountTypeOf, isValidBranchCode } from './bankAccounts.ts';
import { checkedWireDate } from '../../core/calendar.ts';
import { listCountries } from '../../core/countries.ts';
import {
  DEBIT_FREQUENCIES,
  NAME_ON_STATEMENT_MAX,
  actionDayProblem,
  debitFrequencyOf,
  escalationOf,
  maxAmountProblem,
} from './mandates.ts';
import { wireAmountToMinor } from '../../core/money.ts';
import { isEmailAddress, optionalText, requiredText } from '../../core/text.ts';
import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { checkedDebiCheck } from './debiCheck.ts';
import type { DebiCheckInput } from './debiCheck.ts';
import type { DebitTerms, Signee } from './emandate.ts';
import { allowedFrameOrigin, returnUrlProblem } from './origins.ts';

/**
 * A new eMandate's request judged whole (docs/design/mandates.md, "Fields"): every problem by wire field at once, or
 * the mandate's parts, a DebiCheck mandate's with its terms and the debtor's identity number (docs/design/mandates.md,
 * "DebiCheck").
 */

/** A request's fields, as the wire gave them; the use case judges them all at once. */
export interface EmandateInput {
  name: string;
  lastName: string;
  company?: string | null;
  tradingAs?: string | null;
  tel?: string | null;
  email?: string | null;
  address1?: string | null;
  address2?: string | null;
  city?: string | null;
  state?: string | null;
  countryIsoCode?: string | null;
  postalCode?: string | null;
  bankName: string;
  bankBranchCode: string;
  bankAccHolder: string;
  bankAccNumber: string;
  bankAccountType: string;
  debitActionDay: number;
  debitStartDate: string;
  debitEndDate?: string | null;
  debitFrequency: string;
  debitEscalation?: number | string | null;
  debitAmt: number | string;
  debitMaxAmt?: number | string | null;
  debitNameOnStmt: string;
  debitContractRef: string;
  debitVariableAmts?: boolean | null;
  isCustomerEditable?: boolean | null;
  isCompanySignee?: boolean | null;
  /** Beyond the spec (docs/spec-decisions.md, "eMandates"). */
  customerId?: number | null;
  authDomain?: string | null;
  returnUrl?: string | null;
  cancelUrl?: string | null;
  /** Beyond the spec: a DebiCheck mandate's terms (docs/spec-decisions.md, "DebiCheck mandates"). */
  debiCheck?: EmandateDebiCheckInput;
}

/** The DebiCheck fields of a request, as the wire gave them; the first amount in the account's currency. */
export interface EmandateDebiCheckInput extends Omit<DebiCheckInput, 'firstAmountMinor'> {
  firstAmt?: number | string | null;
}

function countryProblem(code: string): string | undefined {
  const upper = code.toUpperCase();
  return listCountries().some((country) => country.alpha3 === upper)
    ? undefined
    : 'must be an ISO 3166-1 three-letter country code';
}

function amountMinor(
  value: number | string,
  currencyCode: string,
  field: string,
  problems: FieldProblem[],
): number | undefined {
  const read = wireAmountToMinor(value, currencyCode);
  if ('minor' in read) return read.minor;
  problems.push({ field, message: read.message });
  return undefined;
}

/** Text of at most `max` characters, or a problem. */
export function bounded(
  value: string | null | undefined,
  max: number,
  field: string,
  problems: FieldProblem[],
) {
  const text = optionalText(value) ?? null;
  if (text !== null && text.length > max)
    problems.push({ field, message: `must be at most ${max} characters` });
  return text;
}

/**
 * Every rule of docs/design/mandates.md, "Fields", and of the spec's required fields, reported at once by wire
 * field: the mandate's parts, or a ValidationError. Money is in the account's currency (docs/spec-decisions.md,
 * "eMandates").
 */
export function checkedEmandate(ctx: ServiceContext, input: EmandateInput) {
  const problems: FieldProblem[] = [];
  const signee = checkedSignee(input, problems);
  const bankAccount = checkedBankAccount(input, problems);
  const debit = checkedDebit(ctx, input, problems);
  const debiCheck = checkedDebiCheckOf(input, debit, problems);
  if (debiCheck && signee.signee.tel === null) {
    problems.push({
      field: 'Tel',
      message: "is required for a DebiCheck mandate: the debtor's mobile number",
    });
  }
  const pageLinks = checkedPageLinks(input, problems);
  if (problems.length) throw new ValidationError(problems);
  return {
    customerId: input.customerId ?? null,
    ...signee,
    ...bankAccount,
    // A variable or usage-based contract's collections vary up to the maximum (debiCheck.ts).
    debit: debiCheck ? { ...debit, variableAmounts: debiCheck.terms.contractType !== 'fixed' } : debit,
    isCustomerEditable: input.isCustomerEditable === true,
    ...pageLinks,
    debiCheck,
  };
}

/** The DebiCheck terms when the request makes the mandate a DebiCheck one (debiCheck.ts), else null. */
function checkedDebiCheckOf(input: EmandateInput, debit: DebitTerms, problems: FieldProblem[]) {
  const given = input.debiCheck ?? {};
  const firstGiven = given.firstAmt ?? null;
  const firstAmountMinor =
    firstGiven === null
      ? null
      : (amountMinor(firstGiven, debit.currencyCode, 'DebiCheckFirstAmt', problems) ?? null);
  return checkedDebiCheck(
    { ...given, firstAmountMinor },
    {
      frequency: debit.frequency,
      actionDay: debit.actionDay,
      amountMinor: debit.amountMinor,
      maxAmountMinor: debit.maxAmountMinor,
      variableAmounts: debit.variableAmounts,
      variableAmountsGiven: input.debitVariableAmts !== undefined && input.debitVariableAmts !== null,
    },
    problems,
  );
}

/** Who signs: the person, the company they may sign for, and how to reach them. */
function checkedSignee(input: EmandateInput, problems: FieldProblem[]) {
  const name = requiredText(input.name, 'Name', problems);
  const lastName = requiredText(input.lastName, 'Lastname', problems);
  const isCompanySignee = input.isCompanySignee === true;
  const company = bounded(input.company, 255, 'Company', problems);
  if (isCompanySignee && company === null) {
    problems.push({ field: 'Company', message: 'is required when isCompanySignee is true' });
  }
  const tradingAs = bounded(input.tradingAs, 255, 'TradingAs', problems);
  const tel = bounded(input.tel, 40, 'Tel', problems);
  const email = bounded(input.email, 254, 'Email', problems);
  const address1 = bounded(input.address1, 255, 'Address1', problems);
  const address2 = bounded(input.address2, 255, 'Address2', problems);
  const city = bounded(input.city, 100, 'City', problems);
  const state = bounded(input.state, 100, 'State', problems);
  const postalCode = bounded(input.postalCode, 20, 'PostalCode', problems);
  if (email !== null && !isEmailAddress(email))
    problems.push({ field: 'Email', message: 'must be an e-mail address' });
  const country = bounded(input.countryIsoCode, 3, 'CountryISOCode', problems);
  if (country !== null) {
    const problem = countryProblem(country);
    if (problem) problems.push({ field: 'CountryISOCode', message: problem });
  }

  const signee: Signee = {
    name,
    lastName,
    company,
    tradingAs,
    tel,
    email,
    address1,
    address2,
    city,
    state,
    countryIsoCode: country && country.toUpperCase(),
    postalCode,
  };
  return { signee, isCompanySignee };
}

/** The account debited: a debit order's bank details. */
function checkedBankAccount(input: EmandateInput, problems: FieldProblem[]) {
  const bankName = requiredText(input.bankName, 'bank_Name', problems);
  const branchCode = requiredText(input.bankBranchCode, 'bank_BranchCode', problems);
  if (branchCode !== '' && !isValidBranchCode(branchCode)) {
    problems.push({ field: 'bank_BranchCode', message: 'must be 3 to 20 letters and digits' });
  }
  const accountHolder = requiredText(input.bankAccHolder, 'bank_AccHolder', problems);
  const accountNumber = accountNumberDigits(input.bankAccNumber);
  if (accountNumber === undefined) {
    problems.push({
      field: 'bank_AccNumber',
      message: 'must be 4 to 17 digits (spaces and dashes between groups are allowed)',
    });
  }
  const accountType = accountTypeOf(input.bankAccountType);
  if (!accountType) {
    problems.push({ field: 'bank_AccountType', message: `must be one of ${ACCOUNT_TYPES.join(', ')}` });
  }

  return {
    bankAccount: {
      debitMethod: 'debit_order' as const,
      bankName,
      branchCode,
      accountHolder,
      accountType: accountType!,
    },
    accountNumber: accountNumber!,
  };
}

/** What is debited, how often and from when, in the account's currency. */
function checkedDebit(ctx: ServiceContext, input: EmandateInput, problems: FieldProblem[]): DebitTerms {
  const currencyCode = ctx.account.currencyCode;
  const frequency = debitFrequencyOf(input.debitFrequency);
  if (!frequency) {
    problems.push({
      field: 'debit_Frequency',
      message: `must be one of ${DEBIT_FREQUENCIES.join(', ')} (DebiCheck has no daily collections)`,
    });
  } else {
    const problem = actionDayProblem(frequency, input.debitActionDay);
    if (problem) problems.push({ field: 'debit_ActionDay', message: problem });
  }
  const startDate = checkedWireDate(input.debitStartDate, ctx.account.timeZone, 'debit_StartDate', problems);
  if (startDate !== undefined && startDate < today(ctx)) {
    problems.push({ field: 'debit_StartDate', message: `must not be in the past (today is ${today(ctx)})` });
  }
  const endText = optionalText(input.debitEndDate) ?? null;
  const endDate =
    endText === null ? null : checkedWireDate(endText, ctx.account.timeZone, 'debit_EndDate', problems);
  if (startDate !== undefined && endDate && endDate < startDate) {
    problems.push({ field: 'debit_EndDate', message: 'must not be before debit_StartDate' });
  }
  const amount = amountMinor(input.debitAmt, currencyCode, 'debit_Amt', problems);
  const maxGiven = input.debitMaxAmt ?? null;
  const maxAmount =
    maxGiven === null ? amount : amountMinor(maxGiven, currencyCode, 'debit_MaxAmt', problems);
  if (maxGiven !== null && amount !== undefined && maxAmount !== undefined) {
    const problem = maxAmountProblem(amount, maxAmount);
    if (problem) problems.push({ field: 'debit_MaxAmt', message: problem });
  }
  const escalationGiven = input.debitEscalation ?? null;
  const escalation =
    escalationGiven === null || (typeof escalationGiven === 'string' && escalationGiven.trim() === '')
      ? null
      : (escalationOf(escalationGiven, 'debit_Escalation', problems) ?? null);
  const nameOnStatement = requiredText(input.debitNameOnStmt, 'debit_NameOnStmt', problems);
  if (nameOnStatement.length > NAME_ON_STATEMENT_MAX) {
    problems.push({
      field: 'debit_NameOnStmt',
      message: `must be at most ${NAME_ON_STATEMENT_MAX} characters`,
    });
  }
  const contractRef = requiredText(input.debitContractRef, 'debit_ContractRef', problems);

  return {
    currencyCode,
    frequency: frequency!,
    actionDay: input.debitActionDay,
    startDate: startDate!,
    endDate: endDate ?? null,
    amountMinor: amount!,
    maxAmountMinor: maxAmount!,
    escalation,
    nameOnStatement,
    contractRef,
    variableAmounts: input.debitVariableAmts === true,
  };
}

/** Where the signing page may be framed, and where it sends the signee back to. */
function checkedPageLinks(input: EmandateInput, problems: FieldProblem[]) {
  const authDomainText = optionalText(input.authDomain) ?? null;
  const authDomain = authDomainText === null ? null : allowedFrameOrigin(authDomainText);
  if (authDomainText !== null && typeof authDomain !== 'string') {
    problems.push({ field: 'AuthDomain', message: authDomain?.problem ?? 'must be an origin' });
  }
  const returnUrl = optionalText(input.returnUrl) ?? null;
  if (returnUrl !== null) {
    const problem = returnUrlProblem(returnUrl);
    if (problem) problems.push({ field: 'ReturnUrl', message: problem });
  }
  const cancelUrl = optionalText(input.cancelUrl) ?? null;
  if (cancelUrl !== null) {
    const problem = returnUrlProblem(cancelUrl);
    if (problem) problems.push({ field: 'CancelUrl', message: problem });
  }
  return {
    authDomain: typeof authDomain === 'string' ? authDomain : null,
    returnUrl,
    cancelUrl,
  };
}
