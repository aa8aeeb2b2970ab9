import { inTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { groupBy } from '../../core/collections.ts';
import { addDays, dateAt, parseWireCalendarDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { invoiceBalances, invoiceStatus, priceInvoice } from '../../core/invoiceMath.ts';
import type { InvoiceBalances, InvoiceMoney, InvoiceStatus, PricedInvoice } from '../../core/invoiceMath.ts';
import { MAX_PRICE, decimalToMinor, minorToDecimalText } from '../../core/money.ts';
import type { Page } from '../../core/paging.ts';
import { parseTaxPerc } from '../../core/tax.ts';
import { optionalText, requiredText } from '../../core/text.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../../storage/database.ts';
import { assertCurrencyEnabled } from '../catalogue/index.ts';
import { assertCustomerExists, customersByIds, getCustomer } from '../customers/index.ts';
import type { Customer } from '../customers/index.ts';
import { assertGatewayUsable, gatewayAccepts } from '../gateways/index.ts';
import type { Gateway } from '../gateways/index.ts';
import { assertPaymentMethodUsable } from '../paymentMethods/index.ts';
import { allocationsToTargets } from '../ledger/index.ts';
import type { Allocation } from '../ledger/index.ts';
import { queueMail, queueMails } from '../mail/index.ts';
import type { OutgoingMail } from '../mail/index.ts';
import { isLineAmountWithinBounds, parseWireDecimal } from './decimals.ts';
import * as repo from './invoice.repository.ts';
import type {
  ChargeRow,
  InvoiceChanges,
  InvoiceFilter,
  InvoiceRow,
  NewInvoiceRow,
  TaxRow,
} from './invoice.repository.ts';

/** Spec, Invoice: CollectionMethod is one of these. */
export const COLLECTION_METHODS = ['cash', 'credit_card', 'debit_order', 'eft', 'hpp'] as const;

/** Spec, Invoice: gatewayID is required for these, and the gateway must collect from that kind of method. */
const GATEWAY_KINDS = { credit_card: 'credit_card', debit_order: 'bank_account' } as const;

/** Auto: made by the bill run; App: made through the API (public service notes). */
export type InvoiceSource = 'Auto' | 'App';

/** The attachment kind of invoice e-mails; its renderer is registered by this module (see invoicePdf.ts). */
export const INVOICE_PDF_ATTACHMENT = 'invoice_pdf';

// Domain shapes. Ids are null on an unsaved invoice (a preview priced but not stored).

export interface InvoiceCharge {
  id: number | null;
  invoiceId: number | null;
  line: number;
  descrip: string;
  /** Exact decimal strings. */
  qty: string;
  unitCostEx: string;
  amountExMinor: number;
  amountIncMinor: number;
  displayOrder: number;
  periodStart: PlainDate | null;
  periodEnd: PlainDate | null;
}

export interface InvoiceTax {
  id: number | null;
  invoiceId: number | null;
  name: string;
  /** Exact decimal fraction, e.g. "0.15". */
  perc: string;
  /** This tax summed over the lines (invoiceMath: each line's tax rounded, then summed). */
  totalMinor: number;
}

/** Money allocated to the invoice; filled once payments and adjustments exist (issue 5). */
export interface PaymentApplied {
  allocationId: number;
  invoiceId: number;
  paymentId: number;
  amountMinor: number;
}

/** A negative adjustment's or a credit note's allocation; the id of the kind not used is 0 (as the spec's). */
export interface NegativeAdjustmentApplied {
  allocationId: number;
  invoiceId: number;
  negativeAdjustmentId: number;
  creditNoteId: number;
  amountMinor: number;
}

export interface Invoice {
  id: number | null;
  customer: Customer;
  invoiceNum: number | null;
  reference: string | null;
  poNumber: string | null;
  currencyCode: string;
  invoiceDate: PlainDate;
  dueDate: PlainDate;
  dateSent: string | null;
  updatedAt: string | null;
  isDraft: boolean;
  isCancelled: boolean;
  source: string;
  collectionMethod: string | null;
  gatewayId: number | null;
  customerPaymentMethodId: number | null;
  numTries: number;
  nextTryDate: string | null;
  notes: string | null;
  terms: string | null;
  subscriptionId: number | null;
  recurringInvoiceId: number | null;
  money: InvoiceMoney;
  balances: InvoiceBalances;
  exTotalMinor: number;
  status: InvoiceStatus;
  charges: InvoiceCharge[];
  taxes: InvoiceTax[];
  paymentsApplied: PaymentApplied[];
  negativeAdjustmentsApplied: NegativeAdjustmentApplied[];
}

/** The internal API's input (bill run, subscriptions, and the POST route once it has checked the request). */
export interface NewInvoiceCharge {
  descrip: string;
  qty: string;
  unitCostEx: string;
  periodStart?: string | null;
  periodEnd?: string | null;
  /** Sequential (1, 2, ...) when left out. */
  line?: number;
  displayOrder?: number;
}

export interface NewInvoice {
  customerId: number;
  currencyCode: string;
  /** YYYY-MM-DD; the due date defaults to invoiceDate + account.invoiceDueDays. */
  invoiceDate: string;
  dueDate?: string;
  source: InvoiceSource;
  isDraft: boolean;
  reference?: string | null;
  poNumber?: string | null;
  collectionMethod?: string | null;
  gatewayId?: number | null;
  customerPaymentMethodId?: number | null;
  /** Undefined → the account's defaults. */
  notes?: string | null;
  terms?: string | null;
  subscriptionId?: number | null;
  recurringInvoiceId?: number | null;
  charges: NewInvoiceCharge[];
  taxes: { name: string; perc: string }[];
}

/** A request's invoice fields: undefined leaves a field as it is (edit) or to its default (create). */
export interface InvoiceInput {
  customerId?: number;
  currencyCode?: string;
  /** Any date the wire accepts; null is the same as left out. */
  invoiceDate?: string | null;
  dueDate?: string | null;
  reference?: string | null;
  poNumber?: string | number | null;
  notes?: string | null;
  terms?: string | null;
  isDraft?: boolean;
  collectionMethod?: string | null;
  gatewayId?: number | null;
  customerPaymentMethodId?: number | null;
  charges?: ChargeInput[];
  taxes?: TaxInput[];
}

export interface ChargeInput {
  descrip: string;
  qty: number | string;
  unitCostEx: number | string;
  line?: number | null;
  displayOrder?: number | null;
}

export interface TaxInput {
  name: string;
  perc: number;
}

// Reading.

function today(ctx: ServiceContext): PlainDate {
  return dateAt(ctx.clock.now(), ctx.account.timeZone);
}

function moneyOf(row: InvoiceRow): InvoiceMoney {
  return {
    totalMinor: row.total_minor,
    paidActualMinor: row.paid_actual_minor,
    paidPendingMinor: row.paid_pending_minor,
    negativeAdjsMinor: row.negative_adjs_minor,
  };
}

/** Each tax's total over the lines, by the pricing rule the lines were stored with. */
function taxesWithTotals(
  charges: readonly ChargeRow[],
  taxes: readonly TaxRow[],
  currencyCode: string,
): InvoiceTax[] {
  const priced = priceInvoice(
    charges.map((c) => ({ qty: c.qty, unitCostEx: c.unit_cost_ex })),
    taxes.map((t) => t.perc),
    currencyCode,
  );
  return taxes.map((t, i) => ({
    id: t.id,
    invoiceId: t.invoice_id,
    name: t.name,
    perc: t.perc,
    totalMinor: priced.taxTotalsMinor[i]!,
  }));
}

function chargeFromRow(row: ChargeRow): InvoiceCharge {
  return {
    id: row.id,
    invoiceId: row.invoice_id,
    line: row.line,
    descrip: row.descrip,
    qty: row.qty,
    unitCostEx: row.unit_cost_ex,
    amountExMinor: row.amount_ex_minor,
    amountIncMinor: row.amount_inc_minor,
    displayOrder: row.display_order,
    periodStart: row.period_start,
    periodEnd: row.period_end,
  };
}

function appliedTo(invoiceId: number, allocations: readonly Allocation[]) {
  const paymentsApplied: PaymentApplied[] = [];
  const negativeAdjustmentsApplied: NegativeAdjustmentApplied[] = [];
  for (const a of allocations) {
    if (a.sourceType === 'payment') {
      paymentsApplied.push({
        allocationId: a.id,
        invoiceId,
        paymentId: a.sourceId,
        amountMinor: a.amountMinor,
      });
    } else {
      negativeAdjustmentsApplied.push({
        allocationId: a.id,
        invoiceId,
        negativeAdjustmentId: a.sourceType === 'adjustment' ? a.sourceId : 0,
        creditNoteId: a.sourceType === 'credit_note' ? a.sourceId : 0,
        amountMinor: a.amountMinor,
      });
    }
  }
  return { paymentsApplied, negativeAdjustmentsApplied };
}

function invoiceFromRow(
  row: InvoiceRow,
  customer: Customer,
  chargeRows: ChargeRow[],
  taxRows: TaxRow[],
  allocations: readonly Allocation[],
  on: PlainDate,
): Invoice {
  const money = moneyOf(row);
  const isDraft = Boolean(row.is_draft);
  const isCancelled = Boolean(row.is_cancelled);
  return {
    id: row.id,
    customer,
    invoiceNum: row.invoice_num,
    reference: row.reference,
    poNumber: row.po_number,
    currencyCode: row.currency_code,
    invoiceDate: row.invoice_date,
    dueDate: row.due_date,
    dateSent: row.date_sent,
    updatedAt: row.updated_at,
    isDraft,
    isCancelled,
    source: row.source,
    collectionMethod: row.collection_method,
    gatewayId: row.gateway_id,
    customerPaymentMethodId: row.customer_payment_method_id,
    numTries: row.num_tries,
    nextTryDate: row.next_try_date,
    notes: row.notes,
    terms: row.terms,
    subscriptionId: row.subscription_id,
    recurringInvoiceId: row.recurring_invoice_id,
    money,
    balances: invoiceBalances(money),
    exTotalMinor: chargeRows.reduce((sum, c) => sum + c.amount_ex_minor, 0),
    status: invoiceStatus({ ...money, isDraft, isCancelled, dueDate: row.due_date }, on),
    charges: chargeRows.map(chargeFromRow),
    taxes: taxesWithTotals(chargeRows, taxRows, row.currency_code),
    ...appliedTo(row.id, allocations),
  };
}

/**
 * Invoices with their lines, taxes and customers: a fixed number of statements whatever their number (lines,
 * taxes, customers and the customers' balances, each with one `where ... in`).
 */
async function assembleInvoices(ctx: ServiceContext, rows: InvoiceRow[]): Promise<Invoice[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const charges = groupBy(await repo.listCharges(ctx.db, ctx.account.id, ids), (c) => c.invoice_id);
  const taxes = groupBy(await repo.listTaxes(ctx.db, ctx.account.id, ids), (t) => t.invoice_id);
  const customers = await customersByIds(ctx, [...new Set(rows.map((row) => row.customer_id))]);
  const allocations = await allocationsToTargets(ctx, 'invoice', ids);
  const on = today(ctx);
  return rows.map((row) =>
    invoiceFromRow(
      row,
      customers.get(row.customer_id)!,
      charges.get(row.id) ?? [],
      taxes.get(row.id) ?? [],
      allocations.get(row.id) ?? [],
      on,
    ),
  );
}

async function findInvoiceRow(ctx: ServiceContext, invoiceId: number): Promise<InvoiceRow> {
  const row = await repo.findInvoice(ctx.db, ctx.account.id, invoiceId);
  if (!row) throw new NotFoundError('Invoice', invoiceId);
  return row;
}

export async function getInvoice(ctx: ServiceContext, invoiceId: number): Promise<Invoice> {
  return (await assembleInvoices(ctx, [await findInvoiceRow(ctx, invoiceId)]))[0]!;
}

export interface InvoiceListFilter {
  /** Wire dates (spec: startDate and endDate, inclusive bounds on InvoiceDate). */
  startDate?: string;
  endDate?: string;
}

export async function listInvoices(
  ctx: ServiceContext,
  page: Page,
  filter: InvoiceListFilter = {},
): Promise<Invoice[]> {
  const problems: FieldProblem[] = [];
  const dates: InvoiceFilter = {};
  for (const [field, key, text] of [
    ['startDate', 'from', filter.startDate],
    ['endDate', 'to', filter.endDate],
  ] as const) {
    if (text === undefined) continue;
    const date = parseWireCalendarDate(text, ctx.account.timeZone);
    if (date === undefined) problems.push({ field, message: 'must be a date' });
    else dates[key] = date;
  }
  if (dates.from && dates.to && dates.from > dates.to) {
    problems.push({ field: 'startDate', message: `must not be after endDate (${dates.from} > ${dates.to})` });
  }
  if (problems.length) throw new ValidationError(problems);
  return assembleInvoices(ctx, await repo.listInvoices(ctx.db, ctx.account.id, page, dates));
}

export async function listInvoicesOfCustomer(
  ctx: ServiceContext,
  customerId: number,
  page: Page,
): Promise<Invoice[]> {
  await assertCustomerExists(ctx, customerId);
  return assembleInvoices(ctx, await repo.listInvoices(ctx.db, ctx.account.id, page, { customerId }));
}

/** Each invoice's tax fractions, in the invoice's order of taxes (ids the account cannot see are left out). */
export async function invoiceTaxPercs(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Map<number, string[]>> {
  const rows = await repo.listTaxes(ctx.db, ctx.account.id, [...new Set(invoiceIds)]);
  const percs = new Map<number, string[]>();
  for (const row of rows) percs.set(row.invoice_id, [...(percs.get(row.invoice_id) ?? []), row.perc]);
  return percs;
}

export function countInvoicesOfCustomer(ctx: ServiceContext, customerId: number): Promise<number> {
  return repo.countInvoicesOfCustomer(ctx.db, ctx.account.id, customerId);
}

/** How many invoices, of any status, name the payment method (a payment method in use cannot be deleted). */
export function countInvoicesUsingPaymentMethod(
  ctx: ServiceContext,
  paymentMethodId: number,
): Promise<number> {
  return repo.countInvoicesUsingPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
}

/**
 * The money columns of the customers' issued, not cancelled invoices (drafts owe nothing yet), summed per
 * customer and currency, for the ledger's customer balances. One statement whatever the number of customers.
 */
export function customerInvoiceSums(
  ctx: ServiceContext,
  customerIds: readonly number[],
): Promise<repo.MoneySums[]> {
  return repo.sumIssuedInvoices(ctx.db, ctx.account.id, customerIds);
}

// The ledger's access: invoices as allocation targets (see src/modules/ledger).

export type InvoiceMoneyColumn = repo.InvoiceMoneyColumn;

export interface AllocatableInvoice {
  id: number;
  customerId: number;
  invoiceNum: number | null;
  currencyCode: string;
  invoiceDate: PlainDate;
  /** Balance: what is still open, pending payments taken off. */
  openMinor: number;
  /** Why nothing may be allocated to it; undefined when it can take money. */
  refusal?: string;
}

function allocatableFromRow(row: repo.AllocatableInvoiceRow, customerId: number): AllocatableInvoice {
  const refusal = row.is_draft
    ? 'is a draft'
    : row.is_cancelled
      ? 'is cancelled'
      : row.customer_id !== customerId
        ? 'belongs to another customer'
        : undefined;
  return {
    id: row.id,
    customerId: row.customer_id,
    invoiceNum: row.invoice_num,
    currencyCode: row.currency_code,
    invoiceDate: row.invoice_date,
    openMinor: invoiceBalances({
      totalMinor: row.total_minor,
      paidActualMinor: row.paid_actual_minor,
      paidPendingMinor: row.paid_pending_minor,
      negativeAdjsMinor: row.negative_adjs_minor,
    }).balanceMinor,
    ...(refusal ? { refusal } : {}),
  };
}

/**
 * The account's invoices with these ids or invoice numbers, locked until the transaction ends, as targets for
 * money of `customerId` (another customer's invoice is returned with a refusal, so the message can say why).
 */
export async function lockInvoicesForAllocation(
  ctx: ServiceContext,
  customerId: number,
  ids: readonly number[],
  invoiceNums: readonly number[],
): Promise<AllocatableInvoice[]> {
  const rows = await repo.lockInvoicesByIdOrNum(
    ctx.db,
    ctx.account.id,
    [...new Set(ids)],
    [...new Set(invoiceNums)],
  );
  return rows.map((row) => allocatableFromRow(row, customerId));
}

/** The customer's open invoices in a currency, earliest first (InvoiceDate, then invoiceNum), locked. */
export async function lockOpenInvoices(
  ctx: ServiceContext,
  customerId: number,
  currencyCode: string,
): Promise<AllocatableInvoice[]> {
  const rows = await repo.lockOpenInvoicesOfCustomer(ctx.db, ctx.account.id, customerId, currencyCode);
  return rows.map((row) => allocatableFromRow(row, customerId));
}

/** Adds an allocation change to an invoice's paid figures, in the allocating transaction. */
export async function addToInvoiceMoney(
  ctx: ServiceContext,
  invoiceId: number,
  column: InvoiceMoneyColumn,
  deltaMinor: number,
): Promise<void> {
  await repo.addToInvoiceMoney(
    ctx.db,
    ctx.account.id,
    invoiceId,
    column,
    deltaMinor,
    ctx.clock.now().toISOString(),
  );
}

// Inserting: the one way invoices are made, for the API and the bill run alike.

function chargeRowsOf(
  accountId: number,
  invoiceId: number,
  charges: readonly NewInvoiceCharge[],
  priced: PricedInvoice,
) {
  return charges.map((charge, i) => ({
    account_id: accountId,
    invoice_id: invoiceId,
    line: charge.line ?? i + 1,
    descrip: charge.descrip,
    qty: charge.qty,
    unit_cost_ex: charge.unitCostEx,
    amount_ex_minor: priced.charges[i]!.amountExMinor,
    amount_inc_minor: priced.charges[i]!.amountIncMinor,
    display_order: charge.displayOrder ?? i + 1,
    period_start: charge.periodStart ?? null,
    period_end: charge.periodEnd ?? null,
  }));
}

function priceNewInvoice(invoice: NewInvoice): PricedInvoice {
  return priceInvoice(
    invoice.charges,
    invoice.taxes.map((t) => t.perc),
    invoice.currencyCode,
  );
}

/**
 * Inserts invoices in the caller's transaction (ctx.db is the open transaction); numbers the non-drafts; returns
 * their ids in input order. No validation beyond what the database enforces: callers pass checked data.
 * A handful of statements per call whatever the number of invoices: one to take the numbers, then multi-row
 * inserts of invoices, lines and taxes.
 */
export async function insertInvoices(ctx: ServiceContext, invoices: NewInvoice[]): Promise<number[]> {
  if (invoices.length === 0) return [];
  const accountId = ctx.account.id;
  const now = ctx.clock.now().toISOString();
  const issued = invoices.filter((invoice) => !invoice.isDraft).length;
  // Spec, Invoice: invoiceNum is account-unique and sequential; drafts get theirs when finalized.
  let nextNum = issued > 0 ? (await repo.takeInvoiceNumbers(ctx.db, accountId, issued)) - issued + 1 : 0;
  const priced = invoices.map(priceNewInvoice);
  const rows: NewInvoiceRow[] = invoices.map((invoice, i) => ({
    account_id: accountId,
    customer_id: invoice.customerId,
    invoice_num: invoice.isDraft ? null : nextNum++,
    reference: invoice.reference ?? null,
    po_number: invoice.poNumber ?? null,
    currency_code: invoice.currencyCode,
    invoice_date: invoice.invoiceDate,
    due_date: invoice.dueDate ?? addDays(invoice.invoiceDate, ctx.account.invoiceDueDays),
    is_draft: invoice.isDraft,
    is_cancelled: false,
    source: invoice.source,
    collection_method: invoice.collectionMethod ?? null,
    gateway_id: invoice.gatewayId ?? null,
    customer_payment_method_id: invoice.customerPaymentMethodId ?? null,
    // Spec, Invoice: the default note and terms apply when unset on add.
    notes: invoice.notes === undefined ? ctx.account.invoiceNotes : invoice.notes,
    terms: invoice.terms === undefined ? ctx.account.invoiceTerms : invoice.terms,
    total_minor: priced[i]!.totalMinor,
    subscription_id: invoice.subscriptionId ?? null,
    recurring_invoice_id: invoice.recurringInvoiceId ?? null,
    created_at: now,
    updated_at: now,
  }));
  const ids = await repo.insertInvoiceRows(ctx.db, rows);
  await repo.insertChargeRows(
    ctx.db,
    invoices.flatMap((invoice, i) => chargeRowsOf(accountId, ids[i]!, invoice.charges, priced[i]!)),
  );
  await repo.insertTaxRows(
    ctx.db,
    invoices.flatMap((invoice, i) =>
      invoice.taxes.map((tax) => ({
        account_id: accountId,
        invoice_id: ids[i]!,
        name: tax.name,
        perc: tax.perc,
      })),
    ),
  );
  return ids;
}

/**
 * An unsaved invoice, priced as insertInvoices would store it, with null ids (a subscription's upcoming invoice).
 * Render it with toInvoiceDto and UnsavedInvoiceOut.
 */
export async function previewInvoice(ctx: ServiceContext, invoice: NewInvoice): Promise<Invoice> {
  const customer = await getCustomer(ctx, invoice.customerId);
  const priced = priceNewInvoice(invoice);
  const money: InvoiceMoney = {
    totalMinor: priced.totalMinor,
    paidActualMinor: 0,
    paidPendingMinor: 0,
    negativeAdjsMinor: 0,
  };
  const dueDate = invoice.dueDate ?? addDays(invoice.invoiceDate, ctx.account.invoiceDueDays);
  const charges = chargeRowsOf(ctx.account.id, 0, invoice.charges, priced).map((row) => ({
    ...chargeFromRow({ ...row, id: 0 }),
    id: null,
    invoiceId: null,
  }));
  return {
    id: null,
    customer,
    invoiceNum: null,
    reference: invoice.reference ?? null,
    poNumber: invoice.poNumber ?? null,
    currencyCode: invoice.currencyCode,
    invoiceDate: invoice.invoiceDate,
    dueDate,
    dateSent: null,
    updatedAt: null,
    isDraft: invoice.isDraft,
    isCancelled: false,
    source: invoice.source,
    collectionMethod: invoice.collectionMethod ?? null,
    gatewayId: invoice.gatewayId ?? null,
    customerPaymentMethodId: invoice.customerPaymentMethodId ?? null,
    numTries: 0,
    nextTryDate: null,
    notes: invoice.notes === undefined ? ctx.account.invoiceNotes : invoice.notes,
    terms: invoice.terms === undefined ? ctx.account.invoiceTerms : invoice.terms,
    subscriptionId: invoice.subscriptionId ?? null,
    recurringInvoiceId: invoice.recurringInvoiceId ?? null,
    money,
    balances: invoiceBalances(money),
    exTotalMinor: priced.exTotalMinor,
    status: invoiceStatus({ ...money, isDraft: invoice.isDraft, isCancelled: false, dueDate }, today(ctx)),
    charges,
    taxes: invoice.taxes.map((tax, i) => ({
      id: null,
      invoiceId: null,
      name: tax.name,
      perc: tax.perc,
      totalMinor: priced.taxTotalsMinor[i]!,
    })),
    paymentsApplied: [],
    negativeAdjustmentsApplied: [],
  };
}

// Checking a request.

/** What a request decides about an invoice once checked, before it is stored. */
interface CheckedInvoice {
  customer: Customer;
  currencyCode: string;
  invoiceDate: PlainDate;
  dueDate: PlainDate;
  reference: string | null;
  poNumber: string | null;
  notes: string | null | undefined;
  terms: string | null | undefined;
  collectionMethod: string | null;
  gatewayId: number | null;
  customerPaymentMethodId: number | null;
  charges: NewInvoiceCharge[];
  taxes: { name: string; perc: string }[];
}

/** A charge line checked as a request gives it, with Line and DisplayOrder settled. */
export interface CheckedCharge extends NewInvoiceCharge {
  line: number;
  displayOrder: number;
}

/** The charge rules of invoices, shared by recurring invoices; problems are named `${path}[i].Field`. */
export function checkedCharges(
  input: readonly ChargeInput[],
  problems: FieldProblem[],
  path = 'Charges',
): CheckedCharge[] {
  return input.map((charge, i) => {
    const at = `${path}[${i}]`;
    const descrip = requiredText(charge.descrip, `${at}.Descrip`, problems);
    const qty = parseWireDecimal(charge.qty, { positive: true });
    const unitCostEx = parseWireDecimal(charge.unitCostEx, { positive: false });
    if ('message' in qty) problems.push({ field: `${at}.Qty`, message: qty.message });
    if ('message' in unitCostEx) problems.push({ field: `${at}.UnitCostEx`, message: unitCostEx.message });
    if ('value' in qty && 'value' in unitCostEx && !isLineAmountWithinBounds(qty.value, unitCostEx.value)) {
      problems.push({
        field: `${at}.UnitCostEx`,
        message: `Qty × UnitCostEx must be at most ${MAX_PRICE} in size`,
      });
    }
    return {
      descrip,
      qty: 'value' in qty ? qty.value : '1',
      unitCostEx: 'value' in unitCostEx ? unitCostEx.value : '0',
      // Spec, Invoice: DisplayOrder is a sequential display position; Line and DisplayOrder follow the list's
      // order when a request leaves them out.
      line: charge.line ?? i + 1,
      displayOrder: charge.displayOrder ?? i + 1,
    };
  });
}

function checkedTaxes(
  input: readonly TaxInput[],
  problems: FieldProblem[],
): { name: string; perc: string }[] {
  return input.map((tax, i) => {
    const name = requiredText(tax.name, `Taxes[${i}].Name`, problems);
    // Spec, Limits: Perc is a fraction between 0 and 1.
    const perc = parseTaxPerc(tax.perc);
    if ('message' in perc) problems.push({ field: `Taxes[${i}].Perc`, message: perc.message });
    return { name, perc: 'perc' in perc ? perc.perc : '0' };
  });
}

function checkedDate(
  text: string | null | undefined,
  field: string,
  ctx: ServiceContext,
  problems: FieldProblem[],
) {
  if (text === undefined || text === null) return undefined;
  const date = parseWireCalendarDate(text, ctx.account.timeZone);
  if (date === undefined) problems.push({ field, message: 'must be a date' });
  return date;
}

function checkedCollectionMethod(value: string | null, problems: FieldProblem[]): string | null {
  const method = optionalText(value)?.toLowerCase() ?? null;
  if (method !== null && !(COLLECTION_METHODS as readonly string[]).includes(method)) {
    problems.push({ field: 'CollectionMethod', message: `must be one of ${COLLECTION_METHODS.join(', ')}` });
  }
  return method;
}

/** Pricing refusals: the invoice's figures must be representable and not owe the customer money. */
function checkTotals(
  invoice: Pick<CheckedInvoice, 'charges' | 'taxes' | 'currencyCode'>,
  problems: FieldProblem[],
) {
  const priced = priceInvoice(
    invoice.charges,
    invoice.taxes.map((t) => t.perc),
    invoice.currencyCode,
  );
  const limit = decimalToMinor(MAX_PRICE, invoice.currencyCode);
  if (Math.abs(priced.totalMinor) > limit) {
    problems.push({ field: 'Charges', message: `the invoice Total must be at most ${MAX_PRICE} in size` });
  } else if (priced.totalMinor < 0) {
    // Our rule: an invoice does not owe the customer money; a credit is a credit note or an adjustment.
    problems.push({
      field: 'Charges',
      message: `the invoice Total must not be negative (it would be ${minorToDecimalText(priced.totalMinor, invoice.currencyCode)})`,
    });
  }
}

/** Spec, Invoice: gatewayID is required for debit_order and credit_card; customerPaymentMethodID with gatewayID. */
async function checkCollection(
  ctx: ServiceContext,
  invoice: Pick<CheckedInvoice, 'collectionMethod' | 'gatewayId' | 'customerPaymentMethodId' | 'customer'>,
  problems: FieldProblem[],
): Promise<void> {
  const kind = GATEWAY_KINDS[invoice.collectionMethod as keyof typeof GATEWAY_KINDS] as
    (typeof GATEWAY_KINDS)[keyof typeof GATEWAY_KINDS] | undefined;
  if (kind && invoice.gatewayId === null) {
    problems.push({
      field: 'gatewayID',
      message: `is required when CollectionMethod is ${invoice.collectionMethod}`,
    });
  }
  let gateway: Gateway | undefined;
  if (invoice.gatewayId !== null) {
    try {
      gateway = await assertGatewayUsable(ctx, invoice.gatewayId, 'gatewayID');
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      problems.push(...error.fields);
    }
    if (gateway && kind && !gatewayAccepts(gateway, kind)) {
      problems.push({
        field: 'gatewayID',
        message: `gateway ${gateway.id} does not collect from ${kind === 'credit_card' ? 'credit cards' : 'bank accounts'}`,
      });
    }
    if (invoice.customerPaymentMethodId === null) {
      problems.push({ field: 'customerPaymentMethodID', message: 'is required when gatewayID is set' });
    }
  }
  if (invoice.customerPaymentMethodId !== null) {
    try {
      await assertPaymentMethodUsable(
        ctx,
        {
          customerId: invoice.customer.row.id,
          paymentMethodId: invoice.customerPaymentMethodId,
          gateway,
          kind,
        },
        'customerPaymentMethodID',
      );
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      problems.push(...error.fields);
    }
  }
}

async function assertReferenceFree(
  ctx: ServiceContext,
  reference: string,
  invoiceId?: number,
): Promise<void> {
  const holder = await repo.findInvoiceIdByReference(ctx.db, ctx.account.id, reference);
  if (holder && holder.id !== invoiceId) {
    throw new ConflictError('reference_taken', `Reference "${reference}" belongs to invoice ${holder.id}`);
  }
}

/** Unique and foreign-key refusals of a write, as the conflicts they mean. */
function writeConflict(error: unknown, reference: string | null): unknown {
  if (isUniqueViolation(error)) {
    return new ConflictError('reference_taken', `Reference "${reference}" belongs to another invoice`);
  }
  if (isForeignKeyViolation(error)) {
    return new ConflictError(
      'concurrent_change',
      'The customer, currency or gateway was removed while the invoice was being written; nothing was changed',
    );
  }
  return error;
}

/**
 * Checks a whole invoice as it will be stored: `current` is the stored one on edit (fields left out keep its
 * values), undefined on create (fields left out take their defaults). Every problem is reported at once.
 */
async function checkedInvoice(
  ctx: ServiceContext,
  input: InvoiceInput,
  customer: Customer,
  current?: { row: InvoiceRow; charges: NewInvoiceCharge[]; taxes: { name: string; perc: string }[] },
): Promise<CheckedInvoice> {
  const problems: FieldProblem[] = [];
  const row = current?.row;
  const currencyCode =
    input.currencyCode?.trim().toUpperCase() ?? row?.currency_code ?? customer.row.currency_code;
  const invoiceDate =
    checkedDate(input.invoiceDate, 'InvoiceDate', ctx, problems) ?? row?.invoice_date ?? today(ctx);
  const dueDate =
    checkedDate(input.dueDate, 'DueDate', ctx, problems) ??
    row?.due_date ??
    addDays(invoiceDate, ctx.account.invoiceDueDays);
  if (dueDate < invoiceDate) {
    problems.push({
      field: 'DueDate',
      message: `must not be before InvoiceDate (${dueDate} < ${invoiceDate})`,
    });
  }
  const poNumber =
    input.poNumber === undefined
      ? (row?.po_number ?? null)
      : typeof input.poNumber === 'number'
        ? String(input.poNumber)
        : (optionalText(input.poNumber) ?? null);
  const keep = <T>(value: T | undefined, stored: T): T => (value === undefined ? stored : value);
  const checked: CheckedInvoice = {
    customer,
    currencyCode,
    invoiceDate,
    dueDate,
    reference: keep(optionalText(input.reference), row?.reference ?? null),
    poNumber,
    // On create, left out or blank means the account's default (insertInvoices applies it).
    notes: row ? keep(optionalText(input.notes), row.notes) : (optionalText(input.notes) ?? undefined),
    terms: row ? keep(optionalText(input.terms), row.terms) : (optionalText(input.terms) ?? undefined),
    collectionMethod:
      input.collectionMethod === undefined
        ? (row?.collection_method ?? null)
        : checkedCollectionMethod(input.collectionMethod, problems),
    gatewayId: keep(input.gatewayId, row?.gateway_id ?? null),
    customerPaymentMethodId: keep(input.customerPaymentMethodId, row?.customer_payment_method_id ?? null),
    charges: input.charges ? checkedCharges(input.charges, problems) : (current?.charges ?? []),
    taxes: input.taxes ? checkedTaxes(input.taxes, problems) : (current?.taxes ?? []),
  };
  let currencyKnown = true;
  if (input.currencyCode !== undefined || !row) {
    try {
      checked.currencyCode = await assertCurrencyEnabled(ctx, currencyCode, 'CurrencyCode');
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      problems.push(...error.fields);
      currencyKnown = false;
    }
  }
  // Totals need good lines and a known currency (its minor unit).
  if (problems.length === 0 && currencyKnown) checkTotals(checked, problems);
  await checkCollection(ctx, checked, problems);
  if (problems.length) throw new ValidationError(problems);
  return checked;
}

function newInvoiceOf(checked: CheckedInvoice, isDraft: boolean): NewInvoice {
  return {
    customerId: checked.customer.row.id,
    currencyCode: checked.currencyCode,
    invoiceDate: checked.invoiceDate,
    dueDate: checked.dueDate,
    source: 'App',
    isDraft,
    reference: checked.reference,
    poNumber: checked.poNumber,
    collectionMethod: checked.collectionMethod,
    gatewayId: checked.gatewayId,
    customerPaymentMethodId: checked.customerPaymentMethodId,
    notes: checked.notes,
    terms: checked.terms,
    charges: checked.charges,
    taxes: checked.taxes,
  };
}

// Use cases.

/**
 * POST /v1/invoices. Our rule: an invoice posted is issued (numbered, due) unless the request asks for a draft
 * with isDraft true, as an invoice made by hand is usually meant to be sent.
 */
export async function createInvoice(
  ctx: ServiceContext,
  input: InvoiceInput & { customerId: number },
): Promise<Invoice> {
  const customer = await getCustomer(ctx, input.customerId);
  const checked = await checkedInvoice(ctx, input, customer);
  if (checked.reference) await assertReferenceFree(ctx, checked.reference);
  let invoiceId: number;
  try {
    invoiceId = await ctx.db.transaction().execute(async (trx) => {
      const [id] = await insertInvoices(inTransaction(ctx, trx), [
        newInvoiceOf(checked, input.isDraft ?? false),
      ]);
      return id!;
    });
  } catch (error) {
    throw writeConflict(error, checked.reference);
  }
  return getInvoice(ctx, invoiceId);
}

function notDraft(row: InvoiceRow): ConflictError {
  return new ConflictError(
    'invoice_not_draft',
    `Invoice ${row.id} is ${row.is_cancelled ? 'cancelled' : 'issued'}; only drafts can be changed`,
  );
}

/**
 * PUT /v1/invoices/{id} (public service notes: drafts only are editable). Fields left out keep their values;
 * Charges and Taxes, when sent, replace the lists. isDraft false issues the draft, as finalize does.
 */
export async function editInvoice(
  ctx: ServiceContext,
  invoiceId: number,
  input: InvoiceInput,
): Promise<void> {
  const row = await findInvoiceRow(ctx, invoiceId);
  if (!row.is_draft) throw notDraft(row);
  const customer =
    input.customerId !== undefined && input.customerId !== row.customer_id
      ? await getCustomer(ctx, input.customerId)
      : await getCustomer(ctx, row.customer_id);
  const storedCharges = await repo.listCharges(ctx.db, ctx.account.id, [invoiceId]);
  const storedTaxes = await repo.listTaxes(ctx.db, ctx.account.id, [invoiceId]);
  const checked = await checkedInvoice(ctx, input, customer, {
    row,
    charges: storedCharges.map((c) => ({
      descrip: c.descrip,
      qty: c.qty,
      unitCostEx: c.unit_cost_ex,
      line: c.line,
      displayOrder: c.display_order,
      periodStart: c.period_start,
      periodEnd: c.period_end,
    })),
    taxes: storedTaxes.map((t) => ({ name: t.name, perc: t.perc })),
  });
  if (checked.reference && checked.reference !== row.reference) {
    await assertReferenceFree(ctx, checked.reference, invoiceId);
  }
  // Lines are priced in the invoice's currency, so a new currency reprices them as well.
  const relines =
    input.charges !== undefined || input.taxes !== undefined || checked.currencyCode !== row.currency_code;
  const priced = priceNewInvoice(newInvoiceOf(checked, true));
  const now = ctx.clock.now().toISOString();
  const issue = input.isDraft === false;
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const changes: InvoiceChanges = {
        customer_id: checked.customer.row.id,
        currency_code: checked.currencyCode,
        invoice_date: checked.invoiceDate,
        due_date: checked.dueDate,
        reference: checked.reference,
        po_number: checked.poNumber,
        notes: checked.notes ?? null,
        terms: checked.terms ?? null,
        collection_method: checked.collectionMethod,
        gateway_id: checked.gatewayId,
        customer_payment_method_id: checked.customerPaymentMethodId,
        total_minor: priced.totalMinor,
        updated_at: now,
      };
      if (issue) {
        changes.is_draft = false;
        changes.invoice_num = await repo.takeInvoiceNumbers(trx, ctx.account.id, 1);
      }
      // Issued or deleted by a concurrent request since it was read.
      if (!(await repo.updateDraft(trx, ctx.account.id, invoiceId, changes)))
        throw notDraft({ ...row, is_draft: false });
      if (relines) {
        await repo.deleteLinesOf(trx, ctx.account.id, invoiceId);
        await repo.insertChargeRows(trx, chargeRowsOf(ctx.account.id, invoiceId, checked.charges, priced));
        await repo.insertTaxRows(
          trx,
          checked.taxes.map((tax) => ({
            account_id: ctx.account.id,
            invoice_id: invoiceId,
            name: tax.name,
            perc: tax.perc,
          })),
        );
      }
    });
  } catch (error) {
    throw writeConflict(error, checked.reference);
  }
}

