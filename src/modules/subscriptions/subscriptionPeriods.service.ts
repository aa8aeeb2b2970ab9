import { today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { NotFoundError } from '../../errors.ts';
import * as repo from './subscription.repository.ts';
import { currentUsagePeriod } from './subscriptionEditing.ts';
import type { UsagePeriod } from './usagePeriods.ts';

export type { UsagePeriod } from './usagePeriods.ts';

/**
 * The billing period the subscription's usage counts in today (before its start, its first one), as dates at the
 * account's midnight: what entitlements' limits per period are measured over. Null once billing stopped.
 */
export async function currentBillingPeriod(
  ctx: ServiceContext,
  subscriptionId: number,
): Promise<UsagePeriod | null> {
  const row = await repo.findSubscriptionRecord(ctx.db, ctx.account.id, subscriptionId);
  if (!row) throw new NotFoundError('Subscription', subscriptionId);
  return currentUsagePeriod(ctx, row, today(ctx));
}
