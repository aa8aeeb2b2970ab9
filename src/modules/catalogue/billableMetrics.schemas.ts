import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateOut, Id, Nullable, StringEnum, Text } from '../../http/schemas.ts';
import { METRIC_AGGREGATIONS } from './billableMetric.ts';

/**
 * A metric's code is what events send as their `code`, so it is kept to characters every client writes without
 * escaping: letters, digits, `_`, `-`, `.` and `:`, starting with a letter or digit (docs/spec-decisions.md).
 */
export const METRIC_CODE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.:-]*$';

const Code = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: METRIC_CODE_PATTERN,
  description: "Unique per account, archived metrics' included: the events' `code`",
});

const PropertyName = (description: string) => Text(100, { minLength: 1, description });

const FilterIn = Type.Object({
  Property: PropertyName('The event property the filter reads'),
  Values: Type.Array(Text(255), {
    minItems: 1,
    maxItems: 100,
    description: 'The values (compared as text) for which an event counts; 1 to 100',
  }),
});

const Filters = Type.Array(FilterIn, {
  maxItems: 20,
  description: 'Every filter must hold for an event to count; at most 20',
});

const Aggregation = StringEnum(METRIC_AGGREGATIONS, {
  description: 'How the period\'s events make one quantity (docs/usage.md, "Billable metrics")',
});

const Property = Type.Optional(
  Nullable(PropertyName('The event property holding the value; required unless count, refused for count')),
);
const GroupBy = Type.Optional(
  Nullable(PropertyName('One invoice line per value of this event property; left out for one line')),
);
const Descrip = Type.Optional(Nullable(Text(2000)));

export const CreateBillableMetricBody = Type.Object({
  Code,
  Name: Text(255, { minLength: 1 }),
  Descrip,
  Aggregation,
  Property,
  Filters: Type.Optional(Filters),
  GroupBy,
});
export type CreateBillableMetricBody = Static<typeof CreateBillableMetricBody>;

export const EditBillableMetricBody = Type.Object({
  Name: Text(255, { minLength: 1 }),
  Descrip,
  Aggregation: Type.Optional(Aggregation),
  Property,
  Filters: Type.Optional(Filters),
  GroupBy,
});
export type EditBillableMetricBody = Static<typeof EditBillableMetricBody>;

export const BillableMetricIdParams = Type.Object({ billableMetricID: Id() });

export const BillableMetricOut = Type.Object(
  {
    billableMetricID: Type.Integer(),
    Code: Type.String(),
    Name: Type.String(),
    Descrip: Nullable(Type.String()),
    Aggregation: StringEnum(METRIC_AGGREGATIONS),
    Property: Nullable(Type.String()),
    Filters: Type.Array(Type.Object({ Property: Type.String(), Values: Type.Array(Type.String()) })),
    GroupBy: Nullable(Type.String()),
    ArchivedAt: DateOut(),
    CreatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'BillableMetric' },
);
export type BillableMetricOut = Static<typeof BillableMetricOut>;
