import Big from 'big.js';
import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { canonicalDecimal } from '../../core/wireDecimal.ts';
import { metricCodesOfComponents, metricUsageConflict, usagePricing } from '../catalogue/index.ts';
import type { UsagePricing } from '../catalogue/index.ts';
import * as repo from './subscription.repository.ts';
import type { ComponentOnSubscription } from './subscription.ts';
import { changeSubscription, currentUsagePeriod, newUsage } from './subscriptionEditing.ts';
import type { UsageValues } from './subscriptionEditing.ts';
import { chooseComponents, COMPONENTS_FIELD, MAX_UNITS, readUnits } from './subscriptionInput.ts';
import type { ComponentChoice } from './subscriptionInput.ts';
import type { SubscriptionRecord } from './subscription.ts';
import type { UsagePeriod } from './usagePeriods.ts';

export interface UsageRecord {
  componentId: number;
  numUnits: number | string;
  /** true sets the period's units, false adds to them (a negative number lowers them). */
  isSetUnits: boolean;
  memo?: string | null;
}

/** Sets the usage row of a period for a component: inserting it, or changing what is given. */
async function writeUsage(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  period: UsagePeriod,
  componentId: number,
  values: UsageValues,
  now: string,
): Promise<void> {
  const existing = await repo.findUsage(ctx.db, ctx.account.id, row.id, componentId, period.start);
  if (existing) {
    await repo.updateUsage(ctx.db, ctx.account.id, existing.id, {
      ...(values.units !== undefined
        ? { numUnits: canonicalDecimal(values.units), isSetUnits: values.isSetUnits }
        : {}),
      ...(values.memo !== undefined ? { memo: values.memo } : {}),
      periodEnd: period.end,
      updatedAt: now,
    });
    return;
  }
  await repo.insertUsage(ctx.db, ctx.account.id, newUsage(row.id, componentId, period, values, now));
}

/**
 * Public notes: components/modify sets the subscription's components. The list is the whole set: components
 * listed are added or moved to the version named (kept on theirs when none is), components left out are removed.
 * NumUnits and Memo, when given, set the current usage period's row. A component with units recorded and not yet
 * billed cannot be removed (409): that usage would go unbilled.
 */
export async function modifyComponents(
  ctx: ServiceContext,
  subscriptionId: number,
  items: ComponentChoice[],
): Promise<void> {
  await changeSubscription(ctx, subscriptionId, async (tctx, row, today) => {
    const current = await repo.listComponents(tctx.db, ctx.account.id, [row.id]);
    const versions = new Map(current.map((c) => [c.componentId, c.componentVersionId]));
    const problems: FieldProblem[] = [];
    const chosen = await chooseComponents(tctx, items, row.currencyCode, versions, problems);
    if (problems.length > 0) throw new ValidationError(problems);

    const listed = new Set(chosen.map((c) => c.componentId));
    const removed = current.filter((c) => !listed.has(c.componentId));
    const unbilled = await repo.listUnbilledUsageOf(tctx.db, ctx.account.id, row.id);
    const blocked = removed.filter((c) =>
      unbilled.some((u) => u.componentId === c.componentId && !new Big(u.numUnits).eq(0)),
    );
    if (blocked.length > 0) {
      throw new ConflictError(
        'component_has_unbilled_usage',
        `Component(s) ${blocked.map((c) => c.componentId).join(', ')} have usage not billed yet; ` +
          'set their NumUnits to 0 or remove them after the usage is billed',
      );
    }
    const removedIds = removed.map((c) => c.componentId);
    await repo.deleteUnbilledUsage(tctx.db, ctx.account.id, row.id, removedIds);
    await repo.deleteComponents(
      tctx.db,
      ctx.account.id,
      removed.map((c) => c.id),
    );

    const now = nowInstant(ctx);
    const byComponent = new Map<number, ComponentOnSubscription>(current.map((c) => [c.componentId, c]));
    const added = chosen.filter((c) => !byComponent.has(c.componentId));
    await repo.insertComponents(tctx.db, ctx.account.id, row.id, added, now);
    for (const c of chosen) {
      const existing = byComponent.get(c.componentId);
      if (existing && existing.componentVersionId !== c.versionId) {
        await repo.updateComponentVersion(tctx.db, ctx.account.id, existing.id, c.versionId);
      }
    }

    const withUsage = chosen.filter((c) => c.units !== undefined || c.memo !== undefined);
    if (withUsage.length > 0) {
      const period = await currentUsagePeriod(tctx, row, today);
      if (period) {
        for (const c of withUsage) {
          await writeUsage(
            tctx,
            row,
            period,
            c.componentId,
            { units: c.units, memo: c.memo, isSetUnits: true },
            now,
          );
        }
      }
    }
    await repo.updateSubscription(tctx.db, ctx.account.id, row.id, { updatedAt: now });
  });
}

