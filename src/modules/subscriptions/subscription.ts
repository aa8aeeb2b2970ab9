import type { PlainDate } from '../../core/calendar.ts';
import type { SubscriptionStatus } from '../../core/subscriptionBilling.ts';

/**
 * A subscription as the module answers it, made from its row by `subscriptionFromView` (subscription.repository.ts)
 * and the figures derived on the day it is read (subscriptionReads.service.ts). Other modules and the wire mapping
 * read this, never the row: the bill run's own columns (leases, period counts, pending changes) stay inside.
 */
export interface Subscription {
  id: number;
  customerId: number;
  /** The customer's name and last name, as the wire shows it beside the subscription. */
  customerName: string;
  packageId: number;
  packageName: string;
  packageVersionId: number;
  packageVersionNumber: number;
  packageRateTermId: number;
  currencyCode: string;
  term: number;
  termType: string;
  /** Exact decimal. */
  chargePrice: string;
  startDate: PlainDate;
  endDate: PlainDate | null;
  trialEndDate: PlainDate | null;
  isProRata: boolean;
  firstProrataSyncDate: PlainDate | null;
  /** The day of the month its cycle renews on (docs/pricing.md, "Bill-cycle day"); null: its start's. */
  billCycleDay: number | null;
  numDaysBeforeToInvoice: number;
  cancelType: string | null;
  cancelDate: PlainDate | null;
  lastInvoiceDate: PlainDate | null;
  lastRenewDate: PlainDate | null;
  nextRenewDate: PlainDate | null;
  parkedReason: string | null;
  /** Its own collection settings, copied to its invoices; null: they follow the customer's. */
  collectionMethod: string | null;
  gatewayId: number | null;
  customerPaymentMethodId: number | null;
  updatedAt: string;
  /** Derived on the day read. */
  status: SubscriptionStatus;
  isCancelled: boolean;
  isExpired: boolean;
  isFutureChange: boolean;
  /** The date of the next invoice (the upcoming-invoice preview's); null when none is coming. */
  nextInvoiceDate: PlainDate | null;
  components: SubscriptionComponent[];
}

/** A component on a subscription with the units recorded in the current usage period. */
export interface SubscriptionComponent {
  componentId: number;
  componentVersionId: number;
  componentVersionNo: number;
  /** Exact decimal; "0" when nothing is recorded in the period. */
  numUnits: string;
  memo: string | null;
  isSetUnits: boolean;
}

/** What a subscription's row says of it, before the figures of the day are derived. */
export type StoredSubscription = Omit<
  Subscription,
  'status' | 'isCancelled' | 'isExpired' | 'isFutureChange' | 'nextInvoiceDate' | 'components'
>;
