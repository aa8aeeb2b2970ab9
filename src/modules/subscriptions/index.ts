import type { App } from '../../http/types.ts';
import { registerSubscriptionChangeRoutes } from './subscriptionChanges.routes.ts';
import { registerSubscriptionsRoutes } from './subscriptions.routes.ts';

/** Subscriptions of customers to packages, their components and usage. */
export function registerSubscriptionsModule(app: App): void {
  registerSubscriptionsRoutes(app);
  registerSubscriptionChangeRoutes(app);
}

export type { BillingOutcome } from './subscriptionBilling.service.ts';
export {
  billDueSubscriptions,
  billSubscription,
  billSubscriptionInTransaction,
  dueSubscriptionIds,
} from './subscriptionBilling.service.ts';

export type { Subscription, SubscriptionComponent } from './subscription.service.ts';
export {
  countLiveSubscriptionsByCustomer,
  countLiveSubscriptionsByPackageVersion,
  countSubscriptionsByPackageVersion,
  countSubscriptionsOfCustomer,
  countSubscriptionsWithComponent,
  getSubscription,
} from './subscription.service.ts';
export { findSubscriptionRow, lockSubscriptionRow } from './subscription.repository.ts';
export { usagePeriodAt } from './usagePeriods.ts';
export type { UsagePeriod } from './usagePeriods.ts';
