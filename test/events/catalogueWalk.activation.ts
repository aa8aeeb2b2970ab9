import { createCustomer, createPlan, ok, subscribe } from '../helpers/billing.ts';
import { plusDays } from '../batches/fixtures.ts';
import type { TestAccount } from '../helpers/service.ts';

// The catalogue walk's step for subscriptions that start when paid (docs/subscriptions.md, "Subscriptions that start
// when paid"; catalogue.walk.test.ts): subscription.incomplete now; subscription.incomplete_expired when the walk
// next moves the test clock past its expiry day, its invoice unpaid. Likewise subscription.resume_expired for a resume
// that waits for its invoice's payment ("Resuming when paid").

/** subscription: one created with ActivateOnPayment for a customer of its own, who pays nothing. */
export async function walkActivation(account: TestAccount) {
  const customerID = await createCustomer(account, { Name: 'Grace' });
  const plan = await createPlan(account, { chargePrice: 30 });
  await subscribe(account, customerID, plan, { ActivateOnPayment: true });
}

/**
 * subscription: paused today with its unused days credited, its resume two days on made to wait for its payment; the
 * walk's next clock move bills the resumption, unpaid, and voids it the day after (subscription.resume_expired).
 */
export async function walkResumeExpiry(account: TestAccount, today: string) {
  const customerID = await createCustomer(account, { Name: 'Hedy' });
  const plan = await createPlan(account, { chargePrice: 30 });
  const id = (await subscribe(account, customerID, plan)).subscriptionID as number;
  await ok(account, 'PUT', `/v1/subscriptions/${id}/pause`, { Credit: 'prorata' });
  await ok(account, 'PUT', `/v1/subscriptions/${id}/resume`, {
    ResumeDate: plusDays(today, 2),
    WaitForPayment: true,
  });
}
