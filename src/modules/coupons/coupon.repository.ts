import type { Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { isPostgres } from '../../storage/columns.ts';
import type { Page } from '../../core/paging.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { CouponRedemptionsTable, CouponsTable } from './tables.ts';
import type { Coupon, CouponDiscount, CouponDuration, CouponRedemption } from './coupon.ts';

const COUPON_COLUMNS = [
  'id',
  'code',
  'name',
  'discount_kind',
  'percent_off',
  'amount_off_minor',
  'currency_code',
  'duration',
  'duration_periods',
  'redeem_by',
  'max_redemptions',
  'redemption_count',
  'package_ids',
  'component_ids',
  'portal_redeemable',
  'is_retention',
  'archived_at',
  'created_at',
  'updated_at',
] as const;

type CouponRow = Pick<Selectable<CouponsTable>, (typeof COUPON_COLUMNS)[number]>;

const REDEMPTION_COLUMNS = [
  'id',
  'coupon_id',
  'customer_id',
  'subscription_id',
  'redeemed_on',
  'periods_used',
  'ended_at',
  'created_at',
] as const;

type RedemptionRow = Pick<Selectable<CouponRedemptionsTable>, (typeof REDEMPTION_COLUMNS)[number]>;

function idsFrom(text: string | null): number[] | null {
  return text === null ? null : (JSON.parse(text) as number[]);
}

function discountFrom(row: CouponRow): CouponDiscount {
  return row.discount_kind === 'percent'
    ? { kind: 'percent', percentOff: String(row.percent_off) }
    : { kind: 'fixed', amountOffMinor: Number(row.amount_off_minor), currencyCode: row.currency_code! };
}

function couponFromRow(row: CouponRow): Coupon {
  return {
    id: Number(row.id),
    code: row.code,
    name: row.name,
    discount: discountFrom(row),
    duration: row.duration as CouponDuration,
    durationPeriods: row.duration_periods === null ? null : Number(row.duration_periods),
    redeemBy: row.redeem_by,
    maxRedemptions: row.max_redemptions === null ? null : Number(row.max_redemptions),
    redemptionCount: Number(row.redemption_count),
    packageIds: idsFrom(row.package_ids),
    componentIds: idsFrom(row.component_ids),
    portalRedeemable: Boolean(row.portal_redeemable),
    isRetention: Boolean(row.is_retention),
    archivedAt: row.archived_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function redemptionFromRow(row: RedemptionRow): CouponRedemption {
  return {
    id: Number(row.id),
    couponId: Number(row.coupon_id),
    customerId: Number(row.customer_id),
    subscriptionId: row.subscription_id === null ? null : Number(row.subscription_id),
    redeemedOn: row.redeemed_on,
    periodsUsed: Number(row.periods_used),
    endedAt: row.ended_at,
    createdAt: row.created_at,
  };
}

/** What a coupon is made with; what a PUT may change is `CouponEdit`. */
export interface CouponFields {
  code: string;
  name: string;
  discount: CouponDiscount;
  duration: CouponDuration;
  durationPeriods: number | null;
  redeemBy: string | null;
  maxRedemptions: number | null;
  packageIds: number[] | null;
  componentIds: number[] | null;
  portalRedeemable: boolean;
  isRetention: boolean;
}

/** A coupon's terms stay as redeemed (its discount and duration); its name, limits and reach may change. */
export type CouponEdit = Pick<
  CouponFields,
  'name' | 'redeemBy' | 'maxRedemptions' | 'packageIds' | 'componentIds' | 'portalRedeemable' | 'isRetention'
>;

const idsText = (ids: number[] | null) => (ids === null ? null : JSON.stringify(ids));

export async function insertCoupon(
  db: Db,
  accountId: number,
  fields: CouponFields,
  at: string,
): Promise<number> {
  const inserted = await db
    .insertInto('coupons')
    .values({
      account_id: accountId,
      code: fields.code,
      name: fields.name,
      discount_kind: fields.discount.kind,
      percent_off: fields.discount.kind === 'percent' ? fields.discount.percentOff : null,
      amount_off_minor: fields.discount.kind === 'fixed' ? fields.discount.amountOffMinor : null,
      currency_code: fields.discount.kind === 'fixed' ? fields.discount.currencyCode : null,
      duration: fields.duration,
      duration_periods: fields.durationPeriods,
      redeem_by: fields.redeemBy,
      max_redemptions: fields.maxRedemptions,
      redemption_count: 0,
      package_ids: idsText(fields.packageIds),
      component_ids: idsText(fields.componentIds),
      portal_redeemable: fields.portalRedeemable,
      is_retention: fields.isRetention,
      archived_at: null,
      created_at: at,
      updated_at: at,
    })
    .onConflict((oc) => oc.columns(['account_id', 'code']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted === undefined ? 0 : Number(inserted.id);
}

export async function updateCoupon(
  db: Db,
  accountId: number,
  couponId: number,
  edit: CouponEdit,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('coupons')
    .set({
      name: edit.name,
      redeem_by: edit.redeemBy,
      max_redemptions: edit.maxRedemptions,
      package_ids: idsText(edit.packageIds),
      component_ids: idsText(edit.componentIds),
      portal_redeemable: edit.portalRedeemable,
      is_retention: edit.isRetention,
      updated_at: at,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', couponId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Archives a live coupon: whether this call did. */
export async function archiveCoupon(
  db: Db,
  accountId: number,
  couponId: number,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('coupons')
    .set({ archived_at: at, updated_at: at })
    .where('account_id', '=', accountId)
    .where('id', '=', couponId)
    .where('archived_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function findCoupons(db: Db, accountId: number, ids: readonly number[]): Promise<Coupon[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('coupons')
    .select(COUPON_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', [...new Set(ids)])
    .orderBy('id')
    .execute();
  return rows.map(couponFromRow);
}

export async function hasPortalCoupons(db: Db, accountId: number): Promise<boolean> {
  const row = await db
    .selectFrom('coupons')
    .select('id')
    .where('account_id', '=', accountId)
    .where('portal_redeemable', '=', true)
    .where('archived_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function findCouponByCode(db: Db, accountId: number, code: string): Promise<Coupon | undefined> {
  const row = await db
    .selectFrom('coupons')
    .select(COUPON_COLUMNS)
    .where('account_id', '=', accountId)
    .where('code', '=', code)
    .executeTakeFirst();
  return row && couponFromRow(row);
}

export async function listCoupons(
  db: Db,
  accountId: number,
  filter: { archived: boolean | null },
  page: Page,
): Promise<Coupon[]> {
  const rows = await db
    .selectFrom('coupons')
    .select(COUPON_COLUMNS)
    .where('account_id', '=', accountId)
    .$if(filter.archived === true, (qb) => qb.where('archived_at', 'is not', null))
    .$if(filter.archived === false, (qb) => qb.where('archived_at', 'is', null))
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(couponFromRow);
}

/**
 * Counts one redemption, unless the coupon has reached its MaxRedemptions: one conditional statement decides, so
 * that concurrent redemptions never count past the limit on either database (docs/credits.md, "Coupons").
 */
export async function countRedemption(db: Db, accountId: number, couponId: number): Promise<boolean> {
  const result = await db
    .updateTable('coupons')
    .set((eb) => ({ redemption_count: eb('redemption_count', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('id', '=', couponId)
    .where((eb) =>
      eb.or([eb('max_redemptions', 'is', null), eb('redemption_count', '<', eb.ref('max_redemptions'))]),
    )
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function insertRedemption(
  db: Db,
  accountId: number,
  redemption: { couponId: number; customerId: number; subscriptionId: number | null; redeemedOn: PlainDate },
  at: string,
): Promise<number> {
  const inserted = await db
    .insertInto('coupon_redemptions')
    .values({
      account_id: accountId,
      coupon_id: redemption.couponId,
      customer_id: redemption.customerId,
      subscription_id: redemption.subscriptionId,
      redeemed_on: redemption.redeemedOn,
      periods_used: 0,
      ended_at: null,
      created_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(inserted.id);
}

const redemptions = (db: Db, accountId: number) =>
  db.selectFrom('coupon_redemptions').select(REDEMPTION_COLUMNS).where('account_id', '=', accountId);

export async function findRedemptions(
  db: Db,
  accountId: number,
  ids: readonly number[],
): Promise<CouponRedemption[]> {
  if (ids.length === 0) return [];
  const rows = await redemptions(db, accountId)
    .where('id', 'in', [...new Set(ids)])
    .orderBy('id')
    .execute();
  return rows.map(redemptionFromRow);
}

/** The redemptions made on the customer itself, or on one subscription (every one, ended too), by id. */
export async function listRedemptionsOf(
  db: Db,
  accountId: number,
  target: { customerId: number } | { subscriptionId: number },
  page: Page,
): Promise<CouponRedemption[]> {
  const rows = await redemptions(db, accountId)
    .$if('customerId' in target, (qb) =>
      qb
        .where('customer_id', '=', (target as { customerId: number }).customerId)
        .where('subscription_id', 'is', null),
    )
    .$if('subscriptionId' in target, (qb) =>
      qb.where('subscription_id', '=', (target as { subscriptionId: number }).subscriptionId),
    )
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(redemptionFromRow);
}

/** Whether the coupon already has a live redemption on the same customer (itself) or subscription. */
export async function hasLiveRedemption(
  db: Db,
  accountId: number,
  couponId: number,
  target: { customerId: number; subscriptionId: number | null },
): Promise<boolean> {
  const row = await redemptions(db, accountId)
    .where('coupon_id', '=', couponId)
    .where('customer_id', '=', target.customerId)
    .where('ended_at', 'is', null)
    .$if(target.subscriptionId === null, (qb) => qb.where('subscription_id', 'is', null))
    .$if(target.subscriptionId !== null, (qb) => qb.where('subscription_id', '=', target.subscriptionId!))
    .executeTakeFirst();
  return row !== undefined;
}

export async function endRedemption(
  db: Db,
  accountId: number,
  redemptionId: number,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('coupon_redemptions')
    .set({ ended_at: at })
    .where('account_id', '=', accountId)
    .where('id', '=', redemptionId)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * The live redemptions that may discount these subscriptions' invoices: each one's own, and their customers'.
 * Held until the caller's transaction ends (on PostgreSQL; an SQLite transaction holds the database), so that two
 * bill runs never both count the same period left.
 */
export async function lockLiveRedemptionsFor(
  db: Db,
  accountId: number,
  targets: { customerIds: readonly number[]; subscriptionIds: readonly number[] },
): Promise<CouponRedemption[]> {
  if (targets.customerIds.length === 0) return [];
  const rows = await redemptions(db, accountId)
    .where('ended_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb.and([
          eb('customer_id', 'in', [...new Set(targets.customerIds)]),
          eb('subscription_id', 'is', null),
        ]),
        ...(targets.subscriptionIds.length === 0
          ? []
          : [eb('subscription_id', 'in', [...new Set(targets.subscriptionIds)])]),
      ]),
    )
    .orderBy('id')
    .$if(isPostgres(db), (qb) => qb.forUpdate())
    .execute();
  return rows.map(redemptionFromRow);
}

/** Adds the periods billing used to each redemption. */
export async function addPeriodsUsed(
  db: Db,
  accountId: number,
  uses: readonly { redemptionId: number; periods: number }[],
): Promise<void> {
  for (const use of uses) {
    await db
      .updateTable('coupon_redemptions')
      .set((eb) => ({ periods_used: eb('periods_used', '+', use.periods) }))
      .where('account_id', '=', accountId)
      .where('id', '=', use.redemptionId)
      .execute();
  }
}
