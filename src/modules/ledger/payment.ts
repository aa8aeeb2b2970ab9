import type { PaymentState, PaymentStatus } from './allocation.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Allocation } from './allocation.service.ts';
import type { MoneySourceInput } from './moneyMovement.ts';

/** A payment as the ledger's use cases answer it (the API's shape is payments.serializer.ts's). */
export interface Payment {
  id: number;
  customerId: number;
  currencyCode: string;
  amountMinor: number;
  allocatedMinor: number;
  date: PlainDate;
  method: string;
  state: PaymentState;
  status: PaymentStatus;
  memo: string | null;
  ref: string | null;
  /** Why a payment collected through a gateway failed (a reason of src/modules/gateways/failureReasons.ts); null otherwise. */
  failureReason: string | null;
  /** The stored method a gateway collected it from; null for money recorded by hand. */
  paymentMethodId: number | null;
  allocations: Allocation[];
}

/** A request's payment, read from the wire; its amounts are checked by the use case against the currency. */
export interface PaymentInput extends MoneySourceInput {
  method: string;
  memo?: string | null;
  ref?: string | null;
}

/** A payment as stored (payment.mapper.ts makes it from its row): its fields, without its allocations and status. */
export type PaymentRecord = Omit<Payment, 'status' | 'allocations'>;

/** A new payment, as insertPayment and the ledger's batch entry (collectedPayments.service.ts) write it. */
export interface NewPayment {
  accountId: number;
  customerId: number;
  currencyCode: string;
  amountMinor: number;
  date: PlainDate;
  method: string;
  state: PaymentState;
  memo: string | null;
  ref: string | null;
  paymentMethodId: number | null;
  failureReason: string | null;
  failureCode: string | null;
  createdAt: string;
  updatedAt: string;
  /** Given by a batch that writes the allocations with it; left out, the column's default (nothing allocated). */
  allocatedMinor?: number;
}

/** What an edit of a payment writes: the fields given; the others stay. */
export interface PaymentChanges {
  state?: PaymentState;
  currencyCode?: string;
  amountMinor?: number;
  date?: PlainDate;
  method?: string;
  memo?: string | null;
  ref?: string | null;
  paymentMethodId?: number;
  failureReason?: string;
  failureCode?: string;
  updatedAt: string;
}
