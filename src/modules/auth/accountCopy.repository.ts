import type { Kysely } from 'kysely';
import type { ServiceMemory } from '../../context.ts';
import type { Db } from '../../storage/database.ts';
import { isPostgres } from '../../storage/columns.ts';
import { mappedIdList } from '../../storage/accountRows.ts';
import type { CopiedRow } from '../../storage/accountRows.ts';
import { credentialsChanged } from './credentialsCache.ts';

/**
 * What an account row holds that is the account itself rather than a setting: its identity, its clock, its portal
 * address (one account's alone) and the live account it was made live as.
 */
const NOT_SETTINGS = new Set([
  'id',
  'name',
  'created_at',
  'is_test',
  'test_clock_at',
  'portal_slug',
  'portal_epoch',
  'live_account_id',
]);

/**
 * The test account's row, locked until the transaction ends, with the live account it was already made live as
 * (null if none): two go-lives at once wait for each other here, and the second finds the first one's.
 */
export async function lockLiveAccountOf(db: Db, testAccountId: number): Promise<number | null> {
  const row = await db
    .selectFrom('accounts')
    .select('live_account_id')
    .where('id', '=', testAccountId)
    .$if(isPostgres(db), (query) => query.forUpdate())
    .executeTakeFirstOrThrow();
  return row.live_account_id;
}

export async function recordLiveAccount(db: Db, testAccountId: number, liveAccountId: number): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ live_account_id: liveAccountId })
    .where('id', '=', testAccountId)
    .execute();
}

/**
 * Gives a new account every setting, seller detail and the logo of another (docs/going-live.md, "Making the live
 * account"). NOTE: the row is read whole, so that a setting a later migration adds is copied without anyone
 * remembering to (storage/accountRows.ts, copyAccountRows); the packages portal customers may switch to are the
 * copies of the packages named.
 */
export async function copyAccountSettings(
  db: Db,
  memory: ServiceMemory,
  fromAccountId: number,
  to: { accountId: number; now: string },
  packages: ReadonlyMap<number, number>,
): Promise<void> {
  // NOTE: every column, which Kysely's types cannot name; only this module's table is read.
  const loose = db as unknown as Kysely<Record<string, CopiedRow>>;
  const row = (await loose
    .selectFrom('accounts')
    .selectAll()
    .where('id', '=', fromAccountId)
    .executeTakeFirstOrThrow()) as CopiedRow;
  const settings = Object.fromEntries(Object.entries(row).filter(([column]) => !NOT_SETTINGS.has(column)));
  settings.portal_switch_package_ids = mappedIdList(row.portal_switch_package_ids, packages) ?? '[]';
  await loose.updateTable('accounts').set(settings).where('id', '=', to.accountId).execute();
  const logo = await db
    .selectFrom('account_logos')
    .select(['content_type', 'image'])
    .where('account_id', '=', fromAccountId)
    .executeTakeFirst();
  if (logo) {
    await db
      .insertInto('account_logos')
      .values({
        account_id: to.accountId,
        content_type: logo.content_type,
        image: logo.image,
        updated_at: to.now,
      })
      .execute();
  }
  await credentialsChanged(db, memory);
}
