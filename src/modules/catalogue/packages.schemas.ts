import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Id, Nullable, Text } from '../../http/schemas.ts';
import { MAX_PRICE, PRICE_DECIMALS } from '../../core/money.ts';
import { PERIOD_TYPES } from './packageInput.ts';

const periodTypes = PERIOD_TYPES.join(' or ');
const PeriodType = (description: string) =>
  Text(10, { minLength: 1, description: `${description}: ${periodTypes} (any letter case)` });

const Amount = (description: string) =>
  Type.Number({
    minimum: 0,
    maximum: Number(MAX_PRICE),
    description: `${description}: a number of at most ${PRICE_DECIMALS} decimals`,
  });
/** Periods are `integer` columns; the bound keeps them far inside it. */
const Count = (minimum: number, description: string) =>
  Type.Integer({ minimum, maximum: 100_000, description });

/** Beyond the spec (docs/pricing.md, "Tax-inclusive prices"). */
const TAX_INCLUSIVE_DESCRIPTION =
  "Whether this rate's prices (ChargePrice, SetupFee, TrialFee) include tax; null: the account's isTaxInclusive";
const TaxInclusiveBody = () =>
  Nullable(
    Type.Boolean({ description: `${TAX_INCLUSIVE_DESCRIPTION} (null when left out)`, examples: [true] }),
  );

const RateTermBody = Type.Object({
  ChargePrice: Amount('Price charged every term'),
  ChargeTerm: Count(1, 'Length of the term, in ChargeTermType units'),
  ChargeTermType: PeriodType('Unit of ChargeTerm'),
});

const RateBody = Type.Object({
  CurrencyCode: Text(3, { minLength: 3, description: 'An ISO 4217 code enabled for the account' }),
  SetupFee: Amount('Charged once, at the start'),
  TrialFee: Amount('Charged for the trial period'),
  TrialPeriod: Count(0, 'Length of the trial, in TrialPeriodType units (0 for none)'),
  TrialPeriodType: PeriodType('Unit of TrialPeriod'),
  isTaxInclusive: Type.Optional(TaxInclusiveBody()),
  PackageRateTerms: Type.Array(RateTermBody, {
    minItems: 1,
    maxItems: 50,
    description: 'The terms a subscription may choose, with their prices; at least one',
  }),
});

export const VersionBody = Type.Object({
  VersionName: Text(255, { minLength: 1 }),
  isActive: Type.Boolean(),
  isDefault: Type.Boolean({
    description: 'true makes this version the default (the former default stops being one)',
  }),
  packageVersionRates: Type.Optional(
    Type.Array(RateBody, { maxItems: 200, description: 'One rate per currency; none when left out' }),
  ),
});
export type VersionBody = Static<typeof VersionBody>;

const packageFields = {
  packageGroupID: Id(),
  packageCode: Text(100, { minLength: 1, description: 'Unique among the account’s packages' }),
  Name: Text(255, { minLength: 1 }),
  Descrip: Type.Optional(Nullable(Text(2000))),
  isActive: Type.Boolean(),
};

export const CreatePackageBody = Type.Object({
  ...packageFields,
  PackageVersion: Type.Object(VersionBody.properties, {
    description: 'The first version (VersionNo 1); it is the default whatever isDefault says',
  }),
});
export type CreatePackageBody = Static<typeof CreatePackageBody>;

export const EditPackageBody = Type.Object(packageFields);
export type EditPackageBody = Static<typeof EditPackageBody>;

const RateTermOut = Type.Object({
  packageRateTermID: Type.Integer(),
  packageRateID: Type.Integer(),
  ChargePrice: Type.Number(),
  ChargeTerm: Type.Integer(),
  ChargeTermType: Type.String(),
});

const RateOut = Type.Object({
  packageRateID: Type.Integer(),
  packageID: Type.Integer(),
  CurrencyCode: Type.String(),
  SetupFee: Type.Number(),
  TrialFee: Type.Number(),
  TrialPeriod: Type.Integer(),
  TrialPeriodType: Type.String(),
  isTaxInclusive: Type.Optional(
    Type.Boolean({ description: `${TAX_INCLUSIVE_DESCRIPTION}; left out when null` }),
  ),
  PackageRateTerms: Type.Array(RateTermOut),
});

export const VersionOut = Type.Object(
  {
    packageVersionID: Type.Integer(),
    packageID: Type.Integer(),
    VersionNo: Type.Integer(),
    VersionName: Type.String(),
    isDefault: Type.Boolean(),
    isActive: Type.Boolean(),
    SubscriptionCount: Type.Integer(),
    packageVersionRates: Type.Array(RateOut),
  },
  { $id: 'PackageVersion' },
);

export const PackageOut = Type.Object(
  {
    packageID: Type.Integer(),
    packageGroupID: Type.Integer(),
    packageCode: Type.String(),
    Name: Type.String(),
    Descrip: Nullable(Type.String()),
    isActive: Type.Boolean(),
    PackageVersions: Type.Array(VersionOut),
  },
  { $id: 'Package' },
);

export const PackageIdParams = Type.Object({ packageID: Id() });
export const PackageQuery = Type.Object({ packageID: Type.Optional(Id()) });
export const DeletePackageBody = Type.Object({ packageID: Type.Optional(Id()) });

export const VersionParams = Type.Object({
  packageID: Id(),
  // Spec: versionno is an integer of at least 1. VersionNo is an `integer` column: bounded to its range.
  versionno: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
});
