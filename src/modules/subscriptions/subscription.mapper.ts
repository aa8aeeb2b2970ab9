import type { Insertable, Selectable, Updateable } from 'kysely';
import type { SubscriptionsTable, SubscriptionUsageTable } from './tables.ts';
import { NOT_BILLED_YET } from './subscription.ts';
import type {
  NewSubscription,
  SubscriptionChanges,
  SubscriptionRecord,
  SubscriptionStatusDates,
  SubscriptionUsage,
} from './subscription.ts';

/**
 * The one mapping between a subscription's row and its record, used by the module's repositories. The bill run
 * maps every row of its pages: a flat literal, no loops, so that it costs little per row.
 */
export function subscriptionFromRow(row: Selectable<SubscriptionsTable>): SubscriptionRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    customerId: row.customer_id,
    packageId: row.package_id,
    packageVersionId: row.package_version_id,
    packageRateTermId: row.package_rate_term_id,
    currencyCode: row.currency_code,
    term: row.term,
    termType: row.term_type,
    chargePrice: row.charge_price,
    setupFee: row.setup_fee,
    trialFee: row.trial_fee,
    trialPeriod: row.trial_period,
    trialPeriodType: row.trial_period_type,
    startDate: row.start_date,
    endDate: row.end_date,
    trialEndDate: row.trial_end_date,
    isProRata: Boolean(row.is_pro_rata),
    firstProrataSyncDate: row.first_prorata_sync_date,
    anchorDate: row.anchor_date,
    offCycleStart: row.off_cycle_start,
    billCycleDay: row.bill_cycle_day,
    numDaysBeforeToInv: row.num_days_before_to_inv,
    cancelType: row.cancel_type,
    cancelDate: row.cancel_date,
    cancelledAt: row.cancelled_at,
    cancelReason: row.cancel_reason,
    pauseDate: row.pause_date,
    resumeDate: row.resume_date,
    pauseCredit: row.pause_credit,
    resumeBillingAnchor: row.resume_billing_anchor,
    lastInvDate: row.last_inv_date,
    lastRenewDate: row.last_renew_date,
    nextRenewDate: row.next_renew_date,
    nextInvDate: row.next_inv_date,
    periodCount: row.period_count,
    setupBilled: Boolean(row.setup_billed),
    pendingChange: row.pending_change,
    parkedReason: row.parked_reason,
    parkedAt: row.parked_at,
    leaseUntil: row.lease_until,
    collectionMethod: row.collection_method,
    gatewayId: row.gateway_id,
    customerPaymentMethodId: row.customer_payment_method_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    incompleteUntil: row.incomplete_until,
    activatedOn: row.activated_on,
    incompleteExpiredOn: row.incomplete_expired_on,
    resumePayBy: row.resume_pay_by,
    resumePaidOn: row.resume_paid_on,
  };
}

/** The columns of a subscription's status dates, and their mapping (a flat literal, as `subscriptionFromRow`). */
export const STATUS_DATE_COLUMNS = [
  'id',
  'customer_id',
  'package_id',
  'created_at',
  'start_date',
  'end_date',
  'trial_end_date',
  'cancel_date',
  'pause_date',
  'resume_date',
  'resume_billing_anchor',
  'resume_pay_by',
  'resume_paid_on',
  'incomplete_until',
  'activated_on',
  'incomplete_expired_on',
] as const;

export function statusDatesFromRow(
  row: Pick<Selectable<SubscriptionsTable>, (typeof STATUS_DATE_COLUMNS)[number]>,
): SubscriptionStatusDates {
  return {
    id: row.id,
    customerId: row.customer_id,
    packageId: row.package_id,
    createdAt: row.created_at,
    startDate: row.start_date,
    endDate: row.end_date,
    trialEndDate: row.trial_end_date,
    cancelDate: row.cancel_date,
    pauseDate: row.pause_date,
    resumeDate: row.resume_date,
    resumeBillingAnchor: row.resume_billing_anchor,
    resumePayBy: row.resume_pay_by,
    resumePaidOn: row.resume_paid_on,
    incompleteUntil: row.incomplete_until,
    activatedOn: row.activated_on,
    incompleteExpiredOn: row.incomplete_expired_on,
  };
}

