/** Checking a recurring invoice request: its own fields, then the invoice rules it shares (invoiceInput.ts). */
import type { ServiceContext } from '../../context.ts';
import type { FieldProblem } from '../../errors.ts';
import type { RecurringInvoiceFields } from './recurringInvoice.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { TERM_UNITS, isTermUnit } from '../../core/periods.ts';
import { optionalText } from '../../core/text.ts';
import { assertCurrencyEnabled } from '../catalogue/index.ts';
import {
  checkCollection,
  checkTotals,
  checkedCharges,
  checkedCollectionMethod,
  checkedDate,
  checkedTaxes,
  collectProblems,
} from './invoiceInput.ts';
import type { ChargeInput, CheckedCharge, CheckedTax, TaxInput } from './invoiceInput.ts';

/** A request's fields: undefined leaves a field as it is (edit) or to its default (create); null clears it. */
export interface RecurringInvoiceInput {
  customerId?: number;
  currencyCode?: string;
  reference?: string | null;
  term?: number;
  termType?: string;
  /** Any date the wire accepts. */
  startDate?: string;
  endDate?: string | null;
  numDaysBeforeToInv?: number;
  collectionMethod?: string | null;
  gatewayId?: number | null;
  customerPaymentMethodId?: number | null;
  invoiceTerms?: string | null;
  invoiceNotes?: string | null;
  taxes?: TaxInput[];
  charges?: ChargeInput[];
  /** The wire name the charges came under (RecurInvoiceCharges or RecurInvoiceCharge), to name it in problems. */
  chargesField?: string;
}

/** The values a request sets, each checked on its own; undefined where the request leaves a field out. */
interface CheckedFields {
  currencyCode?: string;
  reference?: string | null;
  term?: number;
  termType?: string;
  startDate?: PlainDate;
  endDate?: PlainDate | null;
  numDaysBeforeToInv?: number;
  collectionMethod?: string | null;
  gatewayId?: number | null;
  customerPaymentMethodId?: number | null;
  invoiceTerms?: string | null;
  invoiceNotes?: string | null;
  charges?: CheckedCharge[];
  taxes?: CheckedTax[];
}

function checkedRecurringCharges(
  input: ChargeInput[],
  at: string,
  problems: FieldProblem[],
): CheckedCharge[] {
  if (input.length === 0) problems.push({ field: at, message: 'must have at least 1 item' });
  // Same meanings as invoice charges (spec): one set of rules.
  return checkedCharges(input, problems, at);
}

/** Each field on its own; the rules between fields are checked on the whole record (checkRecord). */
export function checkedFields(
  ctx: ServiceContext,
  input: RecurringInvoiceInput,
  problems: FieldProblem[],
): CheckedFields {
  const fields: CheckedFields = {
    reference: optionalText(input.reference),
    term: input.term,
    numDaysBeforeToInv: input.numDaysBeforeToInv,
    gatewayId: input.gatewayId,
    customerPaymentMethodId: input.customerPaymentMethodId,
    invoiceTerms: optionalText(input.invoiceTerms),
    invoiceNotes: optionalText(input.invoiceNotes),
  };
  if (input.currencyCode !== undefined) fields.currencyCode = input.currencyCode.trim().toUpperCase();
  if (input.termType !== undefined) {
    // Spec: TermType is months or days; any letter case in, lower case out.
    const type = input.termType.trim().toLowerCase();
    if (!isTermUnit(type))
      problems.push({ field: 'TermType', message: `must be one of ${TERM_UNITS.join(', ')}` });
    fields.termType = type;
  }
  const startDate = checkedDate(ctx, input.startDate, 'StartDate', problems);
  if (startDate) fields.startDate = startDate;
  fields.endDate = checkedDate(ctx, input.endDate, 'EndDate', problems);
  if (input.collectionMethod !== undefined)
    fields.collectionMethod = checkedCollectionMethod(input.collectionMethod, problems);
  if (input.charges)
    fields.charges = checkedRecurringCharges(
      input.charges,
      input.chargesField ?? 'RecurInvoiceCharges',
      problems,
    );
  if (input.taxes) fields.taxes = checkedTaxes(input.taxes, problems);
  return fields;
}

/** The record as it will be stored: the request's values over the stored ones (or the defaults on create). */
export interface RecurringRecord extends RecurringInvoiceFields {
  customerId: number;
  charges: CheckedCharge[];
  taxes: CheckedTax[];
}

/**
 * The rules between fields, on the record as it will be stored, and the checks that read other records. On edit,
 * values kept from the stored record are not checked again against the catalogue or the gateways (a client
 * sending back what it read must not be refused because a gateway was disabled since).
 */
export async function checkRecord(
  ctx: ServiceContext,
  record: RecurringRecord,
  changed: (key: keyof RecurringRecord) => boolean,
  chargesField: string,
  problems: FieldProblem[],
): Promise<void> {
  if (record.endDate !== null && record.endDate <= record.startDate) {
    problems.push({
      field: 'EndDate',
      message: `must be after StartDate (${record.endDate} ≤ ${record.startDate})`,
    });
  }
  if (changed('currencyCode')) {
    const code = await collectProblems(problems, () =>
      assertCurrencyEnabled(ctx, record.currencyCode, 'CurrencyCode'),
    );
    if (code) record.currencyCode = code;
  }
  // Amounts are priced in the currency's minor unit, so only once the currency is known. The figures of every
  // invoice it makes must be representable and must not owe the customer money.
  if (!problems.some((p) => p.field === 'CurrencyCode')) checkTotals(record, problems, chargesField);
  await checkCollection(ctx, record, problems, changed);
}
