import Big from 'big.js';
import { nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { Page } from '../../core/paging.ts';
import { addDays, startOfDate } from '../../core/calendar.ts';
import { parseWireDate } from '../../core/wireDates.ts';
import { wireAmountToMinor } from '../../core/money.ts';
import { assertCurrencyEnabled, componentsByIds, packageNamesByIds } from '../catalogue/index.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import * as repo from './coupon.repository.ts';
import type { CouponEdit, CouponFields } from './coupon.repository.ts';
import { COUPON_CODE } from './coupon.ts';
import type { Coupon, CouponDuration } from './coupon.ts';

/** A coupon as a request gives it, read by the schema, before its checks. */
export interface CouponInput {
  code: string;
  name: string;
  percentOff: number | string | null;
  amountOff: number | string | null;
  currencyCode: string | null;
  duration: CouponDuration;
  durationPeriods: number | null;
  redeemBy: string | null;
  maxRedemptions: number | null;
  packageIds: number[] | null;
  componentIds: number[] | null;
  portalRedeemable: boolean;
  isRetention: boolean;
}

export type CouponEditInput = Pick<
  CouponInput,
  'name' | 'redeemBy' | 'maxRedemptions' | 'packageIds' | 'componentIds' | 'portalRedeemable' | 'isRetention'
>;

const couponRef = (id: number) => ({ type: 'coupon', id });

/** The most periods a repeating coupon may discount: a century of monthly periods. */
export const MAX_DURATION_PERIODS = 1200;
const PERCENT = /^\d{1,3}(\.\d{1,2})?$/;

export async function couponsByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, Coupon>> {
  return new Map((await repo.findCoupons(ctx.db, ctx.account.id, ids)).map((coupon) => [coupon.id, coupon]));
}

export async function getCoupon(ctx: ServiceContext, couponId: number): Promise<Coupon> {
  const coupon = (await couponsByIds(ctx, [couponId])).get(couponId);
  if (!coupon) throw new NotFoundError('Coupon', couponId);
  return coupon;
}

/** Whether the account has a live coupon its customers may enter in the portal. */
export function hasPortalCoupons(ctx: ServiceContext): Promise<boolean> {
  return repo.hasPortalCoupons(ctx.db, ctx.account.id);
}

export function listCoupons(
  ctx: ServiceContext,
  filter: { archived: boolean | null },
  page: Page,
): Promise<Coupon[]> {
  return repo.listCoupons(ctx.db, ctx.account.id, filter, page);
}

export async function createCoupon(ctx: ServiceContext, input: CouponInput): Promise<Coupon> {
  const fields = await checkedFields(ctx, input);
  const id = await withTransaction(ctx, async (tctx) => {
    const couponId = await repo.insertCoupon(tctx.db, ctx.account.id, fields, nowInstant(ctx));
    if (couponId === 0) {
      throw new ConflictError('coupon_code_taken', `A coupon with Code ${fields.code} already exists`);
    }
    await emitEvent(tctx, 'coupon.created', couponRef(couponId));
    return couponId;
  });
  return getCoupon(ctx, id);
}

/**
 * Replaces what may change of a coupon: its name, its last day to redeem, its cap, its reach and whether the portal
 * takes it. Its code, discount and duration stay as customers redeemed them (docs/spec-decisions.md, "Coupons").
 */
export async function updateCoupon(
  ctx: ServiceContext,
  couponId: number,
  input: CouponEditInput,
): Promise<Coupon> {
  const current = await getCoupon(ctx, couponId);
  const problems: FieldProblem[] = [];
  const edit = await checkedEdit(ctx, input, problems);
  const belowCount = (count: number) =>
    edit.maxRedemptions !== null && edit.maxRedemptions < count
      ? [{ field: 'MaxRedemptions', message: `must be at least ${count}, the redemptions already made` }]
      : [];
  problems.push(...belowCount(current.redemptionCount));
  if (problems.length > 0) throw new ValidationError(problems);
  await withTransaction(ctx, async (tctx) => {
    const before = await snapshotResource(tctx, couponRef(couponId));
    if (!(await repo.updateCoupon(tctx.db, ctx.account.id, couponId, edit, nowInstant(ctx)))) {
      throw new NotFoundError('Coupon', couponId);
    }
    // The update holds the coupon's row, as a redemption's count does: a redemption made since the check above is
    // seen here, and the limit never falls below the count.
    const [updated] = await repo.findCoupons(tctx.db, ctx.account.id, [couponId]);
    const late = belowCount(updated!.redemptionCount);
    if (late.length > 0) throw new ValidationError(late);
    await emitEvent(tctx, 'coupon.updated', couponRef(couponId), { before });
  });
  return getCoupon(ctx, couponId);
}

/** Archives a coupon: it can no longer be redeemed; its redemptions keep discounting as they were made. */
export async function archiveCoupon(ctx: ServiceContext, couponId: number): Promise<Coupon> {
  await getCoupon(ctx, couponId);
  await withTransaction(ctx, async (tctx) => {
    const before = await snapshotResource(tctx, couponRef(couponId));
    if (await repo.archiveCoupon(tctx.db, ctx.account.id, couponId, nowInstant(ctx))) {
      await emitEvent(tctx, 'coupon.archived', couponRef(couponId), { before });
    }
  });
  return getCoupon(ctx, couponId);
}

/** The coupon's fields, or a 422 naming every field at fault. */
async function checkedFields(ctx: ServiceContext, input: CouponInput): Promise<CouponFields> {
  const problems: FieldProblem[] = [];
  const code = input.code.trim().toUpperCase();
  if (!COUPON_CODE.test(code)) {
    problems.push({
      field: 'Code',
      message: 'must be 1 to 50 letters, digits, - or _, starting with a letter or digit',
    });
  }
  const discount = await checkedDiscount(ctx, input, problems);
  const durationPeriods = checkedDuration(input, problems);
  const edit = await checkedEdit(ctx, input, problems);
  if (problems.length > 0 || discount === null) throw new ValidationError(problems);
  return { ...edit, code, discount, duration: input.duration, durationPeriods };
}

async function checkedDiscount(
  ctx: ServiceContext,
  input: CouponInput,
  problems: FieldProblem[],
): Promise<CouponFields['discount'] | null> {
  const { percentOff, amountOff, currencyCode } = input;
  if ((percentOff === null) === (amountOff === null)) {
    problems.push({ field: 'PercentOff', message: 'give exactly one of PercentOff and AmountOff' });
    return null;
  }
  if (percentOff !== null) {
    const text = String(percentOff).trim();
    if (currencyCode !== null) problems.push({ field: 'CurrencyCode', message: 'only with AmountOff' });
    if (!PERCENT.test(text) || Number(text) <= 0 || Number(text) > 100) {
      problems.push({
        field: 'PercentOff',
        message: 'must be more than 0 and at most 100, with at most 2 decimals',
      });
      return null;
    }
    // "25.00" and "25" are one percentage: stored and shown as "25", on both databases.
    return { kind: 'percent', percentOff: new Big(text).toFixed() };
  }
  if (currencyCode === null) {
    problems.push({ field: 'CurrencyCode', message: 'is required with AmountOff' });
    return null;
  }
  let currency: string;
  try {
    currency = await assertCurrencyEnabled(ctx, currencyCode.trim().toUpperCase(), 'CurrencyCode');
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    problems.push(...error.fields);
    return null;
  }
  const amount = wireAmountToMinor(amountOff!, currency);
  if ('message' in amount) {
    problems.push({ field: 'AmountOff', message: amount.message });
    return null;
  }
  return { kind: 'fixed', amountOffMinor: amount.minor, currencyCode: currency };
}

function checkedDuration(input: CouponInput, problems: FieldProblem[]): number | null {
  if (input.duration !== 'repeating') {
    if (input.durationPeriods !== null) {
      problems.push({ field: 'DurationPeriods', message: 'only with Duration repeating' });
    }
    return null;
  }
  const periods = input.durationPeriods;
  if (periods === null || !Number.isInteger(periods) || periods < 1 || periods > MAX_DURATION_PERIODS) {
    problems.push({
      field: 'DurationPeriods',
      message: `is required with Duration repeating: a whole number from 1 to ${MAX_DURATION_PERIODS}`,
    });
  }
  return periods;
}

/** The fields a PUT may change, checked; problems are added to `problems`. */
async function checkedEdit(
  ctx: ServiceContext,
  input: CouponEditInput,
  problems: FieldProblem[],
): Promise<CouponEdit> {
  const name = input.name.trim();
  if (name === '') problems.push({ field: 'Name', message: 'must not be blank' });
  const redeemBy = input.redeemBy === null ? null : redeemByInstant(ctx, input.redeemBy);
  if (redeemBy === undefined) problems.push({ field: 'RedeemBy', message: 'must be a date or a date-time' });
  if (
    input.maxRedemptions !== null &&
    (!Number.isInteger(input.maxRedemptions) || input.maxRedemptions < 1)
  ) {
    problems.push({ field: 'MaxRedemptions', message: 'must be a whole number of at least 1' });
  }
  const packageIds = input.packageIds === null ? null : [...new Set(input.packageIds)].sort((a, b) => a - b);
  const componentIds =
    input.componentIds === null ? null : [...new Set(input.componentIds)].sort((a, b) => a - b);
  if (packageIds) {
    const found = new Set((await packageNamesByIds(ctx, packageIds)).map((p) => p.id));
    const missing = packageIds.filter((id) => !found.has(id));
    if (missing.length > 0) {
      problems.push({ field: 'AppliesTo.PackageIDs', message: `no package ${missing.join(', ')}` });
    }
  }
  if (componentIds) {
    const found = await componentsByIds(ctx, componentIds);
    const missing = componentIds.filter((id) => !found.has(id));
    if (missing.length > 0) {
      problems.push({ field: 'AppliesTo.ComponentIDs', message: `no component ${missing.join(', ')}` });
    }
  }
  return {
    name,
    redeemBy: redeemBy ?? null,
    maxRedemptions: input.maxRedemptions,
    packageIds,
    componentIds,
    portalRedeemable: input.portalRedeemable,
    isRetention: input.isRetention,
  };
}

/**
 * The last instant a coupon may be redeemed: a date-time as given; a date (YYYY-MM-DD) through its end in the
 * account's time zone, so that "redeem by 31 March" takes redemptions all that day. Undefined when unreadable.
 */
function redeemByInstant(ctx: ServiceContext, text: string): string | undefined {
  const trimmed = text.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(trimmed)) {
    const next = parseWireDate(trimmed, ctx.account.timeZone) && addDays(trimmed, 1);
    return next ? new Date(Date.parse(startOfDate(next, ctx.account.timeZone)) - 1).toISOString() : undefined;
  }
  return parseWireDate(trimmed, ctx.account.timeZone);
}