/** PUT /v1/invoices/{id}/finalize: a draft becomes an issued invoice and takes the next invoice number. */
export async function finalizeInvoice(ctx: ServiceContext, invoiceId: number): Promise<void> {
  const row = await findInvoiceRow(ctx, invoiceId);
  if (!row.is_draft) throw notDraft(row);
  await ctx.db.transaction().execute(async (trx) => {
    const invoiceNum = await repo.takeInvoiceNumbers(trx, ctx.account.id, 1);
    const issued = await repo.updateDraft(trx, ctx.account.id, invoiceId, {
      is_draft: false,
      invoice_num: invoiceNum,
      updated_at: ctx.clock.now().toISOString(),
    });
    // Finalized or deleted concurrently: throwing rolls the number back.
    if (!issued) throw notDraft({ ...row, is_draft: false });
  });
}

/**
 * DELETE /v1/invoices/{id} (public service notes): deletes a draft; cancels an issued invoice. An invoice that
 * money is allocated to cannot be cancelled (remove the allocations first), and a cancelled one stays cancelled.
 */
export async function deleteInvoice(ctx: ServiceContext, invoiceId: number): Promise<void> {
  const row = await findInvoiceRow(ctx, invoiceId);
  if (row.is_draft) {
    try {
      if (await repo.deleteDraft(ctx.db, ctx.account.id, invoiceId)) return;
    } catch (error) {
      if (!isForeignKeyViolation(error)) throw error;
      throw new ConflictError(
        'invoice_in_use',
        `Draft ${invoiceId} is a billed period of a subscription or recurring invoice and cannot be deleted`,
      );
    }
    throw new ConflictError(
      'concurrent_change',
      `Invoice ${invoiceId} was finalized or deleted meanwhile; nothing was changed`,
    );
  }
  if (row.is_cancelled)
    throw new ConflictError('invoice_cancelled', `Invoice ${invoiceId} is already cancelled`);
  if (await repo.cancelIssuedInvoice(ctx.db, ctx.account.id, invoiceId, ctx.clock.now().toISOString()))
    return;
  const after = await findInvoiceRow(ctx, invoiceId);
  if (after.is_cancelled)
    throw new ConflictError('invoice_cancelled', `Invoice ${invoiceId} is already cancelled`);
  throw new ConflictError(
    'invoice_has_allocations',
    `Invoice ${invoiceId} has payments or adjustments allocated to it; remove them before cancelling it`,
  );
}

