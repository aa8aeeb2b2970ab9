import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateOut, Id, Nullable, NullableObject, StringEnum, Text, WireDate } from '../../http/schemas.ts';
import { COUPON_DURATIONS } from './coupon.ts';

const WireDecimal = (description: string) =>
  Type.Unsafe<number | string | null>({ type: ['number', 'string', 'null'], maxLength: 40, description });

const IdList = (description: string) =>
  Type.Optional(
    Type.Unsafe<number[] | null>({
      type: ['array', 'null'],
      items: Id(),
      maxItems: 200,
      description,
    }),
  );

const AppliesTo = Type.Optional(
  NullableObject({
    PackageIDs: IdList('Packages whose subscriptions it discounts (their package lines); null: none named'),
    ComponentIDs: IdList('Components whose usage lines it discounts; null: none named'),
  }),
);

/** What a PUT may change: the rest of a coupon stays as it was redeemed. */
const editable = {
  Name: Text(255, { minLength: 1, description: 'What invoices and lists call the coupon' }),
  RedeemBy: Type.Optional(
    Nullable(
      WireDate({
        description:
          'The last moment it may be redeemed: a date-time, or a date meaning through its end in the account’s ' +
          'time zone; null: no limit. Redemptions made before it keep discounting',
      }),
    ),
  ),
  MaxRedemptions: Type.Optional(
    Nullable(
      // The column is a 32-bit integer on PostgreSQL: a larger limit is refused here rather than by the database.
      Type.Integer({
        minimum: 1,
        maximum: 2_147_483_647,
        description: 'How many redemptions it allows in all; null: no limit',
      }),
    ),
  ),
  AppliesTo,
  PortalRedeemable: Type.Optional(
    Type.Boolean({ description: 'Whether customers may enter its code in the portal (default false)' }),
  ),
  IsRetention: Type.Optional(
    Type.Boolean({
      description:
        "Whether the account's retention rules may offer it to a customer who cancels (default false; " +
        'PUT /v1/account/retention)',
    }),
  ),
};

export const CouponBody = Type.Object({
  Code: Text(50, {
    minLength: 1,
    description: 'What a customer types: letters, digits, - and _, stored in upper case, unique per account',
  }),
  PercentOff: Type.Optional(WireDecimal('A percentage, more than 0 and at most 100 (2 decimals at most)')),
  AmountOff: Type.Optional(WireDecimal('A fixed amount in CurrencyCode, at most its decimals')),
  CurrencyCode: Type.Optional(Nullable(Text(3, { description: 'Required with AmountOff, refused without' }))),
  Duration: StringEnum(COUPON_DURATIONS, {
    description: 'once: one billed period; repeating: DurationPeriods billed periods; forever',
  }),
  DurationPeriods: Type.Optional(Nullable(Type.Integer({ description: 'With repeating only: at least 1' }))),
  ...editable,
});
export type CouponBody = Static<typeof CouponBody>;

export const CouponEditBody = Type.Object(editable);
export type CouponEditBody = Static<typeof CouponEditBody>;

export const CouponOut = Type.Object(
  {
    couponID: Type.Integer(),
    Code: Type.String(),
    Name: Type.String(),
    Kind: Type.String({ description: 'percent or fixed' }),
    PercentOff: Nullable(Type.String({ description: 'The percentage of a percent coupon' })),
    AmountOff: Nullable(Type.String({ description: 'The amount of a fixed coupon, in CurrencyCode' })),
    CurrencyCode: Nullable(Type.String()),
    Duration: Type.String(),
    DurationPeriods: Nullable(Type.Integer()),
    RedeemBy: DateOut(),
    MaxRedemptions: Nullable(Type.Integer()),
    RedemptionCount: Type.Integer({ description: 'Redemptions made, ended ones included' }),
    AppliesTo: NullableObject({
      PackageIDs: Type.Unsafe<number[] | null>({ type: ['array', 'null'], items: { type: 'integer' } }),
      ComponentIDs: Type.Unsafe<number[] | null>({ type: ['array', 'null'], items: { type: 'integer' } }),
    }),
    PortalRedeemable: Type.Boolean(),
    IsRetention: Type.Boolean(),
    Archived: Type.Boolean({
      description: 'Archived coupons cannot be redeemed; their redemptions still apply',
    }),
    ArchivedAt: DateOut(),
    CreatedAt: DateOut(),
    UpdatedAt: DateOut(),
  },
  { $id: 'Coupon' },
);

export const RedemptionOut = Type.Object(
  {
    couponRedemptionID: Type.Integer(),
    couponID: Type.Integer(),
    Code: Type.String(),
    Name: Type.String(),
    customerID: Type.Integer(),
    subscriptionID: Nullable(Type.Integer({ description: 'Null: every subscription of the customer' })),
    RedeemedOn: Type.String({
      format: 'date',
      description: 'It discounts invoices dated on or after this day',
    }),
    PeriodsUsed: Type.Integer({ description: 'Billed periods it has discounted' }),
    PeriodsLeft: Nullable(
      Type.Integer({ description: 'Billed periods it will still discount; null: for ever' }),
    ),
    Ended: Type.Boolean({ description: 'Ended (DELETE) or used up: it discounts no later invoice' }),
    EndedAt: DateOut(),
    CreatedAt: DateOut(),
  },
  { $id: 'CouponRedemption' },
);

export const RedeemBody = Type.Object({ Code: Text(50, { minLength: 1, description: 'The coupon’s code' }) });
export type RedeemBody = Static<typeof RedeemBody>;

export const CouponParams = Type.Object({ couponID: Id() });
export const CouponListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 100 })),
  archived: Type.Optional(
    Type.Boolean({ description: 'true: archived only; false: live only; left out: all' }),
  ),
});
export const CustomerParams = Type.Object({ customerID: Id() });
export const CustomerRedemptionParams = Type.Object({ customerID: Id(), couponRedemptionID: Id() });
