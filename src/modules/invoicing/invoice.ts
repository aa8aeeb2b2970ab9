/**
 * What an invoice is in this module, and how its stored records become one. Ids are null on an unsaved invoice (a
 * preview priced but not stored).
 */
import type { PlainDate } from '../../core/calendar.ts';
import { invoiceBalances, invoiceStatus, priceInvoice } from './invoiceMath.ts';
import type { InvoiceBalances, InvoiceMoney, InvoiceStatus } from './invoiceMath.ts';
import { heldCollectionReason } from './customerCollection.ts';
import type { Customer, CustomerWithFigures } from '../customers/index.ts';

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
  /** A line of usage read from events: the metric, the group ('' for none) and the quantity it bills. */
  metered: MeteredCharge | null;
  /** The component whose usage the line bills (recorded or read from events); null on other lines. */
  componentId: number | null;
  /**
   * The positions of the invoice's taxes that apply to the line, or null for all of them: a line of a period's part
   * before a change of rate bears only the old rate (docs/tax.md, "Supplies that span a change").
   */
  taxPositions: number[] | null;
}

/** What a line of metered usage counted (docs/usage.md, "Reading usage"). */
export interface MeteredCharge {
  metricCode: string;
  group: string;
  /** Exact decimal: the period's quantity, or on a correction what late events added. */
  quantity: string;
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

/**
 * What credits have taken off the invoice's consideration, taxes included, and the VAT in it: tax credit notes and
 * prepaid credit that carries VAT (docs/tax.md, "The VAT in a reduction"). The ledger's figures.
 */
export interface InvoiceCredited {
  amountMinor: number;
  taxMinor: number;
}

/** What the API shows of an invoice beyond its own rows: money applied to it, and its customer's figures. */
export interface InvoiceApplied {
  paymentsApplied: PaymentApplied[];
  negativeAdjustmentsApplied: NegativeAdjustmentApplied[];
  credited: InvoiceCredited;
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
  metered?: MeteredCharge | null;
  /** The component whose usage the line bills; left out on other lines. */
  componentId?: number | null;
  /** The positions of the invoice's taxes that apply to the line; left out or null: all of them. */
  taxPositions?: readonly number[] | null;
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

/**
 * An invoice as stored, without its lines: what the invoicing repositories return (invoice.mapper.ts maps the row;
 * docs/architecture.md, "Rows stop at the repository"). Money in minor units of currencyCode.
 */
export interface InvoiceRecord extends InvoiceMoney {
  id: number;
  customerId: number;
  invoiceNum: number | null;
  reference: string | null;
  poNumber: string | null;
  currencyCode: string;
  invoiceDate: PlainDate;
  dueDate: PlainDate;
  dateSent: string | null;
  isDraft: boolean;
  isCancelled: boolean;
  cancelledAt: string | null;
  source: string;
  /** Null: the invoice follows its customer's payment settings. */
  collectionMethod: string | null;
  gatewayId: number | null;
  customerPaymentMethodId: number | null;
  /** Why the customer's settings cannot collect it, once told (null: collected, or following them is fine). */
  collectionProblem: string | null;
  numTries: number;
  nextTryDate: string | null;
  notes: string | null;
  terms: string | null;
  subscriptionId: number | null;
  recurringInvoiceId: number | null;
  createdAt: string;
  updatedAt: string;
}

type MoneyField = keyof InvoiceMoney;

/** What the collections read of an invoice: its own collection, its schedule and what it still owes. */
export type CollectableInvoiceRecord = Pick<
  InvoiceRecord,
  | 'id'
  | 'customerId'
  | 'gatewayId'
  | 'customerPaymentMethodId'
  | 'collectionMethod'
  | 'collectionProblem'
  | 'currencyCode'
  | 'numTries'
  | 'nextTryDate'
  | 'dueDate'
  | MoneyField
>;

/** What the ledger reads of an invoice it allocates money to. */
export type AllocatableInvoiceRecord = Pick<
  InvoiceRecord,
  'id' | 'customerId' | 'invoiceNum' | 'currencyCode' | 'invoiceDate' | 'isDraft' | 'isCancelled' | MoneyField
>;

/** An invoice's figures after a change of its money: what its status and events are made from. */
export type InvoiceMoneyFigures = Pick<
  InvoiceRecord,
  MoneyField | 'isDraft' | 'isCancelled' | 'dueDate' | 'nextTryDate'
>;

/** An issued invoice as a customer's statement reads it. */
export type IssuedInvoiceRecord = Pick<
  InvoiceRecord,
  'id' | 'invoiceNum' | 'reference' | 'invoiceDate' | 'dueDate' | MoneyField
>;

/** A tax of a stored invoice, as stored (its total is worked out from the lines: InvoiceTax). */
export type InvoiceTaxRecord = Omit<InvoiceTax, 'id' | 'invoiceId' | 'totalMinor'> & {
  id: number;
  invoiceId: number;
};

/** The money of an invoice (a whole one or a narrower record of it). */
export function moneyOf(record: InvoiceMoney): InvoiceMoney {
  return {
    totalMinor: record.totalMinor,
    paidActualMinor: record.paidActualMinor,
    paidPendingMinor: record.paidPendingMinor,
    negativeAdjsMinor: record.negativeAdjsMinor,
  };
}

/** Each tax's total over the lines, by the pricing rule the lines were stored with. */
function taxesWithTotals(
  charges: readonly InvoiceCharge[],
  taxes: readonly InvoiceTaxRecord[],
  currencyCode: string,
): InvoiceTax[] {
  const priced = priceInvoice(
    charges.map((c) => ({
      qty: c.qty,
      unitCostEx: c.unitCostEx,
      isTaxInclusive: c.isTaxInclusive,
      taxPositions: c.taxPositions,
    })),
    taxes.map((t) => t.perc),
    currencyCode,
  );
  return taxes.map((t, i) => ({
    id: t.id,
    invoiceId: t.invoiceId,
    name: t.name,
    perc: t.perc,
    totalMinor: priced.taxTotalsMinor[i]!,
  }));
}

/** The invoice from its stored record, its customer, its lines and its taxes, as of `on` (its status). */
export function invoiceFromRecord<C extends Customer>(
  record: InvoiceRecord,
  customer: C,
  charges: InvoiceCharge[],
  taxes: InvoiceTaxRecord[],
  on: PlainDate,
): Invoice & { customer: C } {
  const money = moneyOf(record);
  const { isDraft, isCancelled } = record;
  return {
    id: record.id,
    customer,
    invoiceNum: record.invoiceNum,
    reference: record.reference,
    poNumber: record.poNumber,
    currencyCode: record.currencyCode,
    invoiceDate: record.invoiceDate,
    dueDate: record.dueDate,
    dateSent: record.dateSent,
    updatedAt: record.updatedAt,
    isDraft,
    isCancelled,
    source: record.source,
    collectionMethod: record.collectionMethod,
    gatewayId: record.gatewayId,
    customerPaymentMethodId: record.customerPaymentMethodId,
    followsCustomer: record.collectionMethod === null,
    // A debit order left out of its batch says why (docs/gateways.md, "One customer never holds up a batch").
    collectionProblem: heldCollectionReason(record.collectionProblem),
    numTries: record.numTries,
    nextTryDate: record.nextTryDate,
    notes: record.notes,
    terms: record.terms,
    subscriptionId: record.subscriptionId,
    recurringInvoiceId: record.recurringInvoiceId,
    money,
    balances: invoiceBalances(money),
    exTotalMinor: charges.reduce((sum, c) => sum + c.amountExMinor, 0),
    status: invoiceStatus({ ...money, isDraft, isCancelled, dueDate: record.dueDate }, on),
    charges,
    taxes: taxesWithTotals(charges, taxes, record.currencyCode),
  };
}
