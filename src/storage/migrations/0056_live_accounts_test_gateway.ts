import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // A live account never collects through the built-in test gateway, which moves no money (docs/gateways.md, "Live
  // means live"): a live account's is disabled and stops being its primary. Collections it would have made are
  // held with a CollectionProblem and the staff told, until a live gateway is added; a staging deployment that
  // sets TEST_GATEWAY_ON_LIVE_ACCOUNTS enables it again with `billing gateway enable` and `billing gateway primary`.
  await db
    .updateTable('gateways')
    .set({ is_enabled: false, is_primary: false })
    .where('gateway_type', '=', 'test')
    .where('account_id', 'in', db.selectFrom('accounts').select('id').where('is_test', '=', false))
    .execute();
}
