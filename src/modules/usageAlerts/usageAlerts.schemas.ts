import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateOut, Id, Nullable, NullableObject, StringEnum, Text } from '../../http/schemas.ts';
import { USAGE_ALERT_KINDS } from './usageAlert.ts';

export const UsageAlertBody = Type.Object({
  Name: Text(255, { minLength: 1, description: 'What the alert is called in its e-mail and in lists' }),
  Kind: StringEnum(USAGE_ALERT_KINDS, {
    description: "quantity (a metric's quantity so far) or amount (what the usage costs so far)",
  }),
  MetricCode: Type.Optional(
    Nullable(
      Text(100, {
        description:
          'A billable metric linked to one of the subscription’s usage components; required for a quantity ' +
          'alert; null on an amount alert: every metered component together',
      }),
    ),
  ),
  UsageGroup: Type.Optional(
    Nullable(Text(255, { description: 'One group of a metric with a GroupBy; null: its groups together' })),
  ),
  Threshold: Type.Unsafe<number | string>({
    type: ['number', 'string'],
    maxLength: 40,
    description:
      'More than 0. A quantity: at most 4 decimals, at most 10^15; an amount: in the subscription’s currency, ' +
      'at most its decimals',
  }),
});
export type UsageAlertBody = Static<typeof UsageAlertBody>;

const PeriodDate = (description: string) => Nullable(Type.String({ format: 'date', description }));

export const UsageAlertOut = Type.Object(
  {
    usageAlertID: Type.Integer(),
    subscriptionID: Type.Integer(),
    customerID: Type.Integer(),
    Name: Type.String(),
    Kind: Type.String({ description: 'quantity or amount' }),
    MetricCode: Nullable(Type.String({ description: 'null: an amount alert over every metered component' })),
    UsageGroup: Nullable(Type.String({ description: 'null: the metric’s groups together' })),
    Threshold: Type.String({
      description: 'Exact: a quantity, or an amount in CurrencyCode with the currency’s decimals',
    }),
    CurrencyCode: Type.String({ description: 'The subscription’s currency, of amounts' }),
    PeriodStart: PeriodDate('The current usage period’s first day; null once billing has stopped'),
    PeriodEnd: PeriodDate('The first day after the current usage period'),
    FiredThisPeriod: Type.Boolean({ description: 'Whether the alert has fired in the current period' }),
    LastFiring: NullableObject({
      PeriodStart: Type.String({ format: 'date' }),
      PeriodEnd: Type.String({ format: 'date', description: 'The first day after the period' }),
      Threshold: Type.String({ description: 'The threshold when it fired' }),
      Value: Type.String({ description: 'The quantity or amount so far that reached it' }),
      FiredAt: Type.String({ format: 'date-time' }),
    }),
    CreatedAt: DateOut(),
    UpdatedAt: DateOut(),
  },
  { $id: 'UsageAlert' },
);

export const SubscriptionParams = Type.Object({ subscriptionID: Id() });
export const UsageAlertParams = Type.Object({ subscriptionID: Id(), usageAlertID: Id() });
