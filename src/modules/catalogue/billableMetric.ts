/**
 * A billable metric as the domain sees it (docs/design/usage.md, "What a business does"): what a usage component's
 * quantity is read from. Its reading (aggregation, property, filters, group) is fixed when it is made; only its
 * name and description change after.
 */

export type MetricAggregation = 'count' | 'sum' | 'max' | 'unique_count' | 'latest' | 'weighted_sum';

export const METRIC_AGGREGATIONS: readonly MetricAggregation[] = [
  'count',
  'sum',
  'max',
  'unique_count',
  'latest',
  'weighted_sum',
];

/** Every filter must hold: the event property's value (as text) is one of `values`. */
export interface MetricFilter {
  property: string;
  values: readonly string[];
}

export interface BillableMetric {
  id: number;
  code: string;
  name: string;
  descrip: string | null;
  aggregation: MetricAggregation;
  /** The event property holding the value; null for `count`. */
  property: string | null;
  filters: readonly MetricFilter[];
  /** One invoice line per value of this property; null for one line. */
  groupBy: string | null;
  /** Archived metrics refuse new events; their code stays taken. */
  archivedAt: string | null;
  createdAt: string;
}

export interface NewBillableMetric {
  accountId: number;
  code: string;
  name: string;
  descrip: string | null;
  aggregation: MetricAggregation;
  property: string | null;
  filters: readonly MetricFilter[];
  groupBy: string | null;
  createdAt: string;
}

/** A metric as a request makes it: the reading fields are checked by the service (billableMetric.service.ts). */
export interface BillableMetricInput {
  code: string;
  name: string;
  descrip?: string | null;
  aggregation: MetricAggregation;
  property?: string | null;
  filters?: readonly MetricFilter[];
  groupBy?: string | null;
}

/** A metric's edit: its names always; its reading fields only to say they stay as they are. */
export interface BillableMetricEdit {
  name: string;
  descrip?: string | null;
  aggregation?: MetricAggregation;
  property?: string | null;
  filters?: readonly MetricFilter[];
  groupBy?: string | null;
}
