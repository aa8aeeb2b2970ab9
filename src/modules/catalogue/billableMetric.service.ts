import { nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { Page } from '../../core/paging.ts';
import { optionalText, requiredText } from '../../core/text.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import * as repo from './billableMetric.repository.ts';
import type {
  BillableMetric,
  BillableMetricEdit,
  BillableMetricInput,
  MetricFilter,
} from './billableMetric.ts';
import { throwIfAny } from './componentInput.ts';

export const billableMetricRef = (id: number) => ({ type: 'billable_metric', id });

/** The account's metrics with these ids, by id, as GET /v1/billable-metrics/{id} shows them. */
export async function billableMetricsByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, BillableMetric>> {
  return repo.metricsByIds(ctx.db, ctx.account.id, ids);
}

export async function getBillableMetric(ctx: ServiceContext, id: number): Promise<BillableMetric> {
  const metric = await repo.findMetric(ctx.db, ctx.account.id, id);
  if (!metric) throw new NotFoundError('Billable metric', id);
  return metric;
}

export async function listBillableMetrics(ctx: ServiceContext, page: Page): Promise<BillableMetric[]> {
  return repo.listMetrics(ctx.db, ctx.account.id, page);
}

/** Property names are compared as written (event properties are case-sensitive JSON keys). */
function checkedProperty(value: string | null | undefined, field: string, problems: FieldProblem[]) {
  const text = optionalText(value) ?? null;
  if (value !== undefined && value !== null && text === null) {
    problems.push({ field, message: 'must not be blank; leave it out for none' });
  }
  return text;
}

/**
 * docs/design/usage.md, "What a business does": `count` counts events and reads no property; every other
 * aggregation reads one.
 */
function checkedValueProperty(input: BillableMetricInput, problems: FieldProblem[]): string | null {
  const property = checkedProperty(input.property, 'Property', problems);
  if (input.aggregation === 'count' && property !== null) {
    problems.push({ field: 'Property', message: 'must be left out under count, which reads no property' });
  }
  if (input.aggregation !== 'count' && property === null && input.property !== '') {
    problems.push({ field: 'Property', message: `is required under ${input.aggregation}` });
  }
  return property;
}

/** Each filter names a property once, with its values (as text, the way events' values are compared). */
function checkedFilters(filters: readonly MetricFilter[], problems: FieldProblem[]): MetricFilter[] {
  const seen = new Set<string>();
  return filters.map((filter, i) => {
    const property = requiredText(filter.property, `Filters[${i}].Property`, problems);
    if (seen.has(property)) {
      problems.push({
        field: `Filters[${i}].Property`,
        message: `${property} is filtered twice; merge its Values`,
      });
    }
    seen.add(property);
    return { property, values: [...new Set(filter.values)] };
  });
}

function checkedMetric(input: BillableMetricInput, problems: FieldProblem[]) {
  return {
    code: requiredText(input.code, 'Code', problems),
    name: requiredText(input.name, 'Name', problems),
    descrip: optionalText(input.descrip) ?? null,
    aggregation: input.aggregation,
    property: checkedValueProperty(input, problems),
    filters: checkedFilters(input.filters ?? [], problems),
    groupBy: checkedProperty(input.groupBy, 'GroupBy', problems),
  };
}

function codeTaken(code: string): ConflictError {
  return new ConflictError(
    'billable_metric_code_taken',
    `Code "${code}" belongs to another billable metric of the account (archived ones keep theirs)`,
  );
}

/** docs/usage.md, "Billable metrics": a metric with its reading, fixed from now on. */
export async function createBillableMetric(
  ctx: ServiceContext,
  input: BillableMetricInput,
): Promise<BillableMetric> {
  const problems: FieldProblem[] = [];
  const metric = checkedMetric(input, problems);
  throwIfAny(problems);
  if ((await repo.metricsByCodes(ctx.db, ctx.account.id, [metric.code])).size > 0)
    throw codeTaken(metric.code);
  try {
    const id = await withTransaction(ctx, async (tctx) => {
      const metricId = await repo.insertMetric(tctx.db, {
        ...metric,
        accountId: ctx.account.id,
        createdAt: nowInstant(ctx),
      });
      await emitEvent(tctx, 'billable_metric.created', billableMetricRef(metricId));
      return metricId;
    });
    return await getBillableMetric(ctx, id);
  } catch (error) {
    // Two requests for one code at once: the unique constraint decides, and the loser hears what the check says.
    throw isUniqueViolation(error) ? codeTaken(metric.code) : error;
  }
}

const sameFilters = (a: readonly MetricFilter[], b: readonly MetricFilter[]) =>
  JSON.stringify(a) === JSON.stringify(b);

/**
 * docs/design/usage.md, "Storage": a metric's reading is fixed once made (its events' rollups were made by it);
 * an edit may send the reading fields only as they are. A different reading is a new metric.
 */
function readingChanges(current: BillableMetric, edit: BillableMetricEdit): FieldProblem[] {
  const fixed = 'is fixed once the metric is made (its events were read by it); make a new metric instead';
  const problems: FieldProblem[] = [];
  if (edit.aggregation !== undefined && edit.aggregation !== current.aggregation) {
    problems.push({ field: 'Aggregation', message: fixed });
  }
  if (edit.property !== undefined && (optionalText(edit.property) ?? null) !== current.property) {
    problems.push({ field: 'Property', message: fixed });
  }
  if (edit.filters !== undefined && !sameFilters(checkedFilters(edit.filters, []), current.filters)) {
    problems.push({ field: 'Filters', message: fixed });
  }
  if (edit.groupBy !== undefined && (optionalText(edit.groupBy) ?? null) !== current.groupBy) {
    problems.push({ field: 'GroupBy', message: fixed });
  }
  return problems;
}

/** Name and Descrip change (Descrip left out is null, as PUT replaces); the reading stays. */
export async function editBillableMetric(
  ctx: ServiceContext,
  id: number,
  edit: BillableMetricEdit,
): Promise<BillableMetric> {
  const problems: FieldProblem[] = [];
  const names = {
    name: requiredText(edit.name, 'Name', problems),
    descrip: optionalText(edit.descrip) ?? null,
  };
  throwIfAny(problems);
  const current = await getBillableMetric(ctx, id);
  throwIfAny(readingChanges(current, edit));
  if (names.name !== current.name || names.descrip !== current.descrip) {
    await withTransaction(ctx, async (tctx) => {
      const before = await snapshotResource(tctx, billableMetricRef(id));
      if (!(await repo.updateMetricNames(tctx.db, ctx.account.id, id, names))) {
        throw new NotFoundError('Billable metric', id);
      }
      await emitEvent(tctx, 'billable_metric.updated', billableMetricRef(id), { before });
    });
  }
  return getBillableMetric(ctx, id);
}

/**
 * Archives the metric: it refuses new events from now on and keeps its code (docs/usage.md, "Billable metrics").
 * Refused (409) while a component that still bills it links it: an active one, or one a subscription carries,
 * whose periods would otherwise bill nothing without a word. Archiving an archived metric changes nothing.
 * `subscriptionsByComponent`: the subscriptions carrying each component linked to it, counted by the flow that
 * archives it in the same transaction (src/flows/archiveBillableMetric.ts).
 */
export async function archiveBillableMetricRecord(
  ctx: ServiceContext,
  id: number,
  subscriptionsByComponent: ReadonlyMap<number, number>,
): Promise<void> {
  await withTransaction(ctx, async (tctx) => {
    const metric = await repo.lockMetric(tctx.db, ctx.account.id, id);
    if (!metric) throw new NotFoundError('Billable metric', id);
    if (metric.archivedAt !== null) return;
    await assertNoBillingComponent(tctx, metric, subscriptionsByComponent);
    const before = await snapshotResource(tctx, billableMetricRef(id));
    await repo.archiveMetric(tctx.db, ctx.account.id, id, nowInstant(ctx));
    await emitEvent(tctx, 'billable_metric.archived', billableMetricRef(id), { before });
  });
}

/** The ids of the account's components linked to the metric: what its archive counts subscriptions of. */
export async function componentIdsOfMetric(ctx: ServiceContext, metricId: number): Promise<number[]> {
  return (await repo.componentsLinkedTo(ctx.db, ctx.account.id, metricId)).map((component) => component.id);
}

async function assertNoBillingComponent(
  ctx: ServiceContext,
  metric: BillableMetric,
  subscriptionsByComponent: ReadonlyMap<number, number>,
): Promise<void> {
  for (const component of await repo.componentsLinkedTo(ctx.db, ctx.account.id, metric.id)) {
    const carried = component.isActive || (subscriptionsByComponent.get(component.id) ?? 0) > 0;
    if (carried) {
      throw new ConflictError(
        'billable_metric_in_use',
        `Billable metric ${metric.code} is linked to component ${component.id}, which is active or on ` +
          'subscriptions: make it inactive and take it off its subscriptions, or link it elsewhere, first',
      );
    }
  }
}
