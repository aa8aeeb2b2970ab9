import { inTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { groupBy } from '../../core/collections.ts';
import { dateAt, parseWireCalendarDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { priceInvoice } from '../../core/invoiceMath.ts';
import { MAX_PRICE, decimalToMinor, minorToDecimalText } from '../../core/money.ts';
import type { Page } from '../../core/paging.ts';
import { TERM_UNITS, isTermUnit } from '../../core/periods.ts';
import {
  isRecurringExpired,
  periodCountResumingAt,
  planRecurringInvoices,
  recurringStatus,
  scheduleState,
} from '../../core/recurringBilling.ts';
import type {
  RecurringSchedule,
  RecurringScheduleState,
  RecurringStatus,
} from '../../core/recurringBilling.ts';
import { parseTaxPerc } from '../../core/tax.ts';
import { optionalText, requiredText } from '../../core/text.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import { assertCurrencyEnabled } from '../catalogue/index.ts';
import { assertCustomerExists, getCustomer } from '../customers/index.ts';
import { assertGatewayUsable, gatewayAccepts, getGateway } from '../gateways/index.ts';
import type { Gateway } from '../gateways/index.ts';
import { assertPaymentMethodUsable } from '../paymentMethods/index.ts';
import { COLLECTION_METHODS, checkedCharges, insertInvoices, queueInvoiceMails } from './invoice.service.ts';
import type { CheckedCharge, NewInvoice } from './invoice.service.ts';
import * as repo from './recurringInvoice.repository.ts';
import type {
  RecurringChargeRow,
  RecurringInvoiceRow,
  RecurringInvoiceWithCustomerRow,
  RecurringTaxRow,
} from './recurringInvoice.repository.ts';

export interface RecurringCharge {
  id: number;
  recurringInvoiceId: number;
  line: number;
  descrip: string;
  /** Exact decimal strings. */
  qty: string;
  unitCostEx: string;
  /** Priced with the recurring invoice's taxes as every invoice it makes will be (invoiceMath.ts). */
  amountExMinor: number;
  amountIncMinor: number;
  displayOrder: number;
}

export interface RecurringTax {
  id: number;
  recurringInvoiceId: number;
  name: string;
  /** Exact decimal fraction, e.g. "0.15". */
  perc: string;
}

export interface RecurringInvoice {
  row: RecurringInvoiceRow;
  /** The customer's SuspendedDate while the customer is suspended, else null. */
  suspendedAt: string | null;
  status: RecurringStatus;
  isExpired: boolean;
  charges: RecurringCharge[];
  taxes: RecurringTax[];
}

export interface RecurringChargeInput {
  descrip: string;
  qty: number | string;
  unitCostEx: number | string;
  line?: number | null;
  displayOrder?: number | null;
}

export interface RecurringTaxInput {
  name: string;
  perc: number;
}

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
  taxes?: RecurringTaxInput[];
  charges?: RecurringChargeInput[];
  /** The wire name the charges came under (RecurInvoiceCharges or RecurInvoiceCharge), to name it in problems. */
  chargesField?: string;
}

function today(ctx: ServiceContext): PlainDate {
  return dateAt(ctx.clock.now(), ctx.account.timeZone);
}

function scheduleOf(row: RecurringInvoiceRow, timeZone: string): RecurringSchedule {
  return {
    startDate: row.start_date,
    endDate: row.end_date,
    // An unknown term type is passed on as it is, so that the planner refuses it (BillingInvariantError).
    term: { count: row.term, unit: row.term_type as RecurringSchedule['term']['unit'] },
    numDaysBeforeToInv: row.num_days_before_to_inv,
    createdOn: dateAt(row.created_at, timeZone),
    isCancelled: Boolean(row.is_cancelled),
    periodCount: row.period_count,
    lastRenewDate: row.last_renew_date,
    lastInvDate: row.last_inv_date,
  };
}

function stateColumns(state: RecurringScheduleState) {
  return {
    period_count: state.periodCount,
    last_renew_date: state.lastRenewDate,
    last_inv_date: state.lastInvDate,
    next_renew_date: state.nextRenewDate,
    next_inv_date: state.nextInvDate,
  };
}

// Reading: a page is three statements whatever its size (the recurring invoices with their customers' state,
// then their charges and their taxes, each with one `where ... in`).

function assemble(
  ctx: ServiceContext,
  rows: RecurringInvoiceWithCustomerRow[],
  chargeRows: RecurringChargeRow[],
  taxRows: RecurringTaxRow[],
): RecurringInvoice[] {
  const charges = groupBy(chargeRows, (c) => c.recurring_invoice_id);
  const taxes = groupBy(taxRows, (t) => t.recurring_invoice_id);
  const on = today(ctx);
  return rows.map((withCustomer) => {
    const {
      customer_is_active: _active,
      customer_is_suspended,
      customer_suspended_at,
      ...row
    } = withCustomer;
    const ownCharges = charges.get(row.id) ?? [];
    const ownTaxes = taxes.get(row.id) ?? [];
    const priced = priceInvoice(
      ownCharges.map((c) => ({ qty: c.qty, unitCostEx: c.unit_cost_ex })),
      ownTaxes.map((t) => t.perc),
      row.currency_code,
    );
    const schedule = {
      startDate: row.start_date,
      endDate: row.end_date,
      isCancelled: Boolean(row.is_cancelled),
    };
    return {
      row,
      suspendedAt: customer_is_suspended ? customer_suspended_at : null,
      status: recurringStatus(schedule, on),
      isExpired: isRecurringExpired(schedule, on),
      charges: ownCharges.map((c, i) => ({
        id: c.id,
        recurringInvoiceId: c.recurring_invoice_id,
        line: c.line,
        descrip: c.descrip,
        qty: c.qty,
        unitCostEx: c.unit_cost_ex,
        amountExMinor: priced.charges[i]!.amountExMinor,
        amountIncMinor: priced.charges[i]!.amountIncMinor,
        displayOrder: c.display_order,
      })),
      taxes: ownTaxes.map((t) => ({
        id: t.id,
        recurringInvoiceId: t.recurring_invoice_id,
        name: t.name,
        perc: t.perc,
      })),
    };
  });
}

async function withLines(
  ctx: ServiceContext,
  rows: RecurringInvoiceWithCustomerRow[],
): Promise<RecurringInvoice[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const charges = await repo.listCharges(ctx.db, ctx.account.id, ids);
  const taxes = await repo.listTaxes(ctx.db, ctx.account.id, ids);
  return assemble(ctx, rows, charges, taxes);
}

export async function getRecurringInvoice(
  ctx: ServiceContext,
  recurringInvoiceId: number,
): Promise<RecurringInvoice> {
  const row = await repo.findRecurringInvoice(ctx.db, ctx.account.id, recurringInvoiceId);
  if (!row) throw new NotFoundError('Recurring invoice', recurringInvoiceId);
  return (await withLines(ctx, [row]))[0]!;
}

/** The account's recurring invoices in creation order, or one customer's (404 for a customer it cannot see). */
export async function listRecurringInvoices(
  ctx: ServiceContext,
  page: Page,
  customerId?: number,
): Promise<RecurringInvoice[]> {
  if (customerId !== undefined) await assertCustomerExists(ctx, customerId);
  return withLines(ctx, await repo.listRecurringInvoices(ctx.db, ctx.account.id, page, customerId));
}

/** How many recurring invoices the customer has (a customer with any cannot be deleted). */
export function countRecurringInvoicesOfCustomer(ctx: ServiceContext, customerId: number): Promise<number> {
  return repo.countRecurringInvoicesOfCustomer(ctx.db, ctx.account.id, customerId);
}

/** How many recurring invoices, cancelled ones included, name the payment method (it cannot be deleted then). */
export function countRecurringInvoicesUsingPaymentMethod(
  ctx: ServiceContext,
  paymentMethodId: number,
): Promise<number> {
  return repo.countRecurringInvoicesUsingPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
}

// Checking a request.

interface CheckedTax {
  name: string;
  perc: string;
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

function checkedDate(
  ctx: ServiceContext,
  text: string | null | undefined,
  field: string,
  problems: FieldProblem[],
): PlainDate | null | undefined {
  if (text === undefined || text === null) return text;
  const date = parseWireCalendarDate(text, ctx.account.timeZone);
  if (date === undefined) problems.push({ field, message: 'must be a date' });
  return date;
}

function checkedRecurringCharges(
  input: RecurringChargeInput[],
  at: string,
  problems: FieldProblem[],
): CheckedCharge[] {
  if (input.length === 0) problems.push({ field: at, message: 'must have at least 1 item' });
  // Same meanings as invoice charges (spec): one set of rules.
  return checkedCharges(input, problems, at);
}

function checkedTaxes(input: RecurringTaxInput[], problems: FieldProblem[]): CheckedTax[] {
  return input.map((tax, i) => {
    const name = requiredText(tax.name, `Taxes[${i}].Name`, problems);
    // Spec, Limits: Perc is a fraction between 0 and 1.
    const perc = parseTaxPerc(tax.perc);
    if ('message' in perc) problems.push({ field: `Taxes[${i}].Perc`, message: perc.message });
    return { name, perc: 'perc' in perc ? perc.perc : '0' };
  });
}

/** Each field on its own; the rules between fields are checked on the whole record (checkRecord). */
function checkedFields(
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
  if (input.collectionMethod !== undefined) {
    const method = optionalText(input.collectionMethod)?.toLowerCase() ?? null;
    if (method !== null && !(COLLECTION_METHODS as readonly string[]).includes(method)) {
      problems.push({
        field: 'CollectionMethod',
        message: `must be one of ${COLLECTION_METHODS.join(', ')}`,
      });
    }
    fields.collectionMethod = method;
  }
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
interface RecurringRecord {
  customerId: number;
  currencyCode: string;
  reference: string | null;
  term: number;
  termType: string;
  startDate: PlainDate;
  endDate: PlainDate | null;
  numDaysBeforeToInv: number;
  collectionMethod: string | null;
  gatewayId: number | null;
  customerPaymentMethodId: number | null;
  invoiceTerms: string | null;
  invoiceNotes: string | null;
  charges: CheckedCharge[];
  taxes: CheckedTax[];
}

/** Spec, Invoice (same rules for recurring invoices): gatewayID for debit_order and credit_card. */
const GATEWAY_KINDS = { credit_card: 'credit_card', debit_order: 'bank_account' } as const;

async function collect<T>(problems: FieldProblem[], check: () => Promise<T> | T): Promise<T | undefined> {
  try {
    return await check();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    problems.push(...error.fields);
    return undefined;
  }
}

/**
 * The rules between fields, on the record as it will be stored, and the checks that read other records. On edit,
 * values kept from the stored record are not checked again against the catalogue or the gateways (a client
 * sending back what it read must not be refused because a gateway was disabled since).
 */
async function checkRecord(
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
    const code = await collect(problems, () =>
      assertCurrencyEnabled(ctx, record.currencyCode, 'CurrencyCode'),
    );
    if (code) record.currencyCode = code;
  }
  // Amounts are priced in the currency's minor unit, so only once the currency is known.
  if (!problems.some((p) => p.field === 'CurrencyCode')) {
    // The figures of every invoice it makes must be representable and must not owe the customer money.
    const priced = priceInvoice(
      record.charges,
      record.taxes.map((t) => t.perc),
      record.currencyCode,
    );
    if (Math.abs(priced.totalMinor) > decimalToMinor(MAX_PRICE, record.currencyCode)) {
      problems.push({
        field: chargesField,
        message: `the invoice Total must be at most ${MAX_PRICE} in size`,
      });
    } else if (priced.totalMinor < 0) {
      problems.push({
        field: chargesField,
        message: `the invoice Total must not be negative (it would be ${minorToDecimalText(priced.totalMinor, record.currencyCode)})`,
      });
    }
  }
  const kind = GATEWAY_KINDS[record.collectionMethod as keyof typeof GATEWAY_KINDS] as
    (typeof GATEWAY_KINDS)[keyof typeof GATEWAY_KINDS] | undefined;
  if (kind && record.gatewayId === null) {
    problems.push({
      field: 'gatewayID',
      message: `is required when CollectionMethod is ${record.collectionMethod}`,
    });
  }
  let gateway: Gateway | undefined;
  if (record.gatewayId !== null) {
    const gatewayId = record.gatewayId;
    if (changed('gatewayId'))
      gateway = await collect(problems, () => assertGatewayUsable(ctx, gatewayId, 'gatewayID'));
    if (gateway && kind && !gatewayAccepts(gateway, kind)) {
      problems.push({
        field: 'gatewayID',
        message: `gateway ${gateway.id} does not collect from ${kind === 'credit_card' ? 'credit cards' : 'bank accounts'}`,
      });
    }
    if (record.customerPaymentMethodId === null) {
      problems.push({ field: 'customerPaymentMethodID', message: 'is required when gatewayID is set' });
    }
  }
  const paymentMethodId = record.customerPaymentMethodId;
  if (
    paymentMethodId !== null &&
    (changed('customerPaymentMethodId') || changed('gatewayId') || changed('collectionMethod'))
  ) {
    // A gateway kept as stored is not checked for use again, but the method must still suit it.
    const methodGateway =
      gateway ??
      (record.gatewayId !== null && !changed('gatewayId')
        ? await getGateway(ctx, record.gatewayId)
        : undefined);
    await collect(problems, () =>
      assertPaymentMethodUsable(
        ctx,
        { customerId: record.customerId, paymentMethodId, gateway: methodGateway, kind },
        'customerPaymentMethodID',
      ),
    );
  }
}

async function assertReferenceFree(
  ctx: ServiceContext,
  reference: string,
  recurringInvoiceId?: number,
): Promise<void> {
  const holder = await repo.findRecurringInvoiceIdByReference(ctx.db, ctx.account.id, reference);
  if (holder && holder.id !== recurringInvoiceId) {
    throw new ConflictError(
      'reference_taken',
      `Reference "${reference}" belongs to recurring invoice ${holder.id}`,
    );
  }
}

/** A concurrent request took the Reference between the check and the write (the unique index refused it). */
function referenceConflict(error: unknown, reference: string | null): unknown {
  return isUniqueViolation(error)
    ? new ConflictError('reference_taken', `Reference "${reference}" belongs to another recurring invoice`)
    : error;
}

function lineRows(
  ctx: ServiceContext,
  recurringInvoiceId: number,
  record: Pick<RecurringRecord, 'charges' | 'taxes'>,
) {
  return {
    charges: record.charges.map((charge) => ({
      account_id: ctx.account.id,
      recurring_invoice_id: recurringInvoiceId,
      line: charge.line,
      descrip: charge.descrip,
      qty: charge.qty,
      unit_cost_ex: charge.unitCostEx,
      display_order: charge.displayOrder,
    })),
    taxes: record.taxes.map((tax) => ({
      account_id: ctx.account.id,
      recurring_invoice_id: recurringInvoiceId,
      name: tax.name,
      perc: tax.perc,
    })),
  };
}

function recordColumns(record: RecurringRecord) {
  return {
    currency_code: record.currencyCode,
    reference: record.reference,
    term: record.term,
    term_type: record.termType,
    start_date: record.startDate,
    end_date: record.endDate,
    num_days_before_to_inv: record.numDaysBeforeToInv,
    collection_method: record.collectionMethod,
    gateway_id: record.gatewayId,
    customer_payment_method_id: record.customerPaymentMethodId,
    invoice_terms: record.invoiceTerms,
    invoice_notes: record.invoiceNotes,
  };
}

// Use cases.

/** POST /v1/recurring-invoices. */
export async function createRecurringInvoice(
  ctx: ServiceContext,
  input: RecurringInvoiceInput & { customerId: number; startDate: string },
): Promise<RecurringInvoice> {
  // Our rule for ids in bodies: a customer the account cannot see is a 404, like the same id in a path.
  const customer = await getCustomer(ctx, input.customerId);
  const chargesField = input.chargesField ?? 'RecurInvoiceCharges';
  const problems: FieldProblem[] = [];
  const fields = checkedFields(ctx, input, problems);
  if (!input.charges) problems.push({ field: 'RecurInvoiceCharges', message: 'is required' });
  const record: RecurringRecord = {
    customerId: customer.row.id,
    // Spec: CurrencyCode defaults to the customer's.
    currencyCode: fields.currencyCode ?? customer.row.currency_code,
    reference: fields.reference ?? null,
    // Spec: Term defaults to 1 when unset on add.
    term: fields.term ?? 1,
    termType: fields.termType ?? 'months',
    startDate: fields.startDate ?? '',
    endDate: fields.endDate ?? null,
    numDaysBeforeToInv: fields.numDaysBeforeToInv ?? 0,
    collectionMethod: fields.collectionMethod ?? null,
    gatewayId: fields.gatewayId ?? null,
    customerPaymentMethodId: fields.customerPaymentMethodId ?? null,
    invoiceTerms: fields.invoiceTerms ?? null,
    invoiceNotes: fields.invoiceNotes ?? null,
    charges: fields.charges ?? [],
    taxes: fields.taxes ?? [],
  };
  if (problems.length) throw new ValidationError(problems);
  await checkRecord(ctx, record, () => true, chargesField, problems);
  if (problems.length) throw new ValidationError(problems);
  if (record.reference) await assertReferenceFree(ctx, record.reference);

  const now = ctx.clock.now().toISOString();
  const state = scheduleState({
    startDate: record.startDate,
    endDate: record.endDate,
    term: { count: record.term, unit: record.termType as RecurringSchedule['term']['unit'] },
    numDaysBeforeToInv: record.numDaysBeforeToInv,
    createdOn: today(ctx),
    isCancelled: false,
    periodCount: 0,
    lastRenewDate: null,
    lastInvDate: null,
  });
  let recurringInvoiceId: number;
  try {
    recurringInvoiceId = await ctx.db.transaction().execute(async (trx) => {
      const id = await repo.insertRecurringInvoice(trx, {
        account_id: ctx.account.id,
        customer_id: record.customerId,
        ...recordColumns(record),
        ...stateColumns(state),
        is_cancelled: false,
        created_at: now,
        updated_at: now,
      });
      const lines = lineRows(ctx, id, record);
      await repo.replaceCharges(trx, ctx.account.id, id, lines.charges);
      await repo.replaceTaxes(trx, ctx.account.id, id, lines.taxes);
      return id;
    });
  } catch (error) {
    throw referenceConflict(error, record.reference);
  }
  return getRecurringInvoice(ctx, recurringInvoiceId);
}

/** Reads the row under lock inside the transaction, or not found. */
async function lockOrThrow(ctx: ServiceContext, recurringInvoiceId: number): Promise<RecurringInvoiceRow> {
  const row = await repo.lockRecurringInvoice(ctx.db, ctx.account.id, recurringInvoiceId);
  if (!row) throw new NotFoundError('Recurring invoice', recurringInvoiceId);
  return row;
}

/**
 * PUT /v1/recurring-invoices/{id}: fields left out keep their values, null clears one; RecurInvoiceCharges and
 * Taxes, when sent, replace the lists. The schedule (StartDate, Term, TermType) changes only until the first
 * invoice is made (409 after: the invoices made follow the old schedule; cancel and create a new one).
 */
export async function editRecurringInvoice(
  ctx: ServiceContext,
  recurringInvoiceId: number,
  input: RecurringInvoiceInput,
): Promise<void> {
  const chargesField = input.chargesField ?? 'RecurInvoiceCharges';
  const problems: FieldProblem[] = [];
  const fields = checkedFields(ctx, input, problems);
  let reference: string | null = null;
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const tctx = inTransaction(ctx, trx);
      const row = await lockOrThrow(tctx, recurringInvoiceId);
      if (input.customerId !== undefined && input.customerId !== row.customer_id) {
        problems.push({
          field: 'customerID',
          message: `cannot change (it is ${row.customer_id}); create a recurring invoice for the other customer`,
        });
      }
      // The stored lists count towards the invoice Total when only one of them is replaced.
      const charges =
        fields.charges ??
        (await repo.listCharges(trx, ctx.account.id, [recurringInvoiceId])).map((c) => ({
          descrip: c.descrip,
          qty: c.qty,
          unitCostEx: c.unit_cost_ex,
          line: c.line,
          displayOrder: c.display_order,
        }));
      const taxes =
        fields.taxes ??
        (await repo.listTaxes(trx, ctx.account.id, [recurringInvoiceId])).map((t) => ({
          name: t.name,
          perc: t.perc,
        }));
      const keep = <T>(value: T | undefined, current: T): T => (value === undefined ? current : value);
      const record: RecurringRecord = {
        customerId: row.customer_id,
        currencyCode: keep(fields.currencyCode, row.currency_code),
        reference: keep(fields.reference, row.reference),
        term: keep(fields.term, row.term),
        termType: keep(fields.termType, row.term_type),
        startDate: keep(fields.startDate, row.start_date),
        endDate: keep(fields.endDate, row.end_date),
        numDaysBeforeToInv: keep(fields.numDaysBeforeToInv, row.num_days_before_to_inv),
        collectionMethod: keep(fields.collectionMethod, row.collection_method),
        gatewayId: keep(fields.gatewayId, row.gateway_id),
        customerPaymentMethodId: keep(fields.customerPaymentMethodId, row.customer_payment_method_id),
        invoiceTerms: keep(fields.invoiceTerms, row.invoice_terms),
        invoiceNotes: keep(fields.invoiceNotes, row.invoice_notes),
        charges,
        taxes,
      };
      if (problems.length) throw new ValidationError(problems);
      // Values kept as stored pass even when no longer valid (a currency disabled, a gateway retired since):
      // clients send back whole objects they read.
      const stored: Partial<Record<keyof RecurringRecord, unknown>> = {
        currencyCode: row.currency_code,
        gatewayId: row.gateway_id,
        customerPaymentMethodId: row.customer_payment_method_id,
        collectionMethod: row.collection_method,
      };
      await checkRecord(tctx, record, (key) => record[key] !== stored[key], chargesField, problems);
      if (problems.length) throw new ValidationError(problems);

      const scheduleChanged =
        record.startDate !== row.start_date || record.term !== row.term || record.termType !== row.term_type;
      if (scheduleChanged && (await repo.countPeriods(trx, ctx.account.id, recurringInvoiceId)) > 0) {
        throw new ConflictError(
          'recurring_invoice_schedule_fixed',
          `Recurring invoice ${recurringInvoiceId} has made invoices: StartDate, Term and TermType can no longer change (cancel it and create a new one)`,
        );
      }
      reference = record.reference;
      if (record.reference && record.reference !== row.reference) {
        await assertReferenceFree(tctx, record.reference, recurringInvoiceId);
      }
      const schedule = scheduleOf(row, ctx.account.timeZone);
      const state = scheduleState({
        ...schedule,
        startDate: record.startDate,
        endDate: record.endDate,
        term: { count: record.term, unit: record.termType as RecurringSchedule['term']['unit'] },
        numDaysBeforeToInv: record.numDaysBeforeToInv,
        // A new schedule before the first invoice starts over, as if created so: its periods are counted from
        // the new StartDate (periods skipped by a reactivation belonged to the old one).
        periodCount: scheduleChanged ? 0 : schedule.periodCount,
      });
      await repo.updateRecurringInvoice(trx, ctx.account.id, recurringInvoiceId, {
        ...recordColumns(record),
        ...stateColumns(state),
        updated_at: ctx.clock.now().toISOString(),
      });
      if (fields.charges || fields.taxes) {
        const lines = lineRows(ctx, recurringInvoiceId, record);
        if (fields.charges) await repo.replaceCharges(trx, ctx.account.id, recurringInvoiceId, lines.charges);
        if (fields.taxes) await repo.replaceTaxes(trx, ctx.account.id, recurringInvoiceId, lines.taxes);
      }
    });
  } catch (error) {
    throw referenceConflict(error, reference);
  }
}

