import type { Db } from '../../storage/database.ts';
import { findRules, saveRules } from './retention.repository.ts';
import type { RetentionOffer } from './retention.ts';

/** What the catalogue's and the coupons' copies made: each id of the account copied from, mapped to its copy's. */
export interface CopiedOfferTargets {
  coupons: ReadonlyMap<number, number>;
  packages: ReadonlyMap<number, number>;
  packageRateTerms: ReadonlyMap<number, number>;
}

/**
 * Copies an account's cancel reasons and their offers to a new account whose catalogue and coupons were copied
 * before (docs/going-live.md, "Making the live account"), each offer naming the copies. Nothing when the account
 * never set rules: the new one has the defaults too. Whether rules were copied.
 */
export async function copyRetentionRules(
  db: Db,
  fromAccountId: number,
  to: { accountId: number; now: string },
  targets: CopiedOfferTargets,
): Promise<boolean> {
  const found = await findRules(db, fromAccountId);
  if (!found) return false;
  const reasons = found.reasons.map((reason) => ({
    ...reason,
    offers: reason.offers.map((offer) => offerOfCopy(offer, targets)),
  }));
  await saveRules(db, to.accountId, reasons, to.now);
  return true;
}

function offerOfCopy(offer: RetentionOffer, targets: CopiedOfferTargets): RetentionOffer {
  // Every coupon, package and rate term was copied, so each id has its copy (copyAccountRows maps them all).
  const copyOf = (ids: ReadonlyMap<number, number>, id: number): number => ids.get(id)!;
  if (offer.kind === 'coupon') return { ...offer, couponId: copyOf(targets.coupons, offer.couponId) };
  if (offer.kind === 'package') {
    return {
      ...offer,
      packageId: copyOf(targets.packages, offer.packageId),
      packageRateTermId: copyOf(targets.packageRateTerms, offer.packageRateTermId),
    };
  }
  return offer;
}
