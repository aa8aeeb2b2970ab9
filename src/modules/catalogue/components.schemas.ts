import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Id, Nullable, StringEnum, Text } from '../../http/schemas.ts';
import { COMPONENT_TYPES, TERM_TYPES } from './componentInput.ts';
import { SCHEMES } from './pricing.ts';

/**
 * Decimals in requests: a JSON number (the spec's Numeric) or a string holding a decimal, for clients that keep
 * prices exact. Range and precision are checked by the pricing rules, which name the bracket.
 */
const WireDecimal = (description: string) =>
  Type.Unsafe<number | string>({ type: ['number', 'string'], maxLength: 40, description });

const OptionalWireDecimal = (description: string) =>
  Type.Optional(
    Type.Unsafe<number | string | null>({ type: ['number', 'string', 'null'], maxLength: 40, description }),
  );

const BracketIn = Type.Object({
  Price: WireDecimal('Unit price, at most 4 decimals, not negative; 0 under the stairstep scheme'),
  FlatPrice: OptionalWireDecimal(
    'Flat fee of the bracket, at most 4 decimals: unit (graduated) adds it for each bracket reached, volume ' +
      'and stairstep for the bracket holding the quantity. Required under stairstep; left out or null = none',
  ),
  QtyFrom: WireDecimal('First unit of the bracket (whole number); the first bracket starts at 1 (or 0)'),
  QtyTill: Type.Optional(
    Type.Unsafe<number | string | null>({
      type: ['number', 'string', 'null'],
      maxLength: 40,
      description:
        'Last unit of the bracket, inclusive; null, blank or left out = no upper bound (last bracket)',
    }),
  ),
});

/** Beyond the spec (docs/pricing.md, "Tax-inclusive prices"). */
const TAX_INCLUSIVE = "Whether the currency's prices include tax; null: the account's isTaxInclusive";

const VersionCurrencyIn = Type.Object({
  CurrencyCode: Text(3, { minLength: 3, description: 'An ISO 4217 code enabled for the account' }),
  ComponentBracketPrices: Type.Optional(
    Type.Array(BracketIn, {
      maxItems: 100,
      description:
        'Required (at least one) under unit, volume and stairstep; empty or left out under package',
    }),
  ),
  PackageSize: OptionalWireDecimal('Package scheme only: units per block, a whole number, at least 1'),
  Price: OptionalWireDecimal('Package scheme only: price per block, at most 4 decimals'),
  FreeUnits: OptionalWireDecimal(
    'Package scheme only: units free before the first block, a whole number; left out = 0',
  ),
  isTaxInclusive: Type.Optional(
    Nullable(Type.Boolean({ description: `${TAX_INCLUSIVE} (null when left out)`, examples: [true] })),
  ),
});

const VersionCurrenciesIn = Type.Array(VersionCurrencyIn, {
  maxItems: 200,
  description: 'One entry per currency',
});

const VersionName = Text(255, { minLength: 1 });

const componentFields = {
  Name: Text(255, { minLength: 1 }),
  Descrip: Type.Optional(Nullable(Text(2000))),
  isActive: Type.Optional(Type.Boolean({ description: 'Default false when left out (spec)' })),
  packageGroupID: Id(),
  UnitName: Text(100, { minLength: 1, description: 'e.g. per license, per sms' }),
  Term: Type.Integer({ minimum: 1, maximum: 10_000 }),
  TermType: Text(20, { description: `${TERM_TYPES.join(' or ')} (any case)` }),
  Type: Text(20, {
    description: `${COMPONENT_TYPES.join(', ')} (any case; Quantity, opt-in, OptIn accepted)`,
  }),
  Scheme: Text(20, {
    description:
      `${SCHEMES.join(', ')} (any case). unit: graduated brackets; volume: all units at the bracket holding ` +
      'the total; package: blocks of PackageSize at Price, partial blocks rounded up; stairstep: the FlatPrice ' +
      'of the bracket holding the total',
  }),
  MetricCode: Type.Optional(
    Nullable(
      Text(100, {
        description:
          'The Code of a billable metric (not archived) the quantity is read from; metered components only. ' +
          'null unlinks; left out keeps the link',
      }),
    ),
  ),
};