// E-mail.

interface MailFacts {
  accountName: string;
  customerName: string;
  invoiceNum: number | null;
  currencyCode: string;
  totalMinor: number;
  invoiceDate: PlainDate;
  dueDate: PlainDate;
}

/** The message text; the figures shown do not change once an invoice is issued, the PDF carries the balance. */
function invoiceMailText(facts: MailFacts): { subject: string; text: string } {
  const total = `${facts.currencyCode} ${minorToDecimalText(facts.totalMinor, facts.currencyCode)}`;
  return {
    subject: `Invoice ${facts.invoiceNum} from ${facts.accountName}`,
    text: [
      `Dear ${facts.customerName},`,
      '',
      `Please find attached invoice ${facts.invoiceNum} of ${facts.invoiceDate} for ${total}, due on ${facts.dueDate}.`,
      '',
      facts.accountName,
    ].join('\n'),
  };
}

function invoiceMail(ctx: ServiceContext, customer: Customer, row: InvoiceRow): OutgoingMail {
  const customerName = [customer.row.name, customer.row.last_name].filter(Boolean).join(' ');
  return {
    to: customer.row.email!,
    cc: customer.row.email_cc,
    ...invoiceMailText({
      accountName: ctx.account.name,
      customerName,
      invoiceNum: row.invoice_num,
      currencyCode: row.currency_code,
      totalMinor: row.total_minor,
      invoiceDate: row.invoice_date,
      dueDate: row.due_date,
    }),
    attachment: { kind: INVOICE_PDF_ATTACHMENT, ref: String(row.id) },
  };
}

