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
