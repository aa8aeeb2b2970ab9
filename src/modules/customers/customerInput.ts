import type { ServiceContext } from '../../context.ts';
import type { FieldProblem } from '../../errors.ts';
import { billCycleDayProblem } from '../../core/billCycleDayInput.ts';
import { isCurrencyCode } from '../../core/currencies.ts';
import { isEmailAddress, optionalText } from '../../core/text.ts';
import { parseWireDate } from '../../core/wireDates.ts';
import type { Customer, CustomerChanges } from './customer.ts';
import type { CustomFieldValue } from './customField.service.ts';
import { checkCountryAndState } from '../catalogue/index.ts';

// A customer's fields as a create or edit sends them, each checked and turned into the changes stored (problems
// name the API's fields); customer.service.ts's use cases call checkedChanges and statusChanges.

/** The spec's payment methods, and bank_account, which its samples show. */
export const PAYMENT_METHODS = [
  'cash',
  'cheque',
  'credit_card',
  'debit_order',
  'eft',
  'bank_account',
] as const;

/** The writable fields, as a request gives them: undefined leaves a field as it is, null clears it. */
export interface CustomerInput {
  name?: string;
  reference?: string | null;
  isCompany?: boolean;
  lastName?: string | null;
  registrationNumber?: string | null;
  vatNo?: string | number | null;
  company?: string | null;
  email?: string | null;
  emailCc?: string | null;
  cell?: string | null;
  tel?: string | null;
  fax?: string | null;
  address1?: string | null;
  address2?: string | null;
  city?: string | null;
  state?: string | null;
  country?: string | null;
  zipCode?: string | null;
  countryState?: string | null;
  countryId?: number | null;
  countryStateId?: number | string | null;
  primaryGatewayId?: number | null;
  currencyCode?: string;
  isActive?: boolean;
  isSuspended?: boolean | 0 | 1;
  isWaiveTaxes?: boolean;
  paymentMethod?: string | null;
  autoSendInvoice?: boolean;
  autoSendStatement?: boolean;
  statementDate?: string | null;
  /** The day of the month its new monthly subscriptions renew on; null: the account's. */
  billCycleDay?: number | null;
  customFields?: CustomFieldValue[];
}

/**
 * The fields a create or edit sets, each checked: a field left out is left out of the changes, and each problem
 * found is added to `problems`, in the order of the fields.
 */
export function checkedChanges(
  ctx: ServiceContext,
  input: CustomerInput,
  problems: FieldProblem[],
  current?: Customer,
): CustomerChanges {
  const changes: CustomerChanges = {
    ...checkedName(input, problems),
    ...checkedEmails(input, problems),
    ...checkedCurrency(input, problems),
    ...checkedPaymentMethod(input, problems),
    ...checkedStatementDate(ctx, input, problems),
    ...checkedBillCycleDay(input, problems),
    ...taxNumberAndStateChanges(input),
  };
  problems.push(...countryAndStateProblems(input, changes, current));
  return { ...changes, ...plainChanges(input) };
}

function checkedName(input: CustomerInput, problems: FieldProblem[]): CustomerChanges {
  if (input.name === undefined) return {};
  const name = input.name.trim();
  if (name === '') problems.push({ field: 'Name', message: 'must not be blank' });
  return { name };
}

function checkedEmails(input: CustomerInput, problems: FieldProblem[]): CustomerChanges {
  const changes: CustomerChanges = {};
  for (const [field, key, value] of [
    ['Email', 'email', input.email],
    ['EmailCC', 'emailCc', input.emailCc],
  ] as const) {
    const email = optionalText(value);
    if (email && !isEmailAddress(email)) problems.push({ field, message: 'must be an e-mail address' });
    if (email !== undefined) changes[key] = email;
  }
  return changes;
}

function checkedCurrency(input: CustomerInput, problems: FieldProblem[]): CustomerChanges {
  if (input.currencyCode === undefined) return {};
  const code = input.currencyCode.toUpperCase();
  if (!isCurrencyCode(code))
    problems.push({ field: 'CurrencyCode', message: `"${code}" is not an ISO 4217 currency code` });
  return { currencyCode: code };
}

