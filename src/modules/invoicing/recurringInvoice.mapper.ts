import type { Insertable, Selectable, Updateable } from 'kysely';
import type { RecurringScheduleState } from './recurringBilling.ts';
import type {
  NewRecurringCharge,
  NewRecurringInvoice,
  NewRecurringPeriod,
  RecurringChargeRecord,
  RecurringInvoiceChanges,
  RecurringInvoiceFields,
  RecurringInvoiceRecord,
  RecurringInvoiceWithCustomer,
  RecurringTax,
} from './recurringInvoice.ts';
import type {
  RecurringInvoiceChargesTable,
  RecurringInvoicePeriodsTable,
  RecurringInvoicesTable,
  RecurringInvoiceTaxesTable,
} from './tables.ts';

/** The customer's state a recurring invoice is read with (the customers module's `customerStates`). */
export interface RecurringInvoiceWithCustomerRow extends Selectable<RecurringInvoicesTable> {
  customer_is_active: boolean | number;
  customer_is_suspended: boolean | number;
  customer_suspended_at: string | null;
}

/** The one mapping between a recurring invoice's row and its record, used by recurringInvoice.repository.ts. */
export function recurringInvoiceFromRow(row: Selectable<RecurringInvoicesTable>): RecurringInvoiceRecord {
  return {
    id: row.id,
    customerId: row.customer_id,
    currencyCode: row.currency_code,
    reference: row.reference,
    term: row.term,
    termType: row.term_type,
    startDate: row.start_date,
    endDate: row.end_date,
    lastInvDate: row.last_inv_date,
    lastRenewDate: row.last_renew_date,
    nextRenewDate: row.next_renew_date,
    nextInvDate: row.next_inv_date,
    periodCount: row.period_count,
    numDaysBeforeToInv: row.num_days_before_to_inv,
    isCancelled: Boolean(row.is_cancelled),
    cancelledAt: row.cancelled_at,
    suspendedAt: row.suspended_at,
    collectionMethod: row.collection_method,
    gatewayId: row.gateway_id,
    customerPaymentMethodId: row.customer_payment_method_id,
    invoiceTerms: row.invoice_terms,
    invoiceNotes: row.invoice_notes,
    parkedReason: row.parked_reason,
    parkedAt: row.parked_at,
    leaseUntil: row.lease_until,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function recurringInvoiceWithCustomerFromRow(
  row: RecurringInvoiceWithCustomerRow,
): RecurringInvoiceWithCustomer {
  return {
    ...recurringInvoiceFromRow(row),
    customerIsActive: Boolean(row.customer_is_active),
    customerIsSuspended: Boolean(row.customer_is_suspended),
    customerSuspendedAt: row.customer_suspended_at,
  };
}

export function recurringChargeFromRow(
  row: Omit<Selectable<RecurringInvoiceChargesTable>, 'account_id'>,
): RecurringChargeRecord {
  return {
    id: row.id,
    recurringInvoiceId: row.recurring_invoice_id,
    line: row.line,
    descrip: row.descrip,
    qty: row.qty,
    unitCostEx: row.unit_cost_ex,
    isTaxInclusive: Boolean(row.is_tax_inclusive),
    displayOrder: row.display_order,
  };
}

export function recurringTaxFromRow(
  row: Omit<Selectable<RecurringInvoiceTaxesTable>, 'account_id'>,
): RecurringTax {
  return { id: row.id, recurringInvoiceId: row.recurring_invoice_id, name: row.name, perc: row.perc };
}

function fieldsToRow(fields: RecurringInvoiceFields) {
  return {
    currency_code: fields.currencyCode,
    reference: fields.reference,
    term: fields.term,
    term_type: fields.termType,
    start_date: fields.startDate,
    end_date: fields.endDate,
    num_days_before_to_inv: fields.numDaysBeforeToInv,
    collection_method: fields.collectionMethod,
    gateway_id: fields.gatewayId,
    customer_payment_method_id: fields.customerPaymentMethodId,
    invoice_terms: fields.invoiceTerms,
    invoice_notes: fields.invoiceNotes,
  };
}

function stateToRow(state: RecurringScheduleState) {
  return {
    period_count: state.periodCount,
    last_renew_date: state.lastRenewDate,
    last_inv_date: state.lastInvDate,
    next_renew_date: state.nextRenewDate,
    next_inv_date: state.nextInvDate,
  };
}

export function newRecurringInvoiceToRow(invoice: NewRecurringInvoice): Insertable<RecurringInvoicesTable> {
  return {
    account_id: invoice.accountId,
    customer_id: invoice.customerId,
    ...fieldsToRow(invoice.fields),
    ...stateToRow(invoice.state),
    is_cancelled: invoice.isCancelled,
    created_at: invoice.createdAt,
    updated_at: invoice.updatedAt,
  };
}

/** The columns a change sets: only the parts given, in one order whatever the change. */
export function recurringInvoiceChangesToRow(
  changes: RecurringInvoiceChanges,
): Updateable<RecurringInvoicesTable> {
  const row: Updateable<RecurringInvoicesTable> = {};
  if (changes.isCancelled !== undefined) row.is_cancelled = changes.isCancelled;
  if (changes.cancelledAt !== undefined) row.cancelled_at = changes.cancelledAt;
  if (changes.fields !== undefined) Object.assign(row, fieldsToRow(changes.fields));
  if (changes.state !== undefined) Object.assign(row, stateToRow(changes.state));
  if (changes.parkedReason !== undefined) row.parked_reason = changes.parkedReason;
  if (changes.parkedAt !== undefined) row.parked_at = changes.parkedAt;
  if (changes.updatedAt !== undefined) row.updated_at = changes.updatedAt;
  return row;
}

export function newRecurringChargeToRow(
  accountId: number,
  recurringInvoiceId: number,
  charge: NewRecurringCharge,
): Insertable<RecurringInvoiceChargesTable> {
  return {
    account_id: accountId,
    recurring_invoice_id: recurringInvoiceId,
    line: charge.line,
    descrip: charge.descrip,
    qty: charge.qty,
    unit_cost_ex: charge.unitCostEx,
    is_tax_inclusive: charge.isTaxInclusive ?? false,
    display_order: charge.displayOrder,
  };
}

export function newRecurringTaxToRow(
  accountId: number,
  recurringInvoiceId: number,
  tax: Pick<RecurringTax, 'name' | 'perc'>,
): Insertable<RecurringInvoiceTaxesTable> {
  return { account_id: accountId, recurring_invoice_id: recurringInvoiceId, name: tax.name, perc: tax.perc };
}

export function newRecurringPeriodToRow(
  accountId: number,
  recurringInvoiceId: number,
  period: NewRecurringPeriod,
): Insertable<RecurringInvoicePeriodsTable> {
  return {
    account_id: accountId,
    recurring_invoice_id: recurringInvoiceId,
    period_no: period.periodNo,
    period_start: period.start,
    period_end: period.end,
    invoice_id: period.invoiceId,
  };
}
