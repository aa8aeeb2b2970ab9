import type { ServiceContext } from '../../context.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import * as metrics from './billableMetric.repository.ts';
import * as components from './component.repository.ts';
import type { ComponentRecord } from './component.ts';

/**
 * A component's link to a billable metric (docs/usage.md, "Billable metrics"; docs/design/usage.md, "What a
 * business does"): only a metered component reads its quantity from a metric, and only from one that takes events.
 */

/** Public notes, Catalogue: the usage kind of component is `metered`. */
const USAGE_TYPE = 'metered';

/**
 * The metric id a request's MetricCode names: undefined when left out (the link stays), null when null. An unknown
 * or archived code is a 422 naming MetricCode, the same message for another account's code.
 */
export async function requestedMetricId(
  ctx: ServiceContext,
  metricCode: string | null | undefined,
): Promise<number | null | undefined> {
  if (metricCode === undefined || metricCode === null) return metricCode;
  const code = metricCode.trim();
  const metric = (await metrics.metricsByCodes(ctx.db, ctx.account.id, [code])).get(code);
  if (!metric) {
    throw ValidationError.field(
      'MetricCode',
      `no billable metric has the Code ${code}`,
      'billable_metric_not_found',
    );
  }
  if (metric.archivedAt !== null) {
    throw ValidationError.field(
      'MetricCode',
      `billable metric ${code} is archived`,
      'billable_metric_archived',
    );
  }
  return metric.id;
}

/** A component linked to a metric must be metered: named MetricCode when the request links it, Type otherwise. */
export function assertLinkFitsType(type: string, metricId: number | null, linkRequested: boolean): void {
  if (metricId === null || type === USAGE_TYPE) return;
  throw linkRequested
    ? ValidationError.field('MetricCode', `only a ${USAGE_TYPE} component reads its quantity from a metric`)
    : ValidationError.field('Type', `must stay ${USAGE_TYPE} while the component is linked to a metric`);
}

/**
 * Inside the transaction that links: the metric locked and still open, so that an archive running at the same time
 * either sees the link (and refuses) or archives first (and this refuses).
 */
export async function assertMetricOpen(ctx: ServiceContext, metricId: number): Promise<void> {
  const metric = await metrics.lockMetric(ctx.db, ctx.account.id, metricId);
  if (!metric || metric.archivedAt !== null) {
    throw ValidationError.field(
      'MetricCode',
      `billable metric ${metric?.code ?? metricId} is archived`,
      'billable_metric_archived',
    );
  }
}

/**
 * A component's metric does not change while subscriptions carry it (ended ones included): their periods, billed
 * and to be billed, were counted by it, and a corrected or late period must count the same way
 * (docs/spec-decisions.md, "Billable metrics"). `subscriptions`: how many carry the component, counted by the flow.
 */
export function assertLinkChangeAllowed(
  current: ComponentRecord,
  metricId: number | null | undefined,
  subscriptions: number,
): void {
  if (metricId === undefined || metricId === current.metricId) return;
  if (subscriptions > 0) {
    throw new ConflictError(
      'component_metric_in_use',
      `Component ${current.id} is on ${subscriptions} subscription(s): its MetricCode cannot change; ` +
        'make a new component instead',
    );
  }
}

/** The codes of the account's metrics with these ids, for components' MetricCode. */
export async function metricCodesByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, string>> {
  const found = await metrics.metricsByIds(ctx.db, ctx.account.id, ids);
  return new Map([...found].map(([id, metric]) => [id, metric.code]));
}

/**
 * The metric codes of those of these components that read their quantity from a metric, by component id: their
 * usage comes from events, never from a per-period quantity (docs/design/usage.md, "What a business does").
 */
export async function metricCodesOfComponents(
  ctx: ServiceContext,
  componentIds: readonly number[],
): Promise<Map<number, string>> {
  const linked = (await components.findComponents(ctx.db, ctx.account.id, componentIds)).filter(
    (component) => component.metricId !== null,
  );
  const codes = await metricCodesByIds(
    ctx,
    linked.map((component) => component.metricId!),
  );
  return new Map(linked.map((component) => [component.id, codes.get(component.metricId!) ?? '']));
}

/** 409 naming the metric: a component linked to one takes no per-period quantity. */
export function metricUsageConflict(componentId: number, metricCode: string): ConflictError {
  return new ConflictError(
    'component_usage_from_events',
    `Component ${componentId} reads its quantity from the events of billable metric ${metricCode}: ` +
      'send usage events (POST /v1/usage-events) instead of NumUnits',
  );
}
