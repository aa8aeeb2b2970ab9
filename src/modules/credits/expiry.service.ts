import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { emitEvents, snapshotResources } from '../events/index.ts';
import { withLockedCustomer } from '../ledger/index.ts';
import { noSums, remainingOf } from './credit.ts';
import * as repo from './credit.repository.ts';
import { grantEvent } from './consumption.service.ts';
import { entryOf } from './grant.service.ts';
import { checkWalletBalances } from './walletBalance.service.ts';

/**
 * Expiry (docs/credits.md, "Expiry"): what remains of grants past their expiry is written off with an `expire`
 * entry, by the daily run and the test clock's advance. Consumption never waited for it: it reads the clock.
 * Returns how many grants it wrote off.
 */
export async function expireCreditGrants(ctx: ServiceContext): Promise<number> {
  const past = await repo.listGrantsPastExpiry(ctx.db, ctx.account.id, nowInstant(ctx));
  if (past.length === 0) return 0;
  const sums = await repo.sumsOfGrants(
    ctx.db,
    ctx.account.id,
    past.map((grant) => grant.id),
  );
  const left = past.filter((grant) => remainingOf(sums.get(grant.id) ?? noSums()) > 0);
  let expired = 0;
  for (const customerId of new Set(left.map((grant) => grant.customerId))) {
    expired += await withLockedCustomer(ctx, customerId, async (ctx) => {
      const ofCustomer = left.filter((grant) => grant.customerId === customerId);
      const ids = ofCustomer.map((grant) => grant.id);
      // Read again under the lock: a release may have run since.
      const locked = await repo.sumsOfGrants(ctx.db, ctx.account.id, ids);
      const before = await snapshotResources(ctx, 'credit_grant', ids);
      const entries = ofCustomer.flatMap((grant) => {
        const remaining = remainingOf(locked.get(grant.id) ?? noSums());
        return remaining > 0 ? [entryOf(grant, 'expire', remaining)] : [];
      });
      await repo.insertEntries(ctx.db, ctx.account.id, entries, nowInstant(ctx));
      await emitEvents(
        ctx,
        entries.map((entry) => grantEvent('credit_grant.expired', entry.grantId, before)),
      );
      await checkWalletBalances(ctx, [...new Set(entries.map((entry) => entry.walletId))]);
      return entries.length;
    });
  }
  return expired;
}
