import { nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { packagesByIds } from '../catalogue/index.ts';
import { couponsByIds } from '../coupons/index.ts';
import * as repo from './retention.repository.ts';
import {
  DEFAULT_CANCEL_REASONS,
  MAX_LABEL,
  MAX_OFFERS_PER_REASON,
  MAX_REASONS,
  OFFER_KINDS,
  OTHER_REASON,
  REASON_CODE,
} from './retention.ts';
import type { CancelReason, OfferKind, RetentionOffer, RetentionRules } from './retention.ts';

/** The account's rules, or the portal's default reasons with no offers when it never set any. */
export async function getRetentionRules(ctx: ServiceContext): Promise<RetentionRules> {
  const stored = await repo.findRules(ctx.db, ctx.account.id);
  return stored ?? { reasons: DEFAULT_CANCEL_REASONS.map((r) => ({ ...r, offers: [] })), updatedAt: null };
}

/** An offer as the request wrote it, before its kind says which fields it needs. */
export interface OfferInput {
  kind: string;
  couponId?: number | null;
  packageId?: number | null;
  packageRateTermId?: number | null;
}

export interface ReasonInput {
  code: string;
  label: string;
  offers: OfferInput[];
}

/**
 * Replaces the account's rules (PUT /v1/account/retention): every reason's code unique, `other` among them, and
 * each offer one the account may make: a live coupon marked IsRetention, a rate term of one of its packages, or a
 * pause. A problem names the field as the request wrote it (`Reasons[1].Offers[0].couponID`).
 */
export async function setRetentionRules(ctx: ServiceContext, input: ReasonInput[]): Promise<RetentionRules> {
  const problems: FieldProblem[] = [];
  const offers: { offer: RetentionOffer; field: string }[] = [];
  const reasons = checkReasons(input, problems, offers);
  await checkOffers(ctx, offers, problems);
  if (problems.length > 0) throw new ValidationError(problems);
  return withTransaction(ctx, async (tctx) => {
    const at = nowInstant(tctx);
    await repo.saveRules(tctx.db, ctx.account.id, reasons, at);
    return { reasons, updatedAt: at };
  });
}

/** The reasons as saved; each offer read is also added to `offers` with its field, for checkOffers. */
function checkReasons(
  input: ReasonInput[],
  problems: FieldProblem[],
  offers: { offer: RetentionOffer; field: string }[],
): CancelReason[] {
  if (input.length === 0 || input.length > MAX_REASONS) {
    problems.push({ field: 'Reasons', message: `must list 1 to ${MAX_REASONS} reasons` });
  }
  const seen = new Set<string>();
  const reasons = input.map((reason, i) => {
    const code = reason.code.trim();
    const label = reason.label.replace(/\s+/g, ' ').trim();
    if (!REASON_CODE.test(code)) {
      problems.push({ field: `Reasons[${i}].Code`, message: 'must be 1 to 40 of a-z, 0-9 and _' });
    } else if (seen.has(code)) {
      problems.push({ field: `Reasons[${i}].Code`, message: `${code} is listed twice` });
    }
    seen.add(code);
    if (label.length === 0 || label.length > MAX_LABEL) {
      problems.push({ field: `Reasons[${i}].Label`, message: `must be 1 to ${MAX_LABEL} characters` });
    }
    if (reason.offers.length > MAX_OFFERS_PER_REASON) {
      problems.push({
        field: `Reasons[${i}].Offers`,
        message: `must list at most ${MAX_OFFERS_PER_REASON} offers`,
      });
    }
    const read = reason.offers.flatMap((input, j) => {
      const field = `Reasons[${i}].Offers[${j}]`;
      const offer = offerOf(input, field, problems);
      return offer ? [{ offer, field }] : [];
    });
    offers.push(...read);
    return { code, label, offers: read.map(({ offer }) => offer) };
  });
  if (input.length > 0 && !seen.has(OTHER_REASON)) {
    problems.push({ field: 'Reasons', message: `must include the reason ${OTHER_REASON}` });
  }
  return reasons;
}

/** The offer its kind describes, or undefined with a problem naming what is missing or left over. */
function offerOf(input: OfferInput, field: string, problems: FieldProblem[]): RetentionOffer | undefined {
  if (!(OFFER_KINDS as readonly string[]).includes(input.kind)) {
    problems.push({ field: `${field}.Kind`, message: `must be one of ${OFFER_KINDS.join(', ')}` });
    return undefined;
  }
  const kind = input.kind as OfferKind;
  const wanted: readonly string[] = {
    coupon: ['couponID'],
    package: ['packageID', 'packageRateTermID'],
    pause: [],
  }[kind];
  const given: Record<string, number | null | undefined> = {
    couponID: input.couponId,
    packageID: input.packageId,
    packageRateTermID: input.packageRateTermId,
  };
  let complete = true;
  for (const [name, value] of Object.entries(given)) {
    const needed = wanted.includes(name);
    if (needed && (value === undefined || value === null)) {
      problems.push({ field: `${field}.${name}`, message: `is required with Kind ${kind}` });
      complete = false;
    } else if (!needed && value !== undefined && value !== null) {
      problems.push({ field: `${field}.${name}`, message: `is refused with Kind ${kind}` });
    }
  }
  if (!complete) return undefined;
  if (kind === 'coupon') return { kind, couponId: input.couponId! };
  if (kind === 'package') {
    return { kind, packageId: input.packageId!, packageRateTermId: input.packageRateTermId! };
  }
  return { kind };
}

/** Each offer's coupon or package checked against the account's own: another account's is as unknown. */
async function checkOffers(
  ctx: ServiceContext,
  offers: { offer: RetentionOffer; field: string }[],
  problems: FieldProblem[],
): Promise<void> {
  const couponIds = offers.flatMap(({ offer }) => (offer.kind === 'coupon' ? [offer.couponId] : []));
  const packageIds = offers.flatMap(({ offer }) => (offer.kind === 'package' ? [offer.packageId] : []));
  const coupons = await couponsByIds(ctx, couponIds);
  const packages = await packagesByIds(ctx, packageIds);
  for (const { offer, field } of offers) {
    if (offer.kind === 'coupon') {
      const coupon = coupons.get(offer.couponId);
      if (!coupon) problems.push({ field: `${field}.couponID`, message: `no coupon ${offer.couponId}` });
      else if (!coupon.isRetention) {
        problems.push({
          field: `${field}.couponID`,
          message: `coupon ${coupon.code} is not marked IsRetention`,
        });
      } else if (coupon.archivedAt !== null) {
        problems.push({ field: `${field}.couponID`, message: `coupon ${coupon.code} is archived` });
      }
    } else if (offer.kind === 'package') {
      const pkg = packages.get(offer.packageId);
      const terms = pkg?.versions.flatMap((v) => v.rates.flatMap((r) => r.terms.map((t) => t.id))) ?? [];
      if (!pkg) problems.push({ field: `${field}.packageID`, message: `no package ${offer.packageId}` });
      else if (!terms.includes(offer.packageRateTermId)) {
        problems.push({
          field: `${field}.packageRateTermID`,
          message: `no rate term ${offer.packageRateTermId} of package ${pkg.id}`,
        });
      }
    }
  }
}