/** PUT /v1/recurring-invoices/{id}/cancel: no more invoices (isCancelled, comp_Status Cancelled); 409 if already. */
export async function cancelRecurringInvoice(ctx: ServiceContext, recurringInvoiceId: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const tctx = inTransaction(ctx, trx);
    const row = await lockOrThrow(tctx, recurringInvoiceId);
    if (row.is_cancelled) {
      throw new ConflictError(
        'recurring_invoice_cancelled',
        `Recurring invoice ${recurringInvoiceId} is already cancelled`,
      );
    }
    const now = ctx.clock.now().toISOString();
    await repo.updateRecurringInvoice(trx, ctx.account.id, recurringInvoiceId, {
      is_cancelled: true,
      cancelled_at: now,
      ...stateColumns(scheduleState({ ...scheduleOf(row, ctx.account.timeZone), isCancelled: true })),
      updated_at: now,
    });
  });
}

/**
 * PUT /v1/recurring-invoices/{id}/reactivate: billing resumes with the first period whose invoice is dated today or
 * later; the periods that fell due while it was cancelled are not billed (recurringBilling.ts). 409 unless
 * cancelled.
 */
export async function reactivateRecurringInvoice(
  ctx: ServiceContext,
  recurringInvoiceId: number,
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const tctx = inTransaction(ctx, trx);
    const row = await lockOrThrow(tctx, recurringInvoiceId);
    if (!row.is_cancelled) {
      throw new ConflictError(
        'recurring_invoice_not_cancelled',
        `Recurring invoice ${recurringInvoiceId} is not cancelled`,
      );
    }
    const schedule = { ...scheduleOf(row, ctx.account.timeZone), isCancelled: false };
    const state = scheduleState({ ...schedule, periodCount: periodCountResumingAt(schedule, today(ctx)) });
    await repo.updateRecurringInvoice(trx, ctx.account.id, recurringInvoiceId, {
      is_cancelled: false,
      cancelled_at: null,
      ...stateColumns(state),
      updated_at: ctx.clock.now().toISOString(),
    });
  });
}