/**
 * Public notes: components/recordusage raises or lowers usage within the period. Each record sets (isSetUnits)
 * or adds to the units of the usage period holding today; the units never go below 0. Records apply in order,
 * all or none. The subscription is held meanwhile, so concurrent records add up (decimals are added here
 * exactly, not in SQL: SQLite keeps them as text).
 */
export async function recordUsage(
  ctx: ServiceContext,
  subscriptionId: number,
  records: UsageRecord[],
): Promise<void> {
  await changeSubscription(
    ctx,
    subscriptionId,
    async (tctx, row, today) => {
      const period = await currentUsagePeriod(tctx, row, today);
      if (!period)
        throw new ConflictError('subscription_ended', `Subscription ${row.id} has stopped billing`);
      const planned = await planUsage(tctx, row, period, records);
      const now = nowInstant(ctx);
      for (const { componentId, ...values } of planned) {
        await writeUsage(tctx, row, period, componentId, values, now);
      }
      await repo.updateSubscription(tctx.db, ctx.account.id, row.id, { updatedAt: now });
    },
    // No period runs while paused: usage recorded then would belong to none (docs/subscriptions.md).
    ['Future', 'Cancelled', 'Expired', 'Paused'],
    'subscription.usage_recorded',
  );
}

/**
 * The units each record leaves in the period, in order (a component recorded twice adds up), checked: every
 * problem found is answered at once (422), and nothing is written.
 */
async function planUsage(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  period: UsagePeriod,
  records: UsageRecord[],
): Promise<({ componentId: number } & UsageValues)[]> {
  const components = await repo.listComponents(ctx.db, ctx.account.id, [row.id]);
  const versionOf = new Map(components.map((c) => [c.componentId, c]));
  const metered = await metricCodesOfComponents(
    ctx,
    records.map((record) => record.componentId),
  );
  const fromEvents = records.find((r) => versionOf.has(r.componentId) && metered.has(r.componentId));
  if (fromEvents) throw metricUsageConflict(fromEvents.componentId, metered.get(fromEvents.componentId)!);
  const pricing = await usagePricing(
    ctx,
    components.map((c) => c.componentVersionId),
  );
  const problems: FieldProblem[] = [];
  const units = new Map<number, Big>();
  const planned: ({ componentId: number } & UsageValues)[] = [];
  for (const [i, record] of records.entries()) {
    const at = `${COMPONENTS_FIELD}[${i}]`;
    const component = versionOf.get(record.componentId);
    const priceProblem = component
      ? missingPrice(component, pricing.get(component.componentVersionId), row.currencyCode)
      : `component ${record.componentId} is not on subscription ${row.id}`;
    if (priceProblem) {
      problems.push({ field: `${at}.componentID`, message: priceProblem });
      continue;
    }
    const amount = readUnits(record.numUnits, `${at}.NumUnits`, problems, !record.isSetUnits);
    if (amount === undefined) continue;
    if (!units.has(record.componentId)) {
      const existing = await repo.findUsage(ctx.db, ctx.account.id, row.id, record.componentId, period.start);
      units.set(record.componentId, new Big(existing?.numUnits ?? '0'));
    }
    const result = record.isSetUnits ? amount : units.get(record.componentId)!.plus(amount);
    const boundProblem = unitsOutOfBounds(result);
    if (boundProblem) {
      problems.push({ field: `${at}.NumUnits`, message: boundProblem });
      continue;
    }
    units.set(record.componentId, result);
    planned.push({
      componentId: record.componentId,
      units: result,
      isSetUnits: record.isSetUnits,
      memo: record.memo,
    });
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return planned;
}

/** Why usage of the component cannot be priced in the currency, if it cannot. */
function missingPrice(
  component: ComponentOnSubscription,
  price: UsagePricing | undefined,
  currencyCode: string,
): string | undefined {
  const brackets = price?.bracketsByCurrency.get(currencyCode);
  // A price is brackets under unit, volume and stairstep, or blocks under package.
  if ((!brackets || brackets.length === 0) && !price?.packByCurrency.has(currencyCode)) {
    return `version ${component.versionNo} of component ${component.componentId} has no price in ${currencyCode}`;
  }
  return undefined;
}

/** The units of a period stay within 0 and MAX_UNITS. */
function unitsOutOfBounds(result: Big): string | undefined {
  if (result.lt(0)) return `would lower the units to ${result.toFixed()}; they cannot go below 0`;
  if (result.gt(MAX_UNITS)) return `would raise the units above ${MAX_UNITS.toFixed()}`;
  return undefined;
}
