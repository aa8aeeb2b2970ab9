import type { Db } from '../../storage/database.ts';

/**
 * The account's customers with these References (unique per account), keyed by Reference: how a usage event
 * names its customer by the business's own key (docs/usage.md, "Sending events").
 */
export async function customerIdsByReferences(
  db: Db,
  accountId: number,
  references: readonly string[],
): Promise<Map<string, number>> {
  if (references.length === 0) return new Map();
  const rows = await db
    .selectFrom('customers')
    .select(['id', 'reference'])
    .where('account_id', '=', accountId)
    .where('reference', 'in', [...new Set(references)])
    .execute();
  return new Map(rows.map((row) => [row.reference!, Number(row.id)]));
}
