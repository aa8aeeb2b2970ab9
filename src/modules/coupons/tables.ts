import type { Decimal, Id, Instant, PlainDateColumn, SqlBool } from '../../storage/columnTypes.ts';

/** A coupon of an account (docs/credits.md, "Coupons"). */
export interface CouponsTable {
  id: Id;
  account_id: number;
  code: string;
  name: string;
  /** percent | fixed */
  discount_kind: string;
  percent_off: Decimal | null;
  amount_off_minor: number | null;
  currency_code: string | null;
  /** once | repeating | forever */
  duration: string;
  duration_periods: number | null;
  redeem_by: Instant | null;
  max_redemptions: number | null;
  redemption_count: number;
  /** JSON arrays of ids, or null: no restriction. */
  package_ids: string | null;
  component_ids: string | null;
  portal_redeemable: SqlBool;
  /** Offered to customers who cancel, by the account's retention rules (0074). */
  is_retention: SqlBool;
  archived_at: Instant | null;
  created_at: Instant;
  updated_at: Instant;
}

/** A coupon redeemed on a customer (subscription_id null) or on one subscription. */
export interface CouponRedemptionsTable {
  id: Id;
  account_id: number;
  coupon_id: number;
  customer_id: number;
  subscription_id: number | null;
  redeemed_on: PlainDateColumn;
  periods_used: number;
  ended_at: Instant | null;
  created_at: Instant;
}

/** The coupons module's tables, as Kysely's Database type holds them. */
export interface CouponsTables {
  coupons: CouponsTable;
  coupon_redemptions: CouponRedemptionsTable;
}
