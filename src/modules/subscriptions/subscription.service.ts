import Big from 'big.js';
import { inTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { dateAt, parseWireCalendarDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Page } from '../../core/paging.ts';
import { boundary } from '../../core/periods.ts';
import type { Term } from '../../core/periods.ts';
import type { Bracket } from '../../core/pricing.ts';
import {
  BillingInvariantError,
  planBilling,
  subscriptionStatus,
  trialEndOf,
} from '../../core/subscriptionBilling.ts';
import type {
  SubscriptionStatus,
  SubscriptionTimeline,
  UnbilledUsage,
} from '../../core/subscriptionBilling.ts';
import type { Db } from '../../storage/database.ts';
import { getComponent, getPackage, usagePricing } from '../catalogue/index.ts';
import type { Component, ComponentVersion, Package } from '../catalogue/index.ts';
import { assertCustomerExists, getCustomer } from '../customers/index.ts';
import { billSubscription } from './subscriptionBilling.service.ts';
import * as repo from './subscription.repository.ts';
import type { ComponentRow, SubscriptionView, UsageRow } from './subscription.repository.ts';
import { timelineOf } from './subscriptionTimeline.ts';
import type { SubscriptionRow } from './subscriptionTimeline.ts';
import { usagePeriodAt } from './usagePeriods.ts';
import type { UsagePeriod } from './usagePeriods.ts';

/** A component on a subscription with the units recorded in the current usage period. */
export interface SubscriptionComponent {
  componentId: number;
  componentVersionId: number;
  componentVersionNo: number;
  /** Exact decimal; "0" when nothing is recorded in the period. */
  numUnits: string;
  memo: string | null;
  isSetUnits: boolean;
}

export interface Subscription {
  view: SubscriptionView;
  status: SubscriptionStatus;
  isCancelled: boolean;
  isExpired: boolean;
  isFutureChange: boolean;
  components: SubscriptionComponent[];
}

/** A component as a request names it: the version by id or number, else the component's default. */
export interface ComponentChoice {
  componentId: number;
  componentVersionId?: number | null;
  componentVersionNumber?: number | null;
  /** Sets the units of the current usage period when given. */
  numUnits?: number | string;
  memo?: string | null;
}

export interface CreateSubscriptionInput {
  customerId: number;
  packageId: number;
  packageVersionId?: number | null;
  packageVersionNumber?: number | null;
  packageRateTermId: number;
  /** Wire dates, read in the account's time zone. */
  startDate?: string | null;
  endDate?: string | null;
  numDaysBeforeToInv?: number;
  isProRata?: boolean;
  firstProrataSyncDate?: string | null;
  components?: ComponentChoice[];
}

export interface UsageRecord {
  componentId: number;
  numUnits: number | string;
  /** true sets the period's units, false adds to them (a negative number lowers them). */
  isSetUnits: boolean;
  memo?: string | null;
}

/** Units of usage: exact decimals of at most 4 decimals, small enough to come back exactly as JSON numbers. */
const UNIT_DECIMALS = 4;
const MAX_UNITS = new Big('99999999999.9999');
const SIGNED_DECIMAL = /^-?\d+(\.\d+)?$/;

/** The components field of the requests that carry them; problems are named under it. */
const COMPONENTS_FIELD = 'componentUsage';

function todayOf(ctx: ServiceContext): PlainDate {
  return dateAt(ctx.clock.now(), ctx.account.timeZone);
}

/** The label names invoice lines only; nothing computed here depends on it. */
function timelineFor(ctx: ServiceContext, row: SubscriptionRow): SubscriptionTimeline {
  return timelineOf(row, `Package ${row.package_id}`, ctx.account.timeZone);
}

/** A broken record is the bill run's to park; a change to it is refused rather than made on a wrong basis. */
function invariantConflict(error: unknown, subscriptionId: number): unknown {
  return error instanceof BillingInvariantError || error instanceof SyntaxError
    ? new ConflictError(
        'subscription_invalid',
        `Subscription ${subscriptionId} has an inconsistent record (${error.message}); it cannot be changed`,
      )
    : error;
}

// Reading.

/** Subscriptions with their components and current usage: three statements for a whole page. */
async function assemble(ctx: ServiceContext, views: SubscriptionView[]): Promise<Subscription[]> {
  if (views.length === 0) return [];
  const today = todayOf(ctx);
  const ids = views.map((v) => v.id);
  const components = await repo.listComponents(ctx.db, ctx.account.id, ids);
  const usage = await repo.listUsageEndingAfter(ctx.db, ctx.account.id, ids, today);
  return views.map((view) => {
    // The period shown is today's, or the first one for a subscription that has not started.
    const day = view.start_date > today ? view.start_date : today;
    const current = usage.filter(
      (u) => u.subscription_id === view.id && u.period_start <= day && day < u.period_end,
    );
    const cancelled = view.cancel_date !== null && view.cancel_date <= today;
    return {
      view,
      status: subscriptionStatus(
        {
          startDate: view.start_date,
          endDate: view.end_date,
          trialEndDate: view.trial_end_date,
          cancelDate: view.cancel_date,
        },
        today,
      ),
      isCancelled: cancelled,
      isExpired: view.end_date !== null && view.end_date <= today,
      isFutureChange: view.pending_change !== null || (view.cancel_date !== null && !cancelled),
      components: components
        .filter((c) => c.subscription_id === view.id)
        .map((c) => {
          const row = current.find((u) => u.component_id === c.component_id);
          return {
            componentId: c.component_id,
            componentVersionId: c.component_version_id,
            componentVersionNo: c.version_no,
            numUnits: row?.num_units ?? '0',
            memo: row?.memo ?? null,
            isSetUnits: Boolean(row?.is_set_units),
          };
        }),
    };
  });
}

export async function getSubscription(ctx: ServiceContext, subscriptionId: number): Promise<Subscription> {
  const view = await repo.findSubscriptionView(ctx.db, ctx.account.id, subscriptionId);
  if (!view) throw new NotFoundError('Subscription', subscriptionId);
  return (await assemble(ctx, [view]))[0]!;
}

export async function listSubscriptions(ctx: ServiceContext, page: Page): Promise<Subscription[]> {
  return assemble(ctx, await repo.listSubscriptionViews(ctx.db, ctx.account.id, page));
}

export async function listCustomerSubscriptions(
  ctx: ServiceContext,
  customerId: number,
  page: Page,
): Promise<Subscription[]> {
  await assertCustomerExists(ctx, customerId);
  return assemble(ctx, await repo.listSubscriptionViews(ctx.db, ctx.account.id, page, customerId));
}

// Counting, for the catalogue and customers.

/** Spec, Package version SubscriptionCount: subscriptions in force on each version today, future ones included. */
export function countLiveSubscriptionsByPackageVersion(
  ctx: ServiceContext,
  versionIds: number[],
): Promise<Map<number, number>> {
  return repo.countLiveBy(ctx.db, ctx.account.id, 'package_version_id', versionIds, todayOf(ctx));
}

/** Every subscription on each version, ended ones included: they still refer to the version. */
export function countSubscriptionsByPackageVersion(
  ctx: ServiceContext,
  versionIds: number[],
): Promise<Map<number, number>> {
  return repo.countAllBy(ctx.db, ctx.account.id, 'package_version_id', versionIds);
}

/** Customer ActiveSubs: subscriptions not cancelled or expired today (future and trial ones included). */
export function countLiveSubscriptionsByCustomer(
  ctx: ServiceContext,
  customerIds: number[],
): Promise<Map<number, number>> {
  return repo.countLiveBy(ctx.db, ctx.account.id, 'customer_id', customerIds, todayOf(ctx));
}

/** Every subscription of the customer, ended ones included. */
export async function countSubscriptionsOfCustomer(ctx: ServiceContext, customerId: number): Promise<number> {
  return (await repo.countAllBy(ctx.db, ctx.account.id, 'customer_id', [customerId])).get(customerId) ?? 0;
}

/** Subscriptions carrying a component, or one version of it, ended ones included. */
export function countSubscriptionsWithComponent(
  ctx: ServiceContext,
  by: { componentId: number } | { componentVersionId: number },
): Promise<number> {
  return repo.countWithComponent(ctx.db, ctx.account.id, by);
}

// Checking input.

function readDate(
  ctx: ServiceContext,
  text: string,
  field: string,
  problems: FieldProblem[],
): PlainDate | undefined {
  const date = parseWireCalendarDate(text, ctx.account.timeZone);
  if (date === undefined) problems.push({ field, message: 'must be a date' });
  return date;
}

/**
 * Units as an exact decimal string. A JSON number's shortest spelling is the decimal the client wrote (see the
 * component prices); a string is taken as written. `signed` allows a negative number (an amount to subtract).
 */
function readUnits(
  value: number | string,
  field: string,
  problems: FieldProblem[],
  signed: boolean,
): Big | undefined {
  const text =
    typeof value === 'number'
      ? Number.isFinite(value)
        ? new Big(String(value)).toFixed()
        : ''
      : value.trim();
  if (!SIGNED_DECIMAL.test(text)) {
    problems.push({ field, message: 'must be a decimal number' });
    return undefined;
  }
  const units = new Big(text);
  let problem: string | undefined;
  if (!signed && units.lt(0)) problem = 'must not be negative';
  else if (!units.round(UNIT_DECIMALS, Big.roundDown).eq(units))
    problem = `must have at most ${UNIT_DECIMALS} decimals`;
  else if (units.abs().gt(MAX_UNITS)) problem = `must be at most ${MAX_UNITS.toFixed()}`;
  if (problem === undefined) return units;
  problems.push({ field, message: problem });
  return undefined;
}

/** Canonical text, and never "-0". */
function unitsText(units: Big): string {
  return units.eq(0) ? '0' : units.toFixed();
}

/** A version named by id or number (both: they must agree), else `fallback`; undefined after a problem. */
function pickVersion<V extends { id: number; no: number }>(
  versions: V[],
  byId: number | null | undefined,
  byNo: number | null | undefined,
  fields: { id: string; no: string },
  owner: string,
  fallback: () => V | undefined,
  problems: FieldProblem[],
): V | undefined {
  const withId = byId == null ? undefined : versions.find((v) => v.id === byId);
  const withNo = byNo == null ? undefined : versions.find((v) => v.no === byNo);
  if (byId != null && !withId) {
    problems.push({ field: fields.id, message: `${byId} is not a version of ${owner}` });
    return undefined;
  }
  if (byNo != null && !withNo) {
    problems.push({ field: fields.no, message: `${owner} has no version ${byNo}` });
    return undefined;
  }
  if (withId && withNo && withId !== withNo) {
    problems.push({ field: fields.no, message: `does not match ${fields.id} (version ${withId.no})` });
    return undefined;
  }
  return withId ?? withNo ?? fallback();
}

export interface ChosenPackage {
  packageName: string;
  versionId: number;
  rateTermId: number;
  term: Term;
  chargePrice: string;
  setupFee: string;
  trialFee: string;
  trialPeriod: number;
  trialPeriodType: string;
}

/** The package version and rate term a subscription is created on, in the customer's currency. */
export function choosePackage(
  pkg: Package,
  input: CreateSubscriptionInput,
  currencyCode: string,
  problems: FieldProblem[],
): ChosenPackage | undefined {
  const owner = `package ${pkg.id}`;
  const versions = pkg.versions.map((v) => ({ ...v, no: v.versionNo }));
  const version = pickVersion(
    versions,
    input.packageVersionId,
    input.packageVersionNumber,
    { id: 'packageVersionID', no: 'packageVersionNumber' },
    owner,
    () => versions.find((v) => v.isDefault),
    problems,
  );
  if (!version) return undefined;
  const versionField =
    input.packageVersionId != null
      ? 'packageVersionID'
      : input.packageVersionNumber != null
        ? 'packageVersionNumber'
        : 'packageID';
  if (!pkg.isActive) {
    problems.push({
      field: 'packageID',
      message: `package ${pkg.id} is inactive and takes no new subscriptions`,
    });
  }
  if (!version.isActive) {
    problems.push({
      field: versionField,
      message: `version ${version.versionNo} of ${owner} is inactive and takes no new subscriptions`,
    });
  }
  const rate = version.rates.find((r) => r.currencyCode === currencyCode);
  const term = rate?.terms.find((t) => t.id === input.packageRateTermId);
  if (!rate || !term) {
    const elsewhere = version.rates.find((r) => r.terms.some((t) => t.id === input.packageRateTermId));
    problems.push({
      field: 'packageRateTermID',
      message: elsewhere
        ? `is a term of the ${elsewhere.currencyCode} rate, but the customer is billed in ${currencyCode}`
        : rate
          ? `is not a term of the ${currencyCode} rate of version ${version.versionNo} of ${owner} ` +
            `(its terms: ${rate.terms.map((t) => t.id).join(', ')})`
          : `version ${version.versionNo} of ${owner} has no rate in ${currencyCode}, the customer's currency`,
    });
    return undefined;
  }
  return {
    packageName: pkg.name,
    versionId: version.id,
    rateTermId: term.id,
    term: { count: term.chargeTerm, unit: term.chargeTermType as Term['unit'] },
    chargePrice: term.chargePrice,
    setupFee: rate.setupFee,
    trialFee: rate.trialFee,
    trialPeriod: rate.trialPeriod,
    trialPeriodType: rate.trialPeriodType,
  };
}

interface ChosenComponent {
  componentId: number;
  versionId: number;
  units?: Big;
  memo?: string | null;
}

/**
 * The components a request names, each with the version that will price it. A version must be active to be put
 * on a subscription (keeping one that was made inactive since is fine), and priced in the subscription's currency.
 * `current` maps component ids already on the subscription to their versions; they keep theirs unless one is named.
 */
async function chooseComponents(
  ctx: ServiceContext,
  items: ComponentChoice[],
  currencyCode: string,
  current: Map<number, number>,
  problems: FieldProblem[],
): Promise<ChosenComponent[]> {
  const chosen: ChosenComponent[] = [];
  const seen = new Map<number, number>();
  for (const [i, item] of items.entries()) {
    const at = `${COMPONENTS_FIELD}[${i}]`;
    if (seen.has(item.componentId)) {
      problems.push({
        field: `${at}.componentID`,
        message: `repeats ${COMPONENTS_FIELD}[${seen.get(item.componentId)}]`,
      });
      continue;
    }
    seen.set(item.componentId, i);
    let component: Component;
    try {
      component = await getComponent(ctx, item.componentId);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      problems.push({ field: `${at}.componentID`, message: `component ${item.componentId} does not exist` });
      continue;
    }
    const owner = `component ${component.row.id}`;
    const versions = component.versions.map((v) => ({ ...v, id: v.row.id, no: v.row.version_no }));
    const kept = current.get(component.row.id);
    const version = pickVersion(
      versions,
      item.componentVersionId,
      item.componentVersionNumber,
      { id: `${at}.componentVersionID`, no: `${at}.componentVersionNumber` },
      owner,
      () => versions.find((v) => v.id === kept) ?? versions.find((v) => v.row.is_default),
      problems,
    );
    if (!version) continue;
    const versionField =
      item.componentVersionId != null
        ? `${at}.componentVersionID`
        : item.componentVersionNumber != null
          ? `${at}.componentVersionNumber`
          : `${at}.componentID`;
    if (!version.row.is_active && version.id !== kept) {
      problems.push({ field: versionField, message: `version ${version.no} of ${owner} is inactive` });
    }
    if (!hasPrice(version, currencyCode)) {
      problems.push({
        field: versionField,
        message: `version ${version.no} of ${owner} has no price in ${currencyCode}, the subscription's currency`,
      });
    }
    const units =
      item.numUnits === undefined ? undefined : readUnits(item.numUnits, `${at}.NumUnits`, problems, false);
    chosen.push({ componentId: component.row.id, versionId: version.id, units, memo: item.memo });
  }
  return chosen;
}

function hasPrice(version: ComponentVersion, currencyCode: string): boolean {
  return version.currencies.some((c) => c.row.currency_code === currencyCode && c.brackets.length > 0);
}

// Scheduling.

/** Usage is priced by the bill run; scheduling needs only its dates, so it is planned here at no charge. */
const NO_CHARGE: Bracket[] = [{ qtyFrom: '0', qtyTill: null, price: '0' }];

/**
 * The date the bill run should next look at the subscription (next_inv_date), as the billing core plans it: the
 * first invoice due (today or earlier) if any is, else the next one's date; null when nothing is left to bill.
 */
function scheduledInvoiceDate(
  timeline: SubscriptionTimeline,
  unbilled: UsageRow[],
  today: PlainDate,
): PlainDate | null {
  const usage: UnbilledUsage[] = unbilled.map((u) => ({
    usageId: u.id,
    label: '',
    unitName: '',
    periodStart: u.period_start,
    periodEnd: u.period_end,
    units: '0',
    scheme: 'unit',
    brackets: NO_CHARGE,
  }));
  const plan = planBilling(timeline, usage, today);
  return plan.invoices[0]?.invoiceDate ?? plan.next.nextInvDate;
}

/** The usage period for usage recorded today (or before the start: the first one); null once billing stopped. */
async function currentUsagePeriod(
  db: Db,
  ctx: ServiceContext,
  row: SubscriptionRow,
  timeline: SubscriptionTimeline,
  today: PlainDate,
): Promise<UsagePeriod | null> {
  const day = row.start_date > today ? row.start_date : today;
  const billed = await repo.findBilledPeriod(db, ctx.account.id, row.id, day);
  return usagePeriodAt(
    timeline,
    billed ? { start: billed.period_start, end: billed.period_end } : null,
    today,
  );
}

/**
 * Bills the subscription at once when an invoice is due, after the change that made it due has committed. A
 * failure here does not undo that change: the subscription stays due and the bill run bills it on its next round.
 */
async function billIfDue(
  ctx: ServiceContext,
  subscriptionId: number,
  nextInvDate: PlainDate | null,
): Promise<void> {
  if (nextInvDate === null || nextInvDate > todayOf(ctx)) return;
  try {
    await billSubscription(ctx, subscriptionId);
  } catch (error) {
    ctx.log.error(
      { err: error, subscriptionId },
      'billing a subscription at once failed; the bill run will retry',
    );
  }
}

// Writing.

/**
 * Creates a subscription on a package version and one of its rate terms in the customer's currency, copying the
 * price terms onto it, with its first components. Billed at once when its first invoice is due.
 */
export async function createSubscription(
  ctx: ServiceContext,
  input: CreateSubscriptionInput,
): Promise<Subscription> {
  const today = todayOf(ctx);
  const problems: FieldProblem[] = [];
  const startDate = input.startDate == null ? today : readDate(ctx, input.startDate, 'StartDate', problems);
  const endDate = input.endDate == null ? null : readDate(ctx, input.endDate, 'EndDate', problems);
  const isProRata = input.isProRata ?? false;
  const syncDate =
    input.firstProrataSyncDate == null
      ? null
      : readDate(ctx, input.firstProrataSyncDate, 'firstProrataSyncDate', problems);

  // As for contacts and notes, the customer a subscription belongs to is a 404 when the account cannot see it.
  const customer = await getCustomer(ctx, input.customerId);
  if (!customer.row.is_active) {
    throw new ConflictError(
      'customer_archived',
      `Customer ${input.customerId} is archived; reopen it before subscribing it to a package`,
    );
  }
  const currencyCode = customer.row.currency_code;

  let chosen: ChosenPackage | undefined;
  try {
    chosen = choosePackage(await getPackage(ctx, input.packageId), input, currencyCode, problems);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    problems.push({ field: 'packageID', message: `package ${input.packageId} does not exist` });
  }
  const components = await chooseComponents(ctx, input.components ?? [], currencyCode, new Map(), problems);

  if (startDate && endDate && endDate <= startDate) {
    problems.push({ field: 'EndDate', message: `must be after StartDate (${startDate})` });
  }
  if (isProRata && input.firstProrataSyncDate == null) {
    problems.push({ field: 'firstProrataSyncDate', message: 'is required when isProRata is true' });
  }
  if (!isProRata && syncDate) {
    problems.push({ field: 'firstProrataSyncDate', message: 'applies only when isProRata is true' });
  }
  if (isProRata && syncDate && startDate && chosen) {
    const latest = boundary(startDate, chosen.term, 1);
    if (syncDate <= startDate || syncDate > latest) {
      problems.push({
        field: 'firstProrataSyncDate',
        message: `must be after StartDate (${startDate}) and at most one term after it (${latest})`,
      });
    }
  }
  if (problems.length > 0 || !chosen || !startDate || endDate === undefined || syncDate === undefined) {
    throw new ValidationError(problems);
  }

  const now = ctx.clock.now().toISOString();
  const trialEndDate = trialEndOf(startDate, chosen.trialPeriod, chosen.trialPeriodType);
  const values = {
    account_id: ctx.account.id,
    customer_id: customer.row.id,
    package_id: input.packageId,
    package_version_id: chosen.versionId,
    package_rate_term_id: chosen.rateTermId,
    currency_code: currencyCode,
    term: chosen.term.count,
    term_type: chosen.term.unit,
    charge_price: chosen.chargePrice,
    setup_fee: chosen.setupFee,
    trial_fee: chosen.trialFee,
    trial_period: chosen.trialPeriod,
    trial_period_type: chosen.trialPeriodType,
    start_date: startDate,
    end_date: endDate,
    trial_end_date: trialEndDate,
    is_pro_rata: isProRata,
    first_prorata_sync_date: isProRata ? syncDate : null,
    // Billing periods are counted from the trial's end, else the pro-rata sync date, else the start.
    anchor_date: trialEndDate ?? (isProRata && syncDate ? syncDate : startDate),
    num_days_before_to_inv: input.numDaysBeforeToInv ?? 0,
    cancel_type: null,
    cancel_date: null,
    cancelled_at: null,
    last_inv_date: null,
    last_renew_date: null,
    next_renew_date: null,
    next_inv_date: null,
    period_count: 0,
    setup_billed: false,
    pending_change: null,
    parked_reason: null,
    parked_at: null,
    lease_until: null,
    created_at: now,
    updated_at: now,
  } satisfies repo.NewSubscriptionRow;
  const timeline = timelineFor(ctx, { id: 0, ...values });
  // next_inv_date: the start less numDaysBeforeToInv, never before today (the core's rule for a new record).
  const nextInvDate = scheduledInvoiceDate(timeline, [], today);
  const firstPeriod = usagePeriodAt(timeline, null, startDate);

  const subscriptionId = await ctx.db.transaction().execute(async (trx) => {
    const id = await repo.insertSubscription(trx, { ...values, next_inv_date: nextInvDate });
    await repo.insertComponents(
      trx,
      components.map((c) => ({
        account_id: ctx.account.id,
        subscription_id: id,
        component_id: c.componentId,
        component_version_id: c.versionId,
        created_at: now,
      })),
    );
    // Spec, componentUsage NumUnits (units used): initial units are usage of the first usage period.
    for (const c of components) {
      if ((c.units === undefined && c.memo == null) || !firstPeriod) continue;
      await repo.insertUsage(trx, {
        account_id: ctx.account.id,
        subscription_id: id,
        component_id: c.componentId,
        period_start: firstPeriod.start,
        period_end: firstPeriod.end,
        num_units: unitsText(c.units ?? new Big(0)),
        memo: c.memo ?? null,
        is_set_units: c.units !== undefined,
        updated_at: now,
      });
    }
    return id;
  });
  await billIfDue(ctx, subscriptionId, nextInvDate);
  return getSubscription(ctx, subscriptionId);
}

/** Runs `change` with the subscription held, refusing one that has stopped billing (cancelled or expired). */
async function changeSubscription<T>(
  ctx: ServiceContext,
  subscriptionId: number,
  change: (tctx: ServiceContext, row: SubscriptionRow, today: PlainDate) => Promise<T>,
  refuse: SubscriptionStatus[] = ['Cancelled', 'Expired'],
): Promise<T> {
  const today = todayOf(ctx);
  return ctx.db.transaction().execute(async (trx) => {
    const row = await repo.lockSubscriptionRow(trx, ctx.account.id, subscriptionId);
    if (!row) throw new NotFoundError('Subscription', subscriptionId);
    const status = subscriptionStatus(
      {
        startDate: row.start_date,
        endDate: row.end_date,
        trialEndDate: row.trial_end_date,
        cancelDate: row.cancel_date,
      },
      today,
    );
    if (refuse.includes(status)) {
      throw new ConflictError(
        `subscription_${status.toLowerCase()}`,
        status === 'Future'
          ? `Subscription ${subscriptionId} starts on ${row.start_date}; usage is recorded from then`
          : `Subscription ${subscriptionId} is ${status.toLowerCase()}`,
      );
    }
    try {
      return await change(inTransaction(ctx, trx), row, today);
    } catch (error) {
      throw invariantConflict(error, subscriptionId);
    }
  });
}

/** Sets the usage row of a period for a component: inserting it, or changing what is given. */
async function writeUsage(
  ctx: ServiceContext,
  row: SubscriptionRow,
  period: UsagePeriod,
  componentId: number,
  values: { units?: Big; memo?: string | null; isSetUnits: boolean },
  now: string,
): Promise<void> {
  const existing = await repo.findUsage(ctx.db, ctx.account.id, row.id, componentId, period.start);
  if (existing) {
    await repo.updateUsage(ctx.db, ctx.account.id, existing.id, {
      ...(values.units !== undefined
        ? { num_units: unitsText(values.units), is_set_units: values.isSetUnits }
        : {}),
      ...(values.memo !== undefined ? { memo: values.memo } : {}),
      period_end: period.end,
      updated_at: now,
    });
    return;
  }
  await repo.insertUsage(ctx.db, {
    account_id: ctx.account.id,
    subscription_id: row.id,
    component_id: componentId,
    period_start: period.start,
    period_end: period.end,
    num_units: unitsText(values.units ?? new Big(0)),
    memo: values.memo ?? null,
    is_set_units: values.units !== undefined && values.isSetUnits,
    updated_at: now,
  });
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

    const now = ctx.clock.now().toISOString();
    const byComponent = new Map<number, ComponentRow>(current.map((c) => [c.component_id, c]));
    await repo.insertComponents(
      tctx.db,
      chosen
        .filter((c) => !byComponent.has(c.componentId))
        .map((c) => ({
          account_id: ctx.account.id,
          subscription_id: row.id,
          component_id: c.componentId,
          component_version_id: c.versionId,
          created_at: now,
        })),
    );
    for (const c of chosen) {
      const existing = byComponent.get(c.componentId);
      if (existing && existing.component_version_id !== c.versionId) {
        await repo.updateComponentVersion(tctx.db, ctx.account.id, existing.id, c.versionId);
      }
    }

    const withUsage = chosen.filter((c) => c.units !== undefined || c.memo !== undefined);
    if (withUsage.length > 0) {
      const period = await currentUsagePeriod(tctx.db, tctx, row, timelineFor(ctx, row), today);
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
      const period = await currentUsagePeriod(tctx.db, tctx, row, timelineFor(ctx, row), today);
      if (!period)
        throw new ConflictError('subscription_ended', `Subscription ${row.id} has stopped billing`);

      const problems: FieldProblem[] = [];
      const units = new Map<number, Big>();
      const planned: { componentId: number; units: Big; isSetUnits: boolean; memo?: string | null }[] = [];
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
        const brackets = pricing
          .get(component.component_version_id)
          ?.bracketsByCurrency.get(row.currency_code);
        if (!brackets || brackets.length === 0) {
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

      const now = ctx.clock.now().toISOString();
      for (const p of planned) {
        await writeUsage(
          tctx,
          row,
          period,
          p.componentId,
          { units: p.units, memo: p.memo, isSetUnits: p.isSetUnits },
          now,
        );
      }
      await repo.updateSubscription(tctx.db, ctx.account.id, row.id, { updated_at: now });
    },
    ['Future', 'Cancelled', 'Expired'],
  );
}

/**
 * Public notes: changestartdate. Only while nothing has been billed (after that the periods billed are fixed):
 * the trial's end, the billing anchor and the next invoice date follow the new start, and usage recorded for the
 * first period moves with it.
 */
export async function changeStartDate(
  ctx: ServiceContext,
  subscriptionId: number,
  startText: string,
): Promise<void> {
  const nextInvDate = await changeSubscription(ctx, subscriptionId, async (tctx, row, today) => {
    if (row.period_count > 0 || row.last_inv_date !== null || Boolean(row.setup_billed)) {
      throw new ConflictError(
        'subscription_billed',
        `Subscription ${row.id} has been billed; its StartDate can no longer change`,
      );
    }
    const problems: FieldProblem[] = [];
    const startDate = readDate(ctx, startText, 'StartDate', problems);
    if (startDate && row.end_date && row.end_date <= startDate) {
      problems.push({ field: 'StartDate', message: `must be before EndDate (${row.end_date})` });
    }
    const term = { count: row.term, unit: row.term_type as Term['unit'] };
    if (startDate && row.is_pro_rata && row.first_prorata_sync_date) {
      const latest = boundary(startDate, term, 1);
      if (row.first_prorata_sync_date <= startDate || row.first_prorata_sync_date > latest) {
        problems.push({
          field: 'StartDate',
          message: `must leave firstProrataSyncDate (${row.first_prorata_sync_date}) after it and at most one term after it`,
        });
      }
    }
    if (problems.length > 0 || !startDate) throw new ValidationError(problems);

    const trialEndDate = trialEndOf(startDate, row.trial_period, row.trial_period_type);
    const changed: SubscriptionRow = {
      ...row,
      start_date: startDate,
      trial_end_date: trialEndDate,
      anchor_date:
        trialEndDate ??
        (Boolean(row.is_pro_rata) && row.first_prorata_sync_date ? row.first_prorata_sync_date : startDate),
    };
    const before = usagePeriodAt(timelineFor(ctx, row), null, row.start_date);
    const after = usagePeriodAt(timelineFor(ctx, changed), null, startDate);
    if (before && after) await repo.moveUnbilledUsage(tctx.db, ctx.account.id, row.id, before.start, after);
    const unbilled = await repo.listUnbilledUsageOf(tctx.db, ctx.account.id, row.id);
    const next = scheduledInvoiceDate(timelineFor(ctx, changed), unbilled, today);
    await repo.updateSubscription(tctx.db, ctx.account.id, row.id, {
      start_date: changed.start_date,
      trial_end_date: changed.trial_end_date,
      anchor_date: changed.anchor_date,
      next_inv_date: next,
      updated_at: ctx.clock.now().toISOString(),
    });
    return next;
  });
  await billIfDue(ctx, subscriptionId, nextInvDate);
}

/**
 * Public notes: changeenddate; null clears the EndDate. The new EndDate is not before today nor on or before the
 * StartDate. A period already billed past the new end stays billed as it was (no credit is made here). Once the
 * last period has been billed short to the old EndDate, the subscription cannot be lengthened: its next period
 * would not start on its billing cycle.
 */
export async function changeEndDate(
  ctx: ServiceContext,
  subscriptionId: number,
  endText: string | null,
): Promise<void> {
  const nextInvDate = await changeSubscription(ctx, subscriptionId, async (tctx, row, today) => {
    const problems: FieldProblem[] = [];
    const endDate = endText === null ? null : readDate(ctx, endText, 'EndDate', problems);
    if (endDate && endDate < today)
      problems.push({ field: 'EndDate', message: `must not be before today (${today})` });
    else if (endDate && endDate <= row.start_date) {
      problems.push({ field: 'EndDate', message: `must be after StartDate (${row.start_date})` });
    }
    if (problems.length > 0 || endDate === undefined) throw new ValidationError(problems);

    const changed: SubscriptionRow = { ...row, end_date: endDate };
    const before = timelineFor(ctx, row);
    const after = timelineFor(ctx, changed);
    if (row.next_renew_date && (endDate === null || endDate > row.next_renew_date)) {
      try {
        usagePeriodAt(after, null, row.next_renew_date);
      } catch (error) {
        if (!(error instanceof BillingInvariantError)) throw error;
        throw new ConflictError(
          'subscription_billed_to_end',
          `Subscription ${row.id} was billed to its EndDate (${row.end_date}) with a short last period; ` +
            'it cannot be lengthened (subscribe the customer again instead)',
        );
      }
    }
    // Usage recorded in the current period moves with the period's new end (cut short, or lengthened again).
    const day = row.start_date > today ? row.start_date : today;
    const billedRow = await repo.findBilledPeriod(tctx.db, ctx.account.id, row.id, day);
    const billed = billedRow ? { start: billedRow.period_start, end: billedRow.period_end } : null;
    const oldPeriod = usagePeriodAt(before, billed, today);
    const newPeriod = usagePeriodAt(after, billed, today);
    if (oldPeriod && newPeriod && oldPeriod.start === newPeriod.start && oldPeriod.end !== newPeriod.end) {
      await repo.moveUnbilledUsage(tctx.db, ctx.account.id, row.id, oldPeriod.start, newPeriod);
    }
    const unbilled = await repo.listUnbilledUsageOf(tctx.db, ctx.account.id, row.id);
    const next = scheduledInvoiceDate(after, unbilled, today);
    await repo.updateSubscription(tctx.db, ctx.account.id, row.id, {
      end_date: endDate,
      next_inv_date: next,
      updated_at: ctx.clock.now().toISOString(),
    });
    return next;
  });
  await billIfDue(ctx, subscriptionId, nextInvDate);
}
