import Big from 'big.js';
import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { canonicalDecimal } from '../../core/wireDecimal.ts';
import { usagePricing } from '../catalogue/index.ts';
import * as repo from './subscription.repository.ts';
import type { ComponentRow } from './subscription.repository.ts';
import {
  changeSubscription,
  currentUsagePeriod,
  newComponentRows,
  newUsageRow,
} from './subscriptionEditing.ts';
import type { UsageValues } from './subscriptionEditing.ts';
import { chooseComponents, COMPONENTS_FIELD, MAX_UNITS, readUnits } from './subscriptionInput.ts';
import type { ComponentChoice } from './subscriptionInput.ts';
import type { SubscriptionRow } from './subscriptionTimeline.ts';
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
  row: SubscriptionRow,
  period: UsagePeriod,
  componentId: number,
  values: UsageValues,
  now: string,
): Promise<void> {
  const existing = await repo.findUsage(ctx.db, ctx.account.id, row.id, componentId, period.start);
  if (existing) {
    await repo.updateUsage(ctx.db, ctx.account.id, existing.id, {
      ...(values.units !== undefined
        ? { num_units: canonicalDecimal(values.units), is_set_units: values.isSetUnits }
        : {}),
      ...(values.memo !== undefined ? { memo: values.memo } : {}),
      period_end: period.end,
      updated_at: now,
    });
    return;
  }
  await repo.insertUsage(ctx.db, newUsageRow(ctx, row.id, componentId, period, values, now));
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
    const versions = new Map(current.map((c) => [c.component_id, c.component_version_id]));
    const problems: FieldProblem[] = [];
    const chosen = await chooseComponents(tctx, items, row.currency_code, versions, problems);
    if (problems.length > 0) throw new ValidationError(problems);

    const listed = new Set(chosen.map((c) => c.componentId));
    const removed = current.filter((c) => !listed.has(c.component_id));
    const unbilled = await repo.listUnbilledUsageOf(tctx.db, ctx.account.id, row.id);
    const blocked = removed.filter((c) =>
      unbilled.some((u) => u.component_id === c.component_id && !new Big(u.num_units).eq(0)),
    );
    if (blocked.length > 0) {
      throw new ConflictError(
        'component_has_unbilled_usage',
        `Component(s) ${blocked.map((c) => c.component_id).join(', ')} have usage not billed yet; ` +
          'set their NumUnits to 0 or remove them after the usage is billed',
      );
    }
    const removedIds = removed.map((c) => c.component_id);
    await repo.deleteUnbilledUsage(tctx.db, ctx.account.id, row.id, removedIds);
    await repo.deleteComponents(
      tctx.db,
      ctx.account.id,
      removed.map((c) => c.id),
    );

    const now = nowInstant(ctx);
    const byComponent = new Map<number, ComponentRow>(current.map((c) => [c.component_id, c]));
    await repo.insertComponents(
      tctx.db,
      newComponentRows(
        ctx,
        row.id,
        chosen.filter((c) => !byComponent.has(c.componentId)),
        now,
      ),
    );
    for (const c of chosen) {
      const existing = byComponent.get(c.componentId);
      if (existing && existing.component_version_id !== c.versionId) {
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
    await repo.updateSubscription(tctx.db, ctx.account.id, row.id, { updated_at: now });
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
      const components = await repo.listComponents(tctx.db, ctx.account.id, [row.id]);
      const versionOf = new Map(components.map((c) => [c.component_id, c]));
      const pricing = await usagePricing(
        tctx,
        components.map((c) => c.component_version_id),
      );
      const period = await currentUsagePeriod(tctx, row, today);
      if (!period)
        throw new ConflictError('subscription_ended', `Subscription ${row.id} has stopped billing`);

      const problems: FieldProblem[] = [];
      const units = new Map<number, Big>();
      const planned: ({ componentId: number } & UsageValues)[] = [];
      for (const [i, record] of records.entries()) {
        const at = `${COMPONENTS_FIELD}[${i}]`;
        const component = versionOf.get(record.componentId);
        if (!component) {
          problems.push({
            field: `${at}.componentID`,
            message: `component ${record.componentId} is not on subscription ${row.id}`,
          });
          continue;
        }
        const price = pricing.get(component.component_version_id);
        const brackets = price?.bracketsByCurrency.get(row.currency_code);
        // A price is brackets under unit, volume and stairstep, or blocks under package.
        if ((!brackets || brackets.length === 0) && !price?.packByCurrency.has(row.currency_code)) {
          problems.push({
            field: `${at}.componentID`,
            message: `version ${component.version_no} of component ${record.componentId} has no price in ${row.currency_code}`,
          });
          continue;
        }
        const amount = readUnits(record.numUnits, `${at}.NumUnits`, problems, !record.isSetUnits);
        if (amount === undefined) continue;
        if (!units.has(record.componentId)) {
          const existing = await repo.findUsage(
            tctx.db,
            ctx.account.id,
            row.id,
            record.componentId,
            period.start,
          );
          units.set(record.componentId, new Big(existing?.num_units ?? '0'));
        }
        const result = record.isSetUnits ? amount : units.get(record.componentId)!.plus(amount);
        if (result.lt(0)) {
          problems.push({
            field: `${at}.NumUnits`,
            message: `would lower the units to ${result.toFixed()}; they cannot go below 0`,
          });
          continue;
        }
        if (result.gt(MAX_UNITS)) {
          problems.push({
            field: `${at}.NumUnits`,
            message: `would raise the units above ${MAX_UNITS.toFixed()}`,
          });
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

      const now = nowInstant(ctx);
      for (const { componentId, ...values } of planned) {
        await writeUsage(tctx, row, period, componentId, values, now);
      }
      await repo.updateSubscription(tctx.db, ctx.account.id, row.id, { updated_at: now });
    },
    ['Future', 'Cancelled', 'Expired'],
    'subscription.usage_recorded',
  );
}
