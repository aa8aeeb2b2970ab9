import type { Selectable } from 'kysely';
import type { InvoiceMoney } from './invoiceMath.ts';
import type {
  AllocatableInvoiceRecord,
  CollectableInvoiceRecord,
  InvoiceCharge,
  InvoiceMoneyFigures,
  InvoiceRecord,
  InvoiceTaxRecord,
  IssuedInvoiceRecord,
} from './invoice.ts';
import type { InvoiceChargesTable, InvoicesTable, InvoiceTaxesTable } from './tables.ts';

// The one mapping between the invoices' rows and their records, used by the invoicing repositories
// (docs/architecture.md, "Rows stop at the repository"). SQLite reads booleans as 0/1: Boolean() reads either.

type InvoiceRow = Selectable<InvoicesTable>;
type MoneyColumns = Pick<
  InvoiceRow,
  'total_minor' | 'paid_actual_minor' | 'paid_pending_minor' | 'negative_adjs_minor'
>;

function moneyFromRow(row: MoneyColumns): InvoiceMoney {
  return {
    totalMinor: row.total_minor,
    paidActualMinor: row.paid_actual_minor,
    paidPendingMinor: row.paid_pending_minor,
    negativeAdjsMinor: row.negative_adjs_minor,
  };
}

export function invoiceRecordFromRow(row: InvoiceRow): InvoiceRecord {
  return {
    id: row.id,
    customerId: row.customer_id,
    invoiceNum: row.invoice_num,
    reference: row.reference,
    poNumber: row.po_number,
    currencyCode: row.currency_code,
    invoiceDate: row.invoice_date,
    dueDate: row.due_date,
    dateSent: row.date_sent,
    isDraft: Boolean(row.is_draft),
    isCancelled: Boolean(row.is_cancelled),
    cancelledAt: row.cancelled_at,
    source: row.source,
    collectionMethod: row.collection_method,
    gatewayId: row.gateway_id,
    customerPaymentMethodId: row.customer_payment_method_id,
    collectionProblem: row.collection_problem,
    numTries: row.num_tries,
    nextTryDate: row.next_try_date,
    notes: row.notes,
    terms: row.terms,
    ...moneyFromRow(row),
    subscriptionId: row.subscription_id,
    recurringInvoiceId: row.recurring_invoice_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

type CollectableInvoiceRow = Pick<
  InvoiceRow,
  | 'id'
  | 'customer_id'
  | 'gateway_id'
  | 'customer_payment_method_id'
  | 'collection_method'
  | 'collection_problem'
  | 'currency_code'
  | 'num_tries'
  | 'next_try_date'
  | 'due_date'
  | keyof MoneyColumns
>;

export function collectableInvoiceFromRow(row: CollectableInvoiceRow): CollectableInvoiceRecord {
  return {
    id: row.id,
    customerId: row.customer_id,
    gatewayId: row.gateway_id,
    customerPaymentMethodId: row.customer_payment_method_id,
    collectionMethod: row.collection_method,
    collectionProblem: row.collection_problem,
    currencyCode: row.currency_code,
    numTries: row.num_tries,
    nextTryDate: row.next_try_date,
    dueDate: row.due_date,
    ...moneyFromRow(row),
  };
}

type AllocatableInvoiceRow = Pick<
  InvoiceRow,
  | 'id'
  | 'customer_id'
  | 'invoice_num'
  | 'currency_code'
  | 'invoice_date'
  | 'is_draft'
  | 'is_cancelled'
  | keyof MoneyColumns
>;

export function allocatableInvoiceFromRow(row: AllocatableInvoiceRow): AllocatableInvoiceRecord {
  return {
    id: row.id,
    customerId: row.customer_id,
    invoiceNum: row.invoice_num,
    currencyCode: row.currency_code,
    invoiceDate: row.invoice_date,
    isDraft: Boolean(row.is_draft),
    isCancelled: Boolean(row.is_cancelled),
    ...moneyFromRow(row),
  };
}

type InvoiceMoneyFiguresRow = Pick<
  InvoiceRow,
  keyof MoneyColumns | 'is_draft' | 'is_cancelled' | 'due_date' | 'next_try_date'
>;

export function invoiceMoneyFiguresFromRow(row: InvoiceMoneyFiguresRow): InvoiceMoneyFigures {
  return {
    ...moneyFromRow(row),
    isDraft: Boolean(row.is_draft),
    isCancelled: Boolean(row.is_cancelled),
    dueDate: row.due_date,
    nextTryDate: row.next_try_date,
  };
}

type IssuedInvoiceRow = Pick<
  InvoiceRow,
  'id' | 'invoice_num' | 'reference' | 'invoice_date' | 'due_date' | keyof MoneyColumns
>;

export function issuedInvoiceFromRow(row: IssuedInvoiceRow): IssuedInvoiceRecord {
  return {
    id: row.id,
    invoiceNum: row.invoice_num,
    reference: row.reference,
    invoiceDate: row.invoice_date,
    dueDate: row.due_date,
    ...moneyFromRow(row),
  };
}

/** The positions of the invoice's taxes a line bears, as stored ("0,1"); null: all of them. */
export function taxPositionsFromColumn(column: string | null): number[] | null {
  return column === null ? null : column === '' ? [] : column.split(',').map(Number);
}

export function taxPositionsToColumn(positions: readonly number[] | null | undefined): string | null {
  return positions === null || positions === undefined ? null : positions.join(',');
}

export function invoiceChargeFromRow(row: Selectable<InvoiceChargesTable>): InvoiceCharge {
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
    metered:
      row.metric_code === null
        ? null
        : { metricCode: row.metric_code, group: row.usage_group ?? '', quantity: row.usage_quantity ?? '0' },
    componentId: row.component_id === null ? null : Number(row.component_id),
    taxPositions: taxPositionsFromColumn(row.tax_positions),
  };
}

export function invoiceTaxFromRow(row: Selectable<InvoiceTaxesTable>): InvoiceTaxRecord {
  return { id: row.id, invoiceId: row.invoice_id, name: row.name, perc: row.perc };
}