const ComponentCode = Text(100, { minLength: 1, description: 'Unique per account' });

export const CreateComponentBody = Type.Object({
  ComponentCode,
  ...componentFields,
  ComponentVersion: Type.Object({
    VersionName,
    isActive: Type.Optional(Type.Boolean({ description: 'Default true' })),
    ComponentVersionCurrencies: Type.Optional(VersionCurrenciesIn),
  }),
});
export type CreateComponentBody = Static<typeof CreateComponentBody>;

export const EditComponentBody = Type.Object({
  ComponentCode: Type.Optional(ComponentCode),
  ...componentFields,
});
export type EditComponentBody = Static<typeof EditComponentBody>;

export const CreateVersionBody = Type.Object({
  VersionName,
  isActive: Type.Boolean(),
  isDefault: Type.Boolean({ description: 'true makes this version the default' }),
  ComponentVersionCurrencies: Type.Optional(VersionCurrenciesIn),
});
export type CreateVersionBody = Static<typeof CreateVersionBody>;

export const EditVersionBody = Type.Object({
  VersionName,
  isActive: Type.Boolean(),
  isDefault: Type.Optional(
    Type.Boolean({ description: 'true makes this version the default; left out keeps' }),
  ),
  ComponentVersionCurrencies: Type.Optional(
    Type.Array(VersionCurrencyIn, {
      maxItems: 200,
      description: "Replaces the version's prices when sent; left out, they stay",
    }),
  ),
});
export type EditVersionBody = Static<typeof EditVersionBody>;

export const ComponentIdParams = Type.Object({ componentID: Id() });
export const VersionParams = Type.Object({
  componentID: Id(),
  versionno: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'VersionNo, from 1' }),
});

export const BracketOut = Type.Object({
  componentBracketID: Type.Integer(),
  componentVersionCurrencyID: Type.Integer(),
  Price: Type.Number(),
  QtyFrom: Type.Number(),
  QtyTill: Nullable(Type.Number({ description: 'null = no upper bound' })),
  FlatPrice: Type.Optional(Type.Number({ description: 'The bracket flat fee; shown only when it has one' })),
});
export type BracketOut = Static<typeof BracketOut>;

export const VersionCurrencyOut = Type.Object({
  componentVersionCurrencyID: Type.Integer(),
  componentVersionID: Type.Integer(),
  CurrencyCode: Type.String(),
  isTaxInclusive: Type.Optional(Type.Boolean({ description: `${TAX_INCLUSIVE}; left out when null` })),
  ComponentBracketPrices: Type.Array(BracketOut),
  PackageSize: Type.Optional(Type.Number({ description: 'Package scheme only: units per block' })),
  Price: Type.Optional(Type.Number({ description: 'Package scheme only: price per block' })),
  FreeUnits: Type.Optional(
    Type.Number({ description: 'Package scheme only: units free before the first block' }),
  ),
});
export type VersionCurrencyOut = Static<typeof VersionCurrencyOut>;

export const VersionOut = Type.Object(
  {
    componentVersionID: Type.Integer(),
    componentID: Type.Integer(),
    VersionNo: Type.Integer(),
    VersionName: Type.String(),
    isDefault: Type.Boolean(),
    isActive: Type.Boolean(),
    ComponentVersionCurrencies: Type.Array(VersionCurrencyOut),
  },
  { $id: 'ComponentVersion' },
);
export type VersionOut = Static<typeof VersionOut>;

export const ComponentOut = Type.Object(
  {
    componentID: Type.Integer(),
    ComponentCode: Type.String(),
    Name: Type.String(),
    Descrip: Nullable(Type.String()),
    isActive: Type.Boolean(),
    packageGroupID: Type.Integer(),
    UnitName: Type.String(),
    Term: Type.Integer(),
    TermType: StringEnum(TERM_TYPES),
    Type: StringEnum(COMPONENT_TYPES),
    Scheme: StringEnum(SCHEMES),
    MetricCode: Nullable(
      Type.String({ description: 'The billable metric its quantity is read from; null: set per period' }),
    ),
    ComponentVersions: Type.Array(VersionOut),
  },
  { $id: 'Component' },
);
export type ComponentOut = Static<typeof ComponentOut>;
