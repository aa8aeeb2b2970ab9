import type { Kysely } from 'kysely';
import { sql } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // A subscription billing usage read from events keeps the day it stops as its next invoice date until an invoice
  // dated then bills its last period's usage (docs/spec-decisions.md, "Usage billed from events"). Those the bill run had already finished with before that rule were left
  // with no next invoice date, their last period's usage unbilled: each is made due on its stop day again. The bill
  // run then reads that usage from the events and bills it, or, finding nothing left, clears the date.
  const stop = sql`case
    when cancel_date is null then end_date
    when end_date is null or cancel_date < end_date then cancel_date
    else end_date
  end`;
  await db
    .updateTable('subscriptions')
    .set({ next_inv_date: stop })
    .where('next_inv_date', 'is', null)
    .where((eb) => eb.or([eb('cancel_date', 'is not', null), eb('end_date', 'is not', null)]))
    // One that stops on or before its start has no usage period.
    .where(sql<boolean>`${stop} > start_date`)
    .where((eb) => eb.or([eb('last_inv_date', 'is', null), eb('last_inv_date', '<', stop)]))
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('subscription_components')
          .innerJoin(
            'component_versions',
            'component_versions.id',
            'subscription_components.component_version_id',
          )
          .innerJoin('components', 'components.id', 'component_versions.component_id')
          .select(sql`1`.as('one'))
          .whereRef('subscription_components.subscription_id', '=', 'subscriptions.id')
          .where('components.metric_id', 'is not', null),
      ),
    )
    .execute();
}
