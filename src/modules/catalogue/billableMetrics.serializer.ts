import type {
  BillableMetric,
  BillableMetricEdit,
  BillableMetricInput,
  MetricFilter,
} from './billableMetric.ts';
import type {
  BillableMetricOut,
  CreateBillableMetricBody,
  EditBillableMetricBody,
} from './billableMetrics.schemas.ts';

type WireFilters = NonNullable<CreateBillableMetricBody['Filters']>;

const filtersFromWire = (filters: WireFilters | undefined): MetricFilter[] | undefined =>
  filters?.map((filter) => ({ property: filter.Property, values: filter.Values }));

export function toBillableMetricDto(metric: BillableMetric): BillableMetricOut {
  return {
    billableMetricID: metric.id,
    Code: metric.code,
    Name: metric.name,
    Descrip: metric.descrip,
    Aggregation: metric.aggregation,
    Property: metric.property,
    Filters: metric.filters.map((filter) => ({ Property: filter.property, Values: [...filter.values] })),
    GroupBy: metric.groupBy,
    ArchivedAt: metric.archivedAt,
    CreatedAt: metric.createdAt,
  };
}

export function billableMetricInputFromWire(body: CreateBillableMetricBody): BillableMetricInput {
  return {
    code: body.Code,
    name: body.Name,
    descrip: body.Descrip,
    aggregation: body.Aggregation,
    property: body.Property,
    filters: filtersFromWire(body.Filters),
    groupBy: body.GroupBy,
  };
}

export function billableMetricEditFromWire(body: EditBillableMetricBody): BillableMetricEdit {
  return {
    name: body.Name,
    descrip: body.Descrip,
    aggregation: body.Aggregation,
    property: body.Property,
    filters: filtersFromWire(body.Filters),
    groupBy: body.GroupBy,
  };
}