function checkedPaymentMethod(input: CustomerInput, problems: FieldProblem[]): CustomerChanges {
  if (input.paymentMethod === undefined) return {};
  const method = optionalText(input.paymentMethod)?.toLowerCase() ?? null;
  if (method !== null && !(PAYMENT_METHODS as readonly string[]).includes(method)) {
    problems.push({ field: 'PaymentMethod', message: `must be one of ${PAYMENT_METHODS.join(', ')}` });
  }
  return { paymentMethod: method };
}

function checkedStatementDate(
  ctx: ServiceContext,
  input: CustomerInput,
  problems: FieldProblem[],
): CustomerChanges {
  if (input.statementDate === undefined) return {};
  const raw = optionalText(input.statementDate);
  const at = raw ? parseWireDate(raw, ctx.account.timeZone) : null;
  if (at === undefined) {
    problems.push({ field: 'StatementDate', message: 'must be a date' });
    return {};
  }
  return { statementDate: at };
}

function checkedBillCycleDay(input: CustomerInput, problems: FieldProblem[]): CustomerChanges {
  if (input.billCycleDay === undefined) return {};
  const message = billCycleDayProblem(input.billCycleDay, true);
  if (message) problems.push({ field: 'BillCycleDay', message });
  return { billCycleDay: input.billCycleDay };
}

/** VatNo and CountryStateID arrive as numbers or text; both are stored as their column's type. */
function taxNumberAndStateChanges(input: CustomerInput): CustomerChanges {
  const changes: CustomerChanges = {};
  if (input.vatNo !== undefined) {
    changes.vatNo = typeof input.vatNo === 'number' ? String(input.vatNo) : optionalText(input.vatNo);
  }
  if (input.countryStateId !== undefined) {
    changes.countryStateId = input.countryStateId === null ? null : Number(input.countryStateId);
  }
  return changes;
}

/**
 * The pair is checked as it will be stored: a field left out keeps the customer's value, so changing countryID
 * alone is refused while the stored state lies in the old country.
 */
function countryAndStateProblems(
  input: CustomerInput,
  changes: CustomerChanges,
  current: Customer | undefined,
): FieldProblem[] {
  if (input.countryId === undefined && input.countryStateId === undefined) return [];
  return checkCountryAndState(
    input.countryId !== undefined ? input.countryId : (current?.countryId ?? null),
    changes.countryStateId !== undefined ? changes.countryStateId : (current?.countryStateId ?? null),
  );
}

/** The fields stored as sent (text trimmed, blank as null), each only when sent. */
function plainChanges(input: CustomerInput): CustomerChanges {
  const plain = {
    reference: optionalText(input.reference),
    lastName: optionalText(input.lastName),
    registrationNumber: optionalText(input.registrationNumber),
    company: optionalText(input.company),
    cell: optionalText(input.cell),
    tel: optionalText(input.tel),
    fax: optionalText(input.fax),
    address1: optionalText(input.address1),
    address2: optionalText(input.address2),
    city: optionalText(input.city),
    state: optionalText(input.state),
    country: optionalText(input.country),
    zipCode: optionalText(input.zipCode),
    countryState: optionalText(input.countryState),
    countryId: input.countryId,
    primaryGatewayId: input.primaryGatewayId,
    isCompany: input.isCompany,
    isWaiveTaxes: input.isWaiveTaxes,
    autoSendInvoice: input.autoSendInvoice,
    autoSendStatement: input.autoSendStatement,
  } satisfies CustomerChanges;
  return Object.fromEntries(Object.entries(plain).filter(([, value]) => value !== undefined));
}

/** Archive/reopen and suspend/unsuspend, also when a create or edit sets isActive or isSuspended. */
export function statusChanges(
  ctx: ServiceContext,
  current: Customer | undefined,
  input: CustomerInput,
): CustomerChanges {
  const changes: CustomerChanges = {};
  if (input.isActive !== undefined) changes.isActive = input.isActive;
  if (input.isSuspended !== undefined) {
    const suspend = Boolean(input.isSuspended);
    changes.isSuspended = suspend;
    // Spec: SuspendedDate is set when suspended. Suspending again keeps the first date (our choice).
    if (!suspend) changes.suspendedAt = null;
    else if (!current?.isSuspended) changes.suspendedAt = ctx.clock.now().toISOString();
  }
  return changes;
}