/** Each field of the record and its column. */
const COLUMN_OF = {
  id: 'id',
  accountId: 'account_id',
  customerId: 'customer_id',
  packageId: 'package_id',
  packageVersionId: 'package_version_id',
  packageRateTermId: 'package_rate_term_id',
  currencyCode: 'currency_code',
  term: 'term',
  termType: 'term_type',
  chargePrice: 'charge_price',
  setupFee: 'setup_fee',
  trialFee: 'trial_fee',
  trialPeriod: 'trial_period',
  trialPeriodType: 'trial_period_type',
  startDate: 'start_date',
  endDate: 'end_date',
  trialEndDate: 'trial_end_date',
  isProRata: 'is_pro_rata',
  firstProrataSyncDate: 'first_prorata_sync_date',
  anchorDate: 'anchor_date',
  offCycleStart: 'off_cycle_start',
  billCycleDay: 'bill_cycle_day',
  numDaysBeforeToInv: 'num_days_before_to_inv',
  cancelType: 'cancel_type',
  cancelDate: 'cancel_date',
  cancelledAt: 'cancelled_at',
  cancelReason: 'cancel_reason',
  pauseDate: 'pause_date',
  resumeDate: 'resume_date',
  pauseCredit: 'pause_credit',
  resumeBillingAnchor: 'resume_billing_anchor',
  lastInvDate: 'last_inv_date',
  lastRenewDate: 'last_renew_date',
  nextRenewDate: 'next_renew_date',
  nextInvDate: 'next_inv_date',
  periodCount: 'period_count',
  setupBilled: 'setup_billed',
  pendingChange: 'pending_change',
  parkedReason: 'parked_reason',
  parkedAt: 'parked_at',
  leaseUntil: 'lease_until',
  collectionMethod: 'collection_method',
  gatewayId: 'gateway_id',
  customerPaymentMethodId: 'customer_payment_method_id',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  incompleteUntil: 'incomplete_until',
  activatedOn: 'activated_on',
  incompleteExpiredOn: 'incomplete_expired_on',
  resumePayBy: 'resume_pay_by',
  resumePaidOn: 'resume_paid_on',
} as const satisfies Record<keyof SubscriptionRecord, keyof SubscriptionsTable>;

/** The columns a change sets, in the order its fields were given (the bill run groups updates by them). */
export function subscriptionChangesToRow(
  changes: SubscriptionChanges,
): Updateable<Omit<SubscriptionsTable, 'id' | 'account_id' | 'created_at'>> {
  const row: Record<string, unknown> = {};
  for (const field in changes) {
    const value = changes[field as keyof SubscriptionChanges];
    if (value !== undefined) row[COLUMN_OF[field as keyof SubscriptionChanges]] = value;
  }
  return row;
}

export function newSubscriptionToRow(subscription: NewSubscription): Insertable<SubscriptionsTable> {
  const record = { ...subscription, ...NOT_BILLED_YET };
  return {
    ...(subscriptionChangesToRow(record) as Insertable<SubscriptionsTable>),
    account_id: record.accountId,
    created_at: record.createdAt,
  };
}

export function usageFromRow(row: Selectable<SubscriptionUsageTable>): SubscriptionUsage {
  return {
    id: row.id,
    subscriptionId: row.subscription_id,
    componentId: row.component_id,
    periodStart: row.period_start,
    periodEnd: row.period_end,
    numUnits: row.num_units,
    memo: row.memo,
    isSetUnits: Boolean(row.is_set_units),
    invoiceId: row.invoice_id,
    updatedAt: row.updated_at,
  };
}