/**
 * DELETE /v1/recurring-invoices/{id}: deletes one that never made an invoice. One that did is refused with 409
 * (cancel it instead): its invoices refer to it, and deleting it would lose which periods they billed.
 */
export async function deleteRecurringInvoice(ctx: ServiceContext, recurringInvoiceId: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await lockOrThrow(inTransaction(ctx, trx), recurringInvoiceId);
    if ((await repo.countPeriods(trx, ctx.account.id, recurringInvoiceId)) > 0) {
      throw new ConflictError(
        'recurring_invoice_has_invoices',
        `Recurring invoice ${recurringInvoiceId} has made invoices; cancel it instead`,
      );
    }
    await repo.deleteRecurringInvoice(trx, ctx.account.id, recurringInvoiceId);
  });
}

// The bill run.

/**
 * Makes the invoices due today (the account's today, from ctx.clock) for one recurring invoice, in one
 * transaction: the row is locked, the periods due are planned (recurringBilling.ts), one issued invoice is made
 * per period (Source Auto, the charges and taxes copied), each period is recorded (the unique (recurring invoice,
 * period) makes a second invoice for a period impossible), the schedule advances and the invoice e-mails are
 * queued for customers with autoSendInvoice. Returns the new invoices' ids (none when nothing is due, it is
 * cancelled or parked, or its customer is archived or suspended). At most MAX_PERIODS_PER_PLAN invoices per call:
 * call again while it returns some and listDueRecurringInvoiceIds still lists it.
 * Throws BillingInvariantError on a record the planner refuses (the caller parks it with parkRecurringInvoice).
 */