/**
 * PUT /v1/invoices/{id}/send: queues the invoice e-mail (with its PDF) to the customer's Email, copied to EmailCC,
 * and sets DateSent. A draft is not sent (it has no number yet), nor a cancelled invoice.
 */
export async function sendInvoice(ctx: ServiceContext, invoiceId: number): Promise<void> {
  const row = await findInvoiceRow(ctx, invoiceId);
  if (row.is_draft)
    throw new ConflictError('invoice_draft', `Invoice ${invoiceId} is a draft; finalize it first`);
  if (row.is_cancelled) throw new ConflictError('invoice_cancelled', `Invoice ${invoiceId} is cancelled`);
  const customer = await getCustomer(ctx, row.customer_id);
  if (!customer.row.email) {
    throw ValidationError.field(
      'Customer.Email',
      `customer ${customer.row.id} has no e-mail address to send the invoice to`,
      'customer_without_email',
    );
  }
  await ctx.db.transaction().execute(async (trx) => {
    await queueMail(trx, ctx, ctx.account.id, invoiceMail(ctx, customer, row));
    await repo.markInvoicesSent(trx, ctx.account.id, [invoiceId], ctx.clock.now().toISOString());
  });
  ctx.mailQueued();
}

/** Ids per statement when reading a bill run's invoices back. */
const MAIL_CHUNK = 1000;

