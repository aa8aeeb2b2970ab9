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

/** A credit note as stored (creditNote.mapper.ts makes it from its row), without its allocations and status. */
export type CreditNoteRecord = Omit<CreditNote, 'status' | 'allocations'>;

/** A new credit note, as issueCreditNote writes it. */
export interface NewCreditNote {
  accountId: number;
  customerId: number;
  currencyCode: string;
  amountMinor: number;
  date: PlainDate;
  creditNumber: string;
  memo: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What an edit of a credit note writes (all its own fields). */
export type CreditNoteChanges = Omit<NewCreditNote, 'accountId' | 'customerId' | 'createdAt'>;
