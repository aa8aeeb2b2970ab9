/**
 * What an invoice is in this module, and how its rows become one. Ids are null on an unsaved invoice (a preview
 * priced but not stored).
 */
import type { PlainDate } from '../../core/calendar.ts';
import { invoiceBalances, invoiceStatus, priceInvoice } from './invoiceMath.ts';
import type { InvoiceBalances, InvoiceMoney, InvoiceStatus } from './invoiceMath.ts';
import { heldCollectionReason } from './customerCollection.ts';
import type { Customer, CustomerWithFigures } from '../customers/index.ts';
import type { ChargeRow, InvoiceRow, TaxRow } from './invoice.repository.ts';

/** Auto: made by the bill run; App: made through the API (public service notes). */
export type InvoiceSource = 'Auto' | 'App';

export interface InvoiceCharge {
  id: number | null;
  invoiceId: number | null;
  line: number;
  descrip: string;
  /** Exact decimal strings. */
  qty: string;
  /** The unit price as listed: it includes the invoice's taxes when isTaxInclusive (docs/pricing.md). */
  unitCostEx: string;
  isTaxInclusive: boolean;
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

/** A payment's allocation to the invoice (the ledger owns allocations; a read model in src/readModels fills these). */
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
  /**
   * How it is collected: its own, or, when it has none (`followsCustomer`), what its customer's payment settings
   * do with it now once `withEffectiveCollection` has resolved them (docs/gateways.md).
   */
  collectionMethod: string | null;
  gatewayId: number | null;
  customerPaymentMethodId: number | null;
  followsCustomer: boolean;
  /** Why the customer's settings cannot collect it now, resolved with them; null otherwise. */
  collectionProblem: string | null;
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
}

/** What the API shows of an invoice beyond its own rows: money applied to it, and its customer's figures. */
export interface InvoiceApplied {
  paymentsApplied: PaymentApplied[];
  negativeAdjustmentsApplied: NegativeAdjustmentApplied[];
}

export type InvoiceWithFigures = Invoice & InvoiceApplied & { customer: CustomerWithFigures };

/** The internal API's input (bill run, subscriptions, and the POST route once it has checked the request). */
export interface NewInvoiceCharge {
  descrip: string;
  qty: string;
  /** The unit price as listed: it includes the invoice's taxes when isTaxInclusive. */
  unitCostEx: string;
  /** Resolved when the line is made and stored with it; false when left out. */
  isTaxInclusive?: boolean;
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

/** The money columns of an invoice row (a whole one or the ledger's narrower allocation target). */
export function moneyOf(
  row: Pick<InvoiceRow, 'total_minor' | 'paid_actual_minor' | 'paid_pending_minor' | 'negative_adjs_minor'>,
): InvoiceMoney {
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
    charges.map((c) => ({
      qty: c.qty,
      unitCostEx: c.unit_cost_ex,
      isTaxInclusive: Boolean(c.is_tax_inclusive),
    })),
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

export function chargeFromRow(row: ChargeRow): InvoiceCharge {
  return {
    id: row.id,
    invoiceId: row.invoice_id,
    line: row.line,
    descrip: row.descrip,
    qty: row.qty,
    unitCostEx: row.unit_cost_ex,
    isTaxInclusive: Boolean(row.is_tax_inclusive),
    amountExMinor: row.amount_ex_minor,
    amountIncMinor: row.amount_inc_minor,
    displayOrder: row.display_order,
    periodStart: row.period_start,
    periodEnd: row.period_end,
  };
}

export function invoiceFromRow(
  row: InvoiceRow,
  customer: Customer,
  chargeRows: ChargeRow[],
  taxRows: TaxRow[],
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
    followsCustomer: row.collection_method === null,
    // A debit order left out of its batch says why (docs/gateways.md, "One customer never holds up a batch").
    collectionProblem: heldCollectionReason(row.collection_problem),
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
  };
}