/**
 * Queues the invoice e-mails (with PDF) for invoices whose customer has autoSendInvoice and an e-mail; call inside
 * the transaction that made them, and ctx.mailQueued() after it commits. Sets their DateSent. The PDFs are
 * rendered by the mail worker when it delivers each message, not here: a bill run stays a few statements per
 * thousand invoices.
 */
export async function queueInvoiceMails(ctx: ServiceContext, invoiceIds: number[]): Promise<void> {
  for (let at = 0; at < invoiceIds.length; at += MAIL_CHUNK) {
    const rows = (
      await repo.findInvoices(ctx.db, ctx.account.id, invoiceIds.slice(at, at + MAIL_CHUNK))
    ).filter((row) => !row.is_draft && !row.is_cancelled);
    const customers = await customersByIds(ctx, [...new Set(rows.map((row) => row.customer_id))]);
    const mails = rows.flatMap((row) => {
      const customer = customers.get(row.customer_id);
      return customer?.row.auto_send_invoice && customer.row.email
        ? [{ row, mail: invoiceMail(ctx, customer, row) }]
        : [];
    });
    if (mails.length === 0) continue;
    await queueMails(
      ctx.db,
      ctx,
      mails.map(({ mail }) => ({ accountId: ctx.account.id, mail })),
    );
    await repo.markInvoicesSent(
      ctx.db,
      ctx.account.id,
      mails.map(({ row }) => row.id),
      ctx.clock.now().toISOString(),
    );
  }
}
