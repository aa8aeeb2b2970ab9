import type { PlainDate } from '../../core/calendar.ts';
import type { Db } from '../../storage/database.ts';

/** A pause a customer made itself (docs/portal.md, "Pausing"). */
export interface NewSelfPause {
  subscriptionId: number;
  source: 'portal' | 'retention';
  pauseDate: PlainDate;
  resumeDate: PlainDate;
  madeOn: PlainDate;
}

export async function insertSelfPause(
  db: Db,
  accountId: number,
  pause: NewSelfPause,
  at: string,
): Promise<void> {
  await db
    .insertInto('subscription_self_pauses')
    .values({
      account_id: accountId,
      subscription_id: pause.subscriptionId,
      source: pause.source,
      pause_date: pause.pauseDate,
      resume_date: pause.resumeDate,
      made_on: pause.madeOn,
      created_at: at,
    })
    .execute();
}

/** How many pauses of the subscription its customer made on `since` or later. */
export async function countSelfPausesSince(
  db: Db,
  accountId: number,
  subscriptionId: number,
  since: PlainDate,
): Promise<number> {
  const row = await db
    .selectFrom('subscription_self_pauses')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('made_on', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
