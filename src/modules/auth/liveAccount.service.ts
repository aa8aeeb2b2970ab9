import { ConflictError } from '../../errors.ts';
import type { ServiceContext } from '../../context.ts';
import { assertTestAccount } from './account.service.ts';
import { copyAccountSettings, lockLiveAccountOf, recordLiveAccount } from './accountCopy.repository.ts';

/**
 * Checks that the context's account is a test account not yet made live, and holds its row until the transaction
 * ends (docs/spec-decisions.md, "Going live"): a second go-live is refused with the live account the first made.
 */
export async function lockTestAccountForGoLive(ctx: ServiceContext): Promise<void> {
  assertTestAccount(ctx.account, 'can be made live');
  const liveAccountId = await lockLiveAccountOf(ctx.db, ctx.account.id);
  if (liveAccountId !== null) {
    throw new ConflictError(
      'account_already_live',
      `Test account ${ctx.account.id} was made live already, as account ${liveAccountId}: use that account ` +
        `(a new key: billing key create --account ${liveAccountId})`,
    );
  }
}

/** The test account's settings, seller details and logo given to its new live account. */
export function copyAccountSettingsTo(
  ctx: ServiceContext,
  live: { accountId: number; now: string },
  packages: ReadonlyMap<number, number>,
): Promise<void> {
  return copyAccountSettings(ctx.db, ctx.memory, ctx.account.id, live, packages);
}

/** Remembers which live account the test account was made live as. */
export function recordLiveAccountOf(ctx: ServiceContext, liveAccountId: number): Promise<void> {
  return recordLiveAccount(ctx.db, ctx.account.id, liveAccountId);
}
