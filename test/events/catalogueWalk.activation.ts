import { createCustomer, createPlan, subscribe } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';

// The catalogue walk's step for subscriptions that start when paid (docs/subscriptions.md, "Subscriptions that start
// when paid"; catalogue.walk.test.ts): subscription.incomplete now; subscription.incomplete_expired when the walk
// next moves the test clock past its expiry day, its invoice unpaid.

/** subscription: one created with ActivateOnPayment for a customer of its own, who pays nothing. */
export async function walkActivation(account: TestAccount) {
  const customerID = await createCustomer(account, { Name: 'Grace' });
  const plan = await createPlan(account, { chargePrice: 30 });
  await subscribe(account, customerID, plan, { ActivateOnPayment: true });
}
