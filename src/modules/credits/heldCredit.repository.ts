import type { Db } from '../../storage/database.ts';

// Where the account's customers still hold credit they may spend (docs/credits.md, "Consumption order"): the grants
// neither voided nor expired whose journal leaves something to spend.

/** The entry kinds that add to what a grant has left (the rest take from it): credit.ts, remainingOf. */
const ADDING = ['grant', 'release', 'refund_undone'];

/**
 * Every customer and currency in which the customer holds a grant that may still pay (not voided, not expired at
 * `now`, something left by its journal), each once, by customer id. Read without a lock: a hint of where to look,
 * which the consumption reads again under the customer's lock.
 */
export async function listCustomersHoldingCredit(
  db: Db,
  accountId: number,
  now: string,
): Promise<{ customerId: number; currencyCode: string }[]> {
  const rows = await db
    .selectFrom('credit_grants as g')
    .innerJoin('credit_entries as e', (join) =>
      join.onRef('e.grant_id', '=', 'g.id').onRef('e.account_id', '=', 'g.account_id'),
    )
    .select(['g.customer_id', 'g.currency_code'])
    .where('g.account_id', '=', accountId)
    .where('g.voided_at', 'is', null)
    .where((eb) => eb.or([eb('g.expires_at', 'is', null), eb('g.expires_at', '>', now)]))
    .groupBy(['g.id', 'g.customer_id', 'g.currency_code'])
    .having(
      (eb) =>
        eb.fn.sum(
          eb
            .case()
            .when('e.kind', 'in', ADDING)
            .then(eb.ref('e.amount_minor'))
            .else(eb('e.amount_minor', '*', -1))
            .end(),
        ),
      '>',
      0,
    )
    .execute();
  const held = new Map<string, { customerId: number; currencyCode: string }>();
  for (const row of rows) {
    const customerId = Number(row.customer_id);
    held.set(`${customerId} ${row.currency_code}`, { customerId, currencyCode: row.currency_code });
  }
  return [...held.values()].sort(
    (a, b) => a.customerId - b.customerId || (a.currencyCode < b.currencyCode ? -1 : 1),
  );
}
