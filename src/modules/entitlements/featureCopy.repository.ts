import type { Db } from '../../storage/database.ts';
import { copyAccountRows } from '../../storage/accountRows.ts';

/**
 * Copies an account's features and the values its packages give them to a new account whose catalogue was copied
 * before (docs/going-live.md, "Making the live account"); values set on one subscription stay behind with it.
 */
export async function copyFeatures(
  db: Db,
  fromAccountId: number,
  to: { accountId: number; now: string },
  catalogue: { packages: ReadonlyMap<number, number>; billableMetrics: ReadonlyMap<number, number> },
): Promise<number> {
  const from = { accountId: fromAccountId };
  const features = await copyAccountRows(db, 'features', from, to, {
    references: { metric_id: catalogue.billableMetrics },
  });
  await copyAccountRows(db, 'feature_values', from, to, {
    only: (row) => row.subscription_id === null,
    references: { feature_id: features, package_id: catalogue.packages },
  });
  return features.size;
}
