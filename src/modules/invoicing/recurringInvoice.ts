/** What a recurring invoice is in this module, how its rows become one, and how its schedule meets the planner. */
import { dateAt } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { groupBy } from '../../core/groupBy.ts';
import { priceInvoice } from './invoiceMath.ts';
import { isRecurringExpired, recurringStatus } from './recurringBilling.ts';
import type { RecurringSchedule, RecurringScheduleState, RecurringStatus } from './recurringBilling.ts';
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
  /** The unit price as listed: it includes the taxes when isTaxInclusive (docs/pricing.md). */
  unitCostEx: string;
  isTaxInclusive: boolean;
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

/**
 * A recurring invoice as the module answers it, made from its rows by `recurringInvoicesFromRows`: what the wire
 * mapping and other modules read, never the row (the bill run's lease and period count stay inside).
 */
export interface RecurringInvoice {
  id: number;
  customerId: number;
  currencyCode: string;
  reference: string | null;
  term: number;
  termType: string;
  startDate: PlainDate;
  endDate: PlainDate | null;
  lastInvoiceDate: PlainDate | null;
  lastRenewDate: PlainDate | null;
  nextRenewDate: PlainDate | null;
  numDaysBeforeToInvoice: number;
  isCancelled: boolean;
  parkedReason: string | null;
  parkedAt: string | null;
  /** Its own collection settings, copied to its invoices; null: they follow the customer's. */
  collectionMethod: string | null;
  gatewayId: number | null;
  customerPaymentMethodId: number | null;
  invoiceTerms: string | null;
  invoiceNotes: string | null;
  updatedAt: string;
  /** The customer's SuspendedDate while the customer is suspended, else null. */
  suspendedAt: string | null;
  status: RecurringStatus;
  isExpired: boolean;
  charges: RecurringCharge[];
  taxes: RecurringTax[];
}

export function scheduleOf(row: RecurringInvoiceRow, timeZone: string): RecurringSchedule {
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

export function stateColumns(state: RecurringScheduleState) {
  return {
    period_count: state.periodCount,
    last_renew_date: state.lastRenewDate,
    last_inv_date: state.lastInvDate,
    next_renew_date: state.nextRenewDate,
    next_inv_date: state.nextInvDate,
  };
}

/** Recurring invoices with their lines; `on` (the account's today) decides their status. */
export function recurringInvoicesFromRows(
  rows: RecurringInvoiceWithCustomerRow[],
  chargeRows: RecurringChargeRow[],
  taxRows: RecurringTaxRow[],
  on: PlainDate,
): RecurringInvoice[] {
  const charges = groupBy(chargeRows, (c) => c.recurring_invoice_id);
  const taxes = groupBy(taxRows, (t) => t.recurring_invoice_id);
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
      ownCharges.map((c) => ({
        qty: c.qty,
        unitCostEx: c.unit_cost_ex,
        isTaxInclusive: Boolean(c.is_tax_inclusive),
      })),
      ownTaxes.map((t) => t.perc),
      row.currency_code,
    );
    const schedule = {
      startDate: row.start_date,
      endDate: row.end_date,
      isCancelled: Boolean(row.is_cancelled),
    };
    return {
      id: row.id,
      customerId: row.customer_id,
      currencyCode: row.currency_code,
      reference: row.reference,
      term: row.term,
      termType: row.term_type,
      startDate: row.start_date,
      endDate: row.end_date,
      lastInvoiceDate: row.last_inv_date,
      lastRenewDate: row.last_renew_date,
      nextRenewDate: row.next_renew_date,
      numDaysBeforeToInvoice: row.num_days_before_to_inv,
      isCancelled: Boolean(row.is_cancelled),
      parkedReason: row.parked_reason,
      parkedAt: row.parked_at,
      collectionMethod: row.collection_method,
      gatewayId: row.gateway_id,
      customerPaymentMethodId: row.customer_payment_method_id,
      invoiceTerms: row.invoice_terms,
      invoiceNotes: row.invoice_notes,
      updatedAt: row.updated_at,
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
        isTaxInclusive: Boolean(c.is_tax_inclusive),
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
