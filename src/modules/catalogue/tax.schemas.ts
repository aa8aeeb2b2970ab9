import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Id, Nullable, Text, WireDate } from '../../http/schemas.ts';

/** Like a customer's: a number or a numeric string (clients send back what the original returns). */
const CountryStateId = Type.Unsafe<number | string | null>({
  type: ['integer', 'string', 'null'],
  pattern: '^[1-9]\\d{0,14}$',
  minimum: 1,
  maximum: Number.MAX_SAFE_INTEGER,
  description: 'A state of the country (GET /v1/countries/{countryID}/states); needs countryID',
});

export const MAX_TAX_RULES = 1000;

const TaxRuleBody = Type.Object({
  taxRuleID: Type.Optional(
    Nullable(Id({ description: 'On PUT: the rule of this setting to edit; leave out to add a rule' })),
  ),
  Perc: Type.Number({ description: 'A fraction between 0 and 1 with at most 6 decimals (0.15 for 15%)' }),
  countryID: Type.Optional(Nullable(Id({ description: 'ISO 3166-1 numeric code; none for a global rule' }))),
  countryStateID: Type.Optional(CountryStateId),
  TaxNumber: Type.Optional(Nullable(Text(100))),
});

export const TaxSettingBody = Type.Object({
  Name: Text(255, { minLength: 1 }),
  rules: Type.Optional(
    Type.Array(TaxRuleBody, {
      maxItems: MAX_TAX_RULES,
      description:
        'On PUT: rules without taxRuleID are added, left-out rules deleted; leave out to keep them',
    }),
  ),
});
export type TaxSettingBody = Static<typeof TaxSettingBody>;

export const TaxRateOut = Type.Object(
  {
    taxRateID: Type.Integer(),
    taxRuleID: Type.Integer(),
    Perc: Type.Number(),
    EffectiveFrom: Type.String({
      format: 'date-time',
      description: 'The start, in the account time zone, of the day the rate is in force from',
    }),
  },
  { $id: 'TaxRate' },
);

export const TaxRuleOut = Type.Object(
  {
    taxRuleID: Type.Integer(),
    Perc: Type.Number({ description: 'The rate in force today (in the account time zone)' }),
    countryID: Nullable(Type.Integer()),
    countryStateID: Nullable(Type.Integer()),
    TaxNumber: Nullable(Type.String()),
    ScheduledRates: Type.Array(TaxRateOut, {
      description: 'Rates from a later date, by date; each may be withdrawn until that date',
    }),
  },
  { $id: 'TaxRule' },
);

export const TaxSettingOut = Type.Object(
  { taxSettingID: Type.Integer(), Name: Type.String(), rules: Type.Array(TaxRuleOut) },
  { $id: 'TaxSetting' },
);
export type TaxSettingOut = Static<typeof TaxSettingOut>;

export const TaxSettingIdParams = Type.Object({ taxSettingID: Id() });

export const TaxRateBody = Type.Object({
  taxRuleID: Id({ description: 'The rule of this setting the rate is for' }),
  Perc: Type.Number({ description: 'A fraction between 0 and 1 with at most 6 decimals (0.155 for 15.5%)' }),
  EffectiveFrom: WireDate({
    description: 'The first day of the rate, after today, in the account time zone',
  }),
});
export type TaxRateBody = Static<typeof TaxRateBody>;

export const TaxRateIdParams = Type.Object({ taxSettingID: Id(), taxRateID: Id() });
