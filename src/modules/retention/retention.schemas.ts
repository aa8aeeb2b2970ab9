import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateOut, Id, Nullable, NullableObject, Text, WireDate } from '../../http/schemas.ts';

const OfferIn = Type.Object({
  Kind: Text(20, { minLength: 1, description: 'coupon, package or pause' }),
  couponID: Type.Optional(Nullable(Id({ description: 'With coupon: a live coupon marked IsRetention' }))),
  packageID: Type.Optional(Nullable(Id({ description: 'With package: the package to move to' }))),
  packageRateTermID: Type.Optional(
    Nullable(Id({ description: 'With package: the rate term of that package, in the currency it is for' })),
  ),
});

export const RetentionRulesBody = Type.Object({
  Reasons: Type.Array(
    Type.Object({
      Code: Text(40, {
        minLength: 1,
        description: 'What the records keep: a-z, 0-9 and _; one must be other',
      }),
      Label: Text(100, { minLength: 1, description: 'What the portal shows' }),
      Offers: Type.Optional(
        Type.Array(OfferIn, {
          maxItems: 20,
          description: 'In order: the portal shows the first one the subscription can take',
        }),
      ),
    }),
    { maxItems: 100 },
  ),
});
export type RetentionRulesBody = Static<typeof RetentionRulesBody>;

const offerOutFields = {
  Kind: Type.String(),
  couponID: Nullable(Type.Integer()),
  packageID: Nullable(Type.Integer()),
  packageRateTermID: Nullable(Type.Integer()),
};
const OfferOut = Type.Object(offerOutFields);

export const RetentionRulesOut = Type.Object(
  {
    Reasons: Type.Array(
      Type.Object({ Code: Type.String(), Label: Type.String(), Offers: Type.Array(OfferOut) }),
    ),
    UpdatedAt: { ...DateOut(), description: 'Null: never set; these are the portal’s default reasons' },
  },
  { $id: 'RetentionRules' },
);

export const RetentionReportQuery = Type.Object({
  from: WireDate({ description: 'The first day of the report (inclusive)' }),
  to: WireDate({ description: 'The last day of the report (inclusive)' }),
});
export type RetentionReportQuery = Static<typeof RetentionReportQuery>;

const Kinds = (description: string) =>
  Type.Object({ coupon: Type.Integer(), package: Type.Integer(), pause: Type.Integer() }, { description });

export const RetentionReportOut = Type.Object(
  {
    From: Type.String({ format: 'date' }),
    To: Type.String({ format: 'date' }),
    Months: Type.Array(
      Type.Object({
        Month: Type.String({ description: 'YYYY-MM, in the account’s time zone' }),
        Cancels: Type.Integer({ description: 'Cancellations made in the portal' }),
        CancelsByReason: Type.Array(Type.Object({ Reason: Type.String(), Count: Type.Integer() })),
        OffersShown: Kinds('Offers shown, by kind'),
        OffersTaken: Kinds('Offers taken, by kind'),
        OffersDeclined: Kinds('Offers declined (cancel anyway), by kind'),
        Kept: Type.Integer({
          description:
            'Offers taken in the month whose subscription was not cancelled within 30 days of the take',
        }),
        KeptPending: Type.Integer({
          description: 'Offers taken in the month, not cancelled so far, whose 30 days have not all passed',
        }),
      }),
    ),
  },
  { $id: 'RetentionReport' },
);

export const RetentionEventOut = Type.Object({
  retentionEventID: Type.Integer(),
  subscriptionID: Type.Integer(),
  customerID: Type.Integer(),
  Reason: Type.String(),
  Offer: NullableObject(offerOutFields),
  Date: Type.String({ format: 'date' }),
});