export async function billRecurringInvoice(
  ctx: ServiceContext,
  recurringInvoiceId: number,
): Promise<number[]> {
  const on = today(ctx);
  const ids = await ctx.db.transaction().execute(async (trx) => {
    const tctx = inTransaction(ctx, trx);
    const row = await lockOrThrow(tctx, recurringInvoiceId);
    if (row.is_cancelled || row.parked_at !== null) return [];
    const customer = await getCustomer(tctx, row.customer_id);
    if (!customer.row.is_active || customer.row.is_suspended) return [];
    const plan = planRecurringInvoices(scheduleOf(row, ctx.account.timeZone), on);
    if (plan.periods.length === 0) return [];

    const charges = await repo.listCharges(trx, ctx.account.id, [recurringInvoiceId]);
    const taxes = await repo.listTaxes(trx, ctx.account.id, [recurringInvoiceId]);
    const invoices: NewInvoice[] = plan.periods.map((period) => ({
      customerId: row.customer_id,
      currencyCode: row.currency_code,
      invoiceDate: period.invoiceDate,
      source: 'Auto',
      isDraft: false,
      collectionMethod: row.collection_method,
      gatewayId: row.gateway_id,
      customerPaymentMethodId: row.customer_payment_method_id,
      // Left unset, the account's default notes and terms apply (spec, Invoice).
      notes: row.invoice_notes ?? undefined,
      terms: row.invoice_terms ?? undefined,
      recurringInvoiceId,
      charges: charges.map((charge) => ({
        descrip: charge.descrip,
        qty: charge.qty,
        unitCostEx: charge.unit_cost_ex,
        line: charge.line,
        displayOrder: charge.display_order,
        periodStart: period.start,
        periodEnd: period.end,
      })),
      taxes: taxes.map((tax) => ({ name: tax.name, perc: tax.perc })),
    }));
    const invoiceIds = await insertInvoices(tctx, invoices);
    await repo.insertPeriods(
      trx,
      plan.periods.map((period, i) => ({
        account_id: ctx.account.id,
        recurring_invoice_id: recurringInvoiceId,
        period_no: period.periodNo,
        period_start: period.start,
        period_end: period.end,
        invoice_id: invoiceIds[i]!,
      })),
    );
    await repo.updateRecurringInvoice(trx, ctx.account.id, recurringInvoiceId, {
      ...stateColumns(plan.next),
      updated_at: ctx.clock.now().toISOString(),
    });
    await queueInvoiceMails(tctx, invoiceIds);
    return invoiceIds;
  });
  if (ids.length) ctx.mailQueued();
  return ids;
}

