/**
 * Subscriptions of customers to packages, their components and usage. Routes: subscriptions.routes.ts,
 * subscriptionChanges.routes.ts.
 */
export type { BillingOutcome } from './subscriptionBilling.service.ts';
export {
  billDueSubscriptions,
  billSubscription,
  dueSubscriptionIds,
} from './subscriptionBilling.service.ts';

export type { ComponentChoice } from './subscriptionInput.ts';
export type { Subscription, SubscriptionComponent } from './subscriptionReads.service.ts';
export {
  countLiveSubscriptionsByCustomer,
  countLiveSubscriptionsByPackageVersion,
  countSubscriptionsByPackageVersion,
  countSubscriptionsOfCustomer,
  countSubscriptionsWithComponent,
  getSubscription,
} from './subscriptionReads.service.ts';
export { createSubscription } from './subscription.service.ts';
