/** What a recurring invoice is in this module, how its rows become one, and how its schedule meets the planner. */
import { dateAt } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { groupBy } from '../../core/collections.ts';
import { priceInvoice } from '../../core/invoiceMath.ts';
import { isRecurringExpired, recurringStatus } from '../../core/recurringBilling.ts';
import type {
  RecurringSchedule,
  RecurringScheduleState,
  RecurringStatus,
} from '../../core/recurringBilling.ts';
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
