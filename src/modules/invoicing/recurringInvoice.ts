/** What a recurring invoice is in this module, how its records become one, and how its schedule meets the planner. */
import { dateAt } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { groupBy } from '../../core/groupBy.ts';
import { priceInvoice } from './invoiceMath.ts';
import { isRecurringExpired, recurringStatus } from './recurringBilling.ts';
import type { RecurringSchedule, RecurringScheduleState, RecurringStatus } from './recurringBilling.ts';

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
 * A recurring invoice as the module answers it, made from its records by `recurringInvoicesOf`: what the wire
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

/** A recurring invoice's own fields, as a request sets them (recurringInvoiceInput.ts checks them). */
export interface RecurringInvoiceFields {
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
}

/**
 * A recurring invoice as stored (recurringInvoice.mapper.ts makes it from its row): its fields, its schedule's
 * state and the bill run's own columns, which stay inside the module.
 */
export interface RecurringInvoiceRecord extends RecurringInvoiceFields, RecurringScheduleState {
  id: number;
  customerId: number;
  isCancelled: boolean;
  cancelledAt: string | null;
  suspendedAt: string | null;
  parkedReason: string | null;
  parkedAt: string | null;
  leaseUntil: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The record with the state of its customer that its wire form and its billing depend on. */
export interface RecurringInvoiceWithCustomer extends RecurringInvoiceRecord {
  customerIsActive: boolean;
  customerIsSuspended: boolean;
  customerSuspendedAt: string | null;
}

/** A stored charge, before it is priced with the recurring invoice's taxes. */
export type RecurringChargeRecord = Omit<RecurringCharge, 'amountExMinor' | 'amountIncMinor'>;

/** A new recurring invoice, as createRecurringInvoice writes it. */
export interface NewRecurringInvoice {
  accountId: number;
  customerId: number;
  fields: RecurringInvoiceFields;
  state: RecurringScheduleState;
  isCancelled: boolean;
  createdAt: string;
  updatedAt: string;
}

/** What a change of a recurring invoice writes: the parts given; the others stay. */
export interface RecurringInvoiceChanges {
  isCancelled?: boolean;
  cancelledAt?: string | null;
  fields?: RecurringInvoiceFields;
  state?: RecurringScheduleState;
  parkedReason?: string | null;
  parkedAt?: string | null;
  updatedAt?: string;
}

/** A charge a request gives (its line and order resolved). */
export interface NewRecurringCharge {
  line: number;
  descrip: string;
  qty: string;
  unitCostEx: string;
  isTaxInclusive?: boolean;
  displayOrder: number;
}

/** A period the bill run made an invoice for. */
export interface NewRecurringPeriod {
  periodNo: number;
  start: PlainDate;
  end: PlainDate;
  invoiceId: number;
}

export function scheduleOf(record: RecurringInvoiceRecord, timeZone: string): RecurringSchedule {
  return {
    startDate: record.startDate,
    endDate: record.endDate,
    // An unknown term type is passed on as it is, so that the planner refuses it (BillingInvariantError).
    term: { count: record.term, unit: record.termType as RecurringSchedule['term']['unit'] },
    numDaysBeforeToInv: record.numDaysBeforeToInv,
    createdOn: dateAt(record.createdAt, timeZone),
    isCancelled: record.isCancelled,
    periodCount: record.periodCount,
    lastRenewDate: record.lastRenewDate,
    lastInvDate: record.lastInvDate,
  };
}

/** Recurring invoices with their lines; `on` (the account's today) decides their status. */
export function recurringInvoicesOf(
  records: RecurringInvoiceWithCustomer[],
  chargeRecords: RecurringChargeRecord[],
  taxRecords: RecurringTax[],
  on: PlainDate,
): RecurringInvoice[] {
  const charges = groupBy(chargeRecords, (c) => c.recurringInvoiceId);
  const taxes = groupBy(taxRecords, (t) => t.recurringInvoiceId);
  return records.map((record) => {
    const ownCharges = charges.get(record.id) ?? [];
    const ownTaxes = taxes.get(record.id) ?? [];
    const priced = priceInvoice(
      ownCharges.map((c) => ({ qty: c.qty, unitCostEx: c.unitCostEx, isTaxInclusive: c.isTaxInclusive })),
      ownTaxes.map((t) => t.perc),
      record.currencyCode,
    );
    const schedule = {
      startDate: record.startDate,
      endDate: record.endDate,
      isCancelled: record.isCancelled,
    };
    return {
      id: record.id,
      customerId: record.customerId,
      currencyCode: record.currencyCode,
      reference: record.reference,
      term: record.term,
      termType: record.termType,
      startDate: record.startDate,
      endDate: record.endDate,
      lastInvoiceDate: record.lastInvDate,
      lastRenewDate: record.lastRenewDate,
      nextRenewDate: record.nextRenewDate,
      numDaysBeforeToInvoice: record.numDaysBeforeToInv,
      isCancelled: record.isCancelled,
      parkedReason: record.parkedReason,
      parkedAt: record.parkedAt,
      collectionMethod: record.collectionMethod,
      gatewayId: record.gatewayId,
      customerPaymentMethodId: record.customerPaymentMethodId,
      invoiceTerms: record.invoiceTerms,
      invoiceNotes: record.invoiceNotes,
      updatedAt: record.updatedAt,
      suspendedAt: record.customerIsSuspended ? record.customerSuspendedAt : null,
      status: recurringStatus(schedule, on),
      isExpired: isRecurringExpired(schedule, on),
      charges: ownCharges.map((c, i) => ({
        id: c.id,
        recurringInvoiceId: c.recurringInvoiceId,
        line: c.line,
        descrip: c.descrip,
        qty: c.qty,
        unitCostEx: c.unitCostEx,
        isTaxInclusive: c.isTaxInclusive,
        amountExMinor: priced.charges[i]!.amountExMinor,
        amountIncMinor: priced.charges[i]!.amountIncMinor,
        displayOrder: c.displayOrder,
      })),
      taxes: ownTaxes,
    };
  });
}
