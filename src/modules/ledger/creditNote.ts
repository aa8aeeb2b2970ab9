import type { PaymentStatus } from './allocation.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Allocation } from './allocation.service.ts';
import type { MoneySourceInput } from './moneyMovement.ts';

/**
 * Credit notes: money the account credits a customer with, allocated to the customer's invoices only (never to
 * positive adjustments). On an invoice they count in TotalNegativeAdjs and are listed in
 * NegativeAdjustmentsApplied with their creditNoteID. They are never pending nor failed: always settled.
 */
export interface CreditNote {
  id: number;
  customerId: number;
  currencyCode: string;
  amountMinor: number;
  allocatedMinor: number;
  date: PlainDate;
  creditNumber: string;
  memo: string | null;
  /** Allocated, Partial or Unallocated (the spec's Pending and Failed never apply to a credit note). */
  status: PaymentStatus;
  allocations: Allocation[];
}

/** A request's credit note, read from the wire; its amounts are checked by the use case against the currency. */
export interface CreditNoteInput extends MoneySourceInput {
  /** Left out: a new credit note takes the next number of the account's sequence, an edited one keeps its own. */
  creditNumber?: string;
  memo?: string | null;
}
