import type { Db } from '../../storage/database.ts';
import { copyAccountRows, mappedIdList } from '../../storage/accountRows.ts';

/**
 * Copies an account's coupons to a new account whose catalogue was copied before (docs/going-live.md, "Making the
 * live account"): the packages and components a coupon is restricted to are the copies', and no coupon has been
 * redeemed there yet. Archived coupons are copied archived, so that their codes stay as they were. Each coupon's id
 * mapped to its copy's.
 */
export async function copyCoupons(
  db: Db,
  fromAccountId: number,
  to: { accountId: number; now: string },
  catalogue: { packages: ReadonlyMap<number, number>; components: ReadonlyMap<number, number> },
): Promise<ReadonlyMap<number, number>> {
  const copied = await copyAccountRows(db, 'coupons', { accountId: fromAccountId }, to, {
    change: (row) => ({
      redemption_count: 0,
      package_ids: mappedIdList(row.package_ids, catalogue.packages),
      component_ids: mappedIdList(row.component_ids, catalogue.components),
    }),
  });
  return copied;
}