/**
 * The account's recurring invoices with an invoice due by `today`: not cancelled, not parked, whose customer is
 * active and not suspended; earliest due first.
 */
export function listDueRecurringInvoiceIds(
  ctx: ServiceContext,
  on: PlainDate,
  limit: number,
): Promise<number[]> {
  return repo.listDueRecurringInvoiceIds(ctx.db, ctx.account.id, on, limit);
}

/**
 * Sets a recurring invoice aside from billing with the reason (a record that breaks an invariant), as Kill Bill
 * parks an account rather than bill it wrongly. An edit of its schedule does not unpark it; this is for the
 * operator to look at.
 */
export async function parkRecurringInvoice(
  ctx: ServiceContext,
  recurringInvoiceId: number,
  reason: string,
): Promise<void> {
  const now = ctx.clock.now().toISOString();
  if (
    !(await repo.updateRecurringInvoice(ctx.db, ctx.account.id, recurringInvoiceId, {
      parked_reason: reason,
      parked_at: now,
    }))
  ) {
    throw new NotFoundError('Recurring invoice', recurringInvoiceId);
  }
}

/**
 * Takes a parked recurring invoice back into billing once its record is mended (409 unless parked). Should it still
 * break an invariant, the next bill run parks it again with the reason.
 */
export async function unparkRecurringInvoice(ctx: ServiceContext, recurringInvoiceId: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const tctx = inTransaction(ctx, trx);
    const row = await lockOrThrow(tctx, recurringInvoiceId);
    if (row.parked_at === null) {
      throw new ConflictError('recurring_invoice_not_parked', `Recurring invoice ${row.id} is not parked`);
    }
    await repo.updateRecurringInvoice(trx, ctx.account.id, row.id, { parked_reason: null, parked_at: null });
  });
}
