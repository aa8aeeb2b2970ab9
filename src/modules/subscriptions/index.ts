/**
 * Subscriptions of customers to packages, their components and usage. Routes: subscriptions.routes.ts,
 * subscriptionChanges.routes.ts.
 */
export type { BillingOutcome } from './subscriptionBilling.service.ts';
export {
  billNextDueSubscriptions,
  billSubscription,
  dueSubscriptionIds,
} from './subscriptionBilling.service.ts';

export type { ComponentChoice } from './subscriptionInput.ts';
export type { Subscription, SubscriptionComponent } from './subscription.ts';
export {
  activeSubscriptionsFigure,
  countLiveSubscriptionsByPackageVersion,
  countSubscriptionsByPackageVersion,
  countSubscriptionsOfCustomer,
  countSubscriptionsWithComponent,
  getSubscription,
  listCustomerSubscriptions,
  liveSubscriptionIdsOfCustomer,
  subscriptionsByIds,
} from './subscriptionReads.service.ts';
export type { ChangeResult } from './subscriptionChanges.service.ts';
/** Pause and resume (docs/subscriptions.md, "Pause and resume"), for the CLI and the portal. */
export { pauseSubscription, resumeSubscription } from './subscriptionPause.service.ts';
export type { PauseInput, ResumeInput } from './subscriptionPause.service.ts';
export { BILLING_ANCHORS, PAUSE_CREDITS } from './subscriptionPause.ts';
/** Pauses customers make themselves, within the account's limits (docs/portal.md, "Pausing"). */
export {
  SELF_PAUSE_WINDOW_DAYS,
  assertSelfPauseAllowed,
  pauseSubscriptionAsCustomer,
  planSelfPause,
  selfPausesInYear,
} from './selfPause.service.ts';
export type { SelfPauseInput, SelfPausePlan } from './selfPause.service.ts';
export {
  cancelSubscription,
  preview as previewChange,
  subscriptionUsage,
  upcomingInvoice,
} from './subscriptionChanges.service.ts';
/** What usage alerts read: a subscription's usage so far, as GET /v1/subscriptions/{id}/usage answers it. */
export type { CurrentUsage, MeteredSubscription } from './meteredUsage.service.ts';
export { findMeteredSubscription } from './meteredUsage.service.ts';
/** A subscription's coupons, for the portal (docs/credits.md, "Coupons"). */
export { listSubscriptionCoupons, redeemSubscriptionCoupon } from './subscriptionCoupons.service.ts';
export type { UsagePeriod } from './subscriptionPeriods.service.ts';
export { currentBillingPeriod } from './subscriptionPeriods.service.ts';
/** Holds a subscription until the transaction ends: what is bounded per subscription is counted one at a time. */
export { lockSubscription } from './subscriptionEditing.ts';
export { usedOfMetric } from './meteredUsage.service.ts';
export { changeSubscriptionTerms } from './subscriptionTerms.service.ts';
export { toSubscriptionDto } from './subscriptions.serializer.ts';
export { createSubscription } from './subscription.service.ts';
export { subscriptionCustomers } from './subscriptionCustomers.ts';
export { countSubscriptionsByComponent, countSubscriptionsByComponentVersion } from './componentCounts.ts';
export {
  SUBSCRIPTION_EVENT_TYPES,
  TRIAL_WARNING_DAYS,
  emitSubscriptionTimeEvents,
} from './subscriptionEvents.ts';
/**
 * Subscriptions that start when paid: src/modulePorts.ts plugs activatePaidSubscriptions into the ledger's invoices-paid
 * port; the bill run expires the unpaid ones (docs/subscriptions.md, "Subscriptions that start when paid").
 */
export {
  activatePaidSubscriptions,
  expireIncompleteSubscriptions,
  invoiceAwaitedBy,
  subscriptionAwaitingInvoice,
} from './subscriptionActivation.service.ts';
export type { AwaitingPayment } from './subscriptionActivation.service.ts';
/**
 * A resume that waits for its invoice's payment: the same port resumes it when paid; the bill run voids the unpaid
 * ones (docs/subscriptions.md, "Resuming when paid").
 */
export { expireUnpaidResumptions, resumePaidSubscriptions } from './subscriptionResumePayment.service.ts';
/** Progressive (threshold) billing of metered usage, checked by the engine's rounds (docs/usage.md). */
export type { ProgressiveCheckSummary } from './progressiveBilling.service.ts';
export { accountsWithProgressiveBilling, invoiceProgressiveUsage } from './progressiveBilling.service.ts';
