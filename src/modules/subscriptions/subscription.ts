import type { PlainDate } from '../../core/calendar.ts';
import type { SubscriptionStatus } from './subscriptionStatus.ts';

/**
 * A subscription as the module answers it, made from its record (subscription.mapper.ts)
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
  /** When the cancellation was made, and the reason the customer gave for it (null: none given). */
  cancelledAt: string | null;
  cancelReason: string | null;
  /** Its pause (docs/subscriptions.md, "Pause and resume"); all null when never paused. */
  pauseDate: PlainDate | null;
  resumeDate: PlainDate | null;
  pauseCredit: string | null;
  resumeBillingAnchor: string | null;
  lastInvoiceDate: PlainDate | null;
  lastRenewDate: PlainDate | null;
  nextRenewDate: PlainDate | null;
  parkedReason: string | null;
  /** Its own collection settings, copied to its invoices; null: they follow the customer's. */
  collectionMethod: string | null;
  gatewayId: number | null;
  customerPaymentMethodId: number | null;
  updatedAt: string;
  /** Started when paid (SubscriptionRecord's fields of the name); both null for any other subscription. */
  incompleteUntil: PlainDate | null;
  activatedOn: PlainDate | null;
  /** A resume waiting for its invoice's payment (SubscriptionRecord's fields of the name). */
  resumePayBy: PlainDate | null;
  resumePaidOn: PlainDate | null;
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

/**
 * A subscription's whole record, as its repository reads it (subscription.mapper.ts): what the use cases and the
 * bill run of this module work on. It stays inside the module; other modules read `Subscription`.
 */
export interface SubscriptionRecord {
  id: number;
  accountId: number;
  customerId: number;
  packageId: number;
  packageVersionId: number;
  packageRateTermId: number;
  currencyCode: string;
  term: number;
  termType: string;
  /** Exact decimals. */
  chargePrice: string;
  setupFee: string;
  trialFee: string;
  trialPeriod: number;
  trialPeriodType: string;
  startDate: PlainDate;
  endDate: PlainDate | null;
  trialEndDate: PlainDate | null;
  isProRata: boolean;
  firstProrataSyncDate: PlainDate | null;
  anchorDate: PlainDate;
  /** The day a change made now kept the anchor: a period may start that day off the cycle. */
  offCycleStart: PlainDate | null;
  billCycleDay: number | null;
  numDaysBeforeToInv: number;
  cancelType: string | null;
  cancelDate: PlainDate | null;
  cancelledAt: string | null;
  /** The reason code the customer gave for the cancellation (docs/portal.md, "Cancel with a way to stay"). */
  cancelReason: string | null;
  /** Its pause (docs/subscriptions.md, "Pause and resume"): the first day not billed; null when not paused. */
  pauseDate: PlainDate | null;
  /** The day billing resumes; null: paused until resumed. */
  resumeDate: PlainDate | null;
  /** 'none' or 'prorata'. */
  pauseCredit: string | null;
  /** 'resume_day' or 'unchanged'. */
  resumeBillingAnchor: string | null;
  lastInvDate: PlainDate | null;
  lastRenewDate: PlainDate | null;
  nextRenewDate: PlainDate | null;
  nextInvDate: PlainDate | null;
  periodCount: number;
  setupBilled: boolean;
  /** The change scheduled for the next renewal, as stored (JSON: `parsePendingChange` reads it). */
  pendingChange: string | null;
  parkedReason: string | null;
  parkedAt: string | null;
  leaseUntil: string | null;
  collectionMethod: string | null;
  gatewayId: number | null;
  customerPaymentMethodId: number | null;
  createdAt: string;
  updatedAt: string;
  /**
   * Started when paid (docs/subscriptions.md, "Subscriptions that start when paid"): the day it expires while its
   * first invoice is unpaid (null: not created with ActivateOnPayment), the day that invoice was paid, and the day
   * it expired unpaid.
   */
  incompleteUntil: PlainDate | null;
  activatedOn: PlainDate | null;
  incompleteExpiredOn: PlainDate | null;
  /**
   * A resume that waits for its invoice to be paid (docs/subscriptions.md, "Resuming when paid"): the day the
   * resumption invoice is voided if still unpaid (null: the resume does not wait), and the day it was paid.
   */
  resumePayBy: PlainDate | null;
  resumePaidOn: PlainDate | null;
}

/** The fields that decide a subscription's comp_Status on a day (subscriptionTimeline.ts, `statusOf`). */
export type SubscriptionStatusFields = Pick<
  SubscriptionRecord,
  | 'startDate'
  | 'endDate'
  | 'trialEndDate'
  | 'cancelDate'
  | 'pauseDate'
  | 'resumeDate'
  | 'resumeBillingAnchor'
  | 'resumePayBy'
  | 'resumePaidOn'
  | 'incompleteUntil'
  | 'activatedOn'
  | 'incompleteExpiredOn'
>;

/**
 * What the time-driven events read of a candidate (subscriptionEvents.ts): its status fields, when it was made, and
 * what a pause notice names.
 */
export type SubscriptionStatusDates = SubscriptionStatusFields &
  Pick<SubscriptionRecord, 'id' | 'customerId' | 'packageId' | 'createdAt'>;

/** The record of a subscription the bill run has not looked at yet, nor anyone changed. */
export const NOT_BILLED_YET = {
  offCycleStart: null,
  cancelType: null,
  cancelDate: null,
  cancelledAt: null,
  cancelReason: null,
  pauseDate: null,
  resumeDate: null,
  pauseCredit: null,
  resumeBillingAnchor: null,
  lastInvDate: null,
  lastRenewDate: null,
  nextRenewDate: null,
  periodCount: 0,
  setupBilled: false,
  pendingChange: null,
  parkedReason: null,
  parkedAt: null,
  leaseUntil: null,
  incompleteUntil: null,
  activatedOn: null,
  incompleteExpiredOn: null,
  resumePayBy: null,
  resumePaidOn: null,
} as const satisfies Partial<SubscriptionRecord>;

/** A new subscription: what it is created with (the database gives it its id; `NOT_BILLED_YET` the rest). */
export type NewSubscription = Omit<SubscriptionRecord, 'id' | keyof typeof NOT_BILLED_YET>;

/** What a change sets on a subscription's record. */
export type SubscriptionChanges = Partial<Omit<SubscriptionRecord, 'id' | 'accountId' | 'createdAt'>>;

/** The record with the names the wire shows beside it (CustomerName, PackageName, packageVersionNumber). */
export interface SubscriptionView extends SubscriptionRecord {
  customerName: string;
  packageName: string;
  packageVersionNumber: number;
}

/** A component on a subscription, with its version's number. */
export interface ComponentOnSubscription {
  id: number;
  subscriptionId: number;
  componentId: number;
  componentVersionId: number;
  versionNo: number;
}

/** Units recorded for a component in one usage period. */
export interface SubscriptionUsage {
  id: number;
  subscriptionId: number;
  componentId: number;
  periodStart: PlainDate;
  periodEnd: PlainDate;
  /** Exact decimal. */
  numUnits: string;
  memo: string | null;
  isSetUnits: boolean;
  invoiceId: number | null;
  updatedAt: string;
}
