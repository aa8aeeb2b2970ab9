import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateOut, Id, Nullable, StringEnum, Text } from '../../http/schemas.ts';
import { FEATURE_TYPES } from './feature.ts';

/** A feature's code names it in URLs (`…/entitlements/{featureCode}`), so it keeps to URL-safe characters. */
export const FeatureCode = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[A-Za-z0-9_.:-]+$',
  description: 'Unique per account; letters, digits and _ . : -',
});

/** An exact decimal out: a string, so that no digit is lost to a binary double. */
const DecimalOut = (description: string) => Nullable(Type.String({ description }));

export const FeatureBody = Type.Object({
  Code: FeatureCode,
  Name: Text(255, { minLength: 1 }),
  Descrip: Type.Optional(Nullable(Text(1000))),
  Type: StringEnum(FEATURE_TYPES, {
    description: 'boolean (on/off), limit (a quantity per billing period of a metric), config (a value)',
  }),
  MetricCode: Type.Optional(
    Nullable(Text(100, { description: 'A limit feature: the count or sum metric whose usage it limits' })),
  ),
});
export type FeatureBody = Static<typeof FeatureBody>;

export const FeatureOut = Type.Object(
  {
    featureID: Type.Integer(),
    Code: Type.String(),
    Name: Type.String(),
    Descrip: Nullable(Type.String()),
    Type: Type.String(),
    MetricCode: Nullable(Type.String()),
    CreatedAt: DateOut(),
    UpdatedAt: DateOut(),
  },
  { $id: 'Feature' },
);

export const FeatureIdParams = Type.Object({ featureID: Id() });

export const FeatureValueBody = Type.Object({
  Enabled: Type.Optional(
    Type.Boolean({ description: 'Required for a boolean feature; false withholds any type (default true)' }),
  ),
  Limit: Type.Optional(
    Type.Unsafe<number | string | null>({
      type: ['number', 'string', 'null'],
      maxLength: 40,
      description: 'A limit feature: the quantity per billing period (at most 4 decimals); null: unlimited',
    }),
  ),
  Value: Type.Optional(Text(1000, { description: "A config feature's value" })),
});
export type FeatureValueBody = Static<typeof FeatureValueBody>;

export const FeatureValueOut = Type.Object(
  {
    featureValueID: Type.Integer(),
    featureID: Type.Integer(),
    FeatureCode: Type.String(),
    Type: Type.String(),
    packageID: Nullable(Type.Integer()),
    subscriptionID: Nullable(Type.Integer()),
    Enabled: Type.Boolean(),
    Limit: DecimalOut('A limit feature: the quantity per billing period; null: unlimited'),
    Value: Nullable(Type.String()),
    UpdatedAt: DateOut(),
  },
  { $id: 'FeatureValue' },
);

export const PackageFeatureParams = Type.Object({ packageID: Id(), featureCode: FeatureCode });
export const SubscriptionFeatureParams = Type.Object({ subscriptionID: Id(), featureCode: FeatureCode });
export const PackageParams = Type.Object({ packageID: Id() });
export const SubscriptionParams = Type.Object({ subscriptionID: Id() });

const GrantOut = Type.Object({
  subscriptionID: Type.Integer(),
  Source: Type.String({ description: "package (its package's value) or override (set on the subscription)" }),
  Enabled: Type.Boolean(),
  Limit: DecimalOut('null: unlimited, or not a limit feature'),
  Value: Nullable(Type.String()),
});

const entitlementFields = {
  featureID: Type.Integer(),
  FeatureCode: Type.String(),
  Name: Type.String(),
  Type: Type.String(),
  MetricCode: Nullable(Type.String()),
  Allowed: Type.Boolean(),
  subscriptionID: Nullable(
    Type.Integer({ description: 'The subscription whose value counts: the first created giving it enabled' }),
  ),
  Limit: DecimalOut("The governing subscription's limit per billing period; null: unlimited or not a limit"),
  Value: Nullable(Type.String({ description: "A config feature's value" })),
  Subscriptions: Type.Array(GrantOut, { description: "Each live subscription's value of the feature" }),
};

export const EntitlementOut = Type.Object(entitlementFields, { $id: 'Entitlement' });

export const EntitlementCheckOut = Type.Object(
  {
    ...entitlementFields,
    Used: DecimalOut("A limit feature: the metric's usage in the current billing period"),
    Remaining: DecimalOut('Limit − Used, never below 0; null when unlimited or not a limit'),
    PeriodStart: Nullable(Type.String({ format: 'date' })),
    PeriodEnd: Nullable(Type.String({ format: 'date', description: 'The first day after the period' })),
  },
  { $id: 'EntitlementCheck' },
);

export const CustomerParams = Type.Object({ customerID: Id() });
export const CustomerFeatureParams = Type.Object({ customerID: Id(), featureCode: FeatureCode });

export const ConsumeBody = Type.Object({
  Quantity: Type.Unsafe<number | string>({
    type: ['number', 'string'],
    maxLength: 40,
    description: 'How much to use: more than 0, at most 4 decimals; 1 for a count metric',
  }),
  transaction_id: Text(255, {
    minLength: 1,
    description: "The usage event's id, unique per account: a retry answers the first result",
  }),
  properties: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description: "The event's other properties (its metric's filters and group read them)",
    }),
  ),
});
export type ConsumeBody = Static<typeof ConsumeBody>;

export const ConsumptionOut = Type.Object(
  {
    transaction_id: Type.String(),
    customerID: Type.Integer(),
    FeatureCode: Type.String(),
    subscriptionID: Type.Integer(),
    Quantity: Type.String(),
    Limit: DecimalOut('null: unlimited'),
    Used: Type.String({ description: 'Used in the period with this quantity' }),
    Remaining: DecimalOut('null: unlimited'),
    PeriodStart: Type.String({ format: 'date' }),
    PeriodEnd: Type.String({ format: 'date' }),
  },
  { $id: 'Consumption' },
);
