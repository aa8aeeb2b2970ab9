import { emitEvent } from '../events/index.ts';
import { subscriptionRef } from './subscriptionEvents.ts';
import { nowInstant, today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { firstBillCycleSync, honoursBillCycleDay } from './billCycleDay.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { boundary } from '../../core/periods.ts';
import type { Term } from '../../core/periods.ts';
import { trialEndOf } from './subscriptionStatus.ts';
import { getCustomer } from '../customers/index.ts';
import type { Customer } from '../customers/index.ts';
import { checkedOwnCollection } from '../invoicing/index.ts';
import type { Collection } from '../invoicing/index.ts';
import * as repo from './subscription.repository.ts';
import { billIfDue, newUsage, scheduledInvoiceDate, timelineFor } from './subscriptionEditing.ts';
import { chooseComponents, choosePriceTerms, priceChoiceFields, readDate } from './subscriptionInput.ts';
import type { ChosenComponent, ComponentChoice, PriceChoice, PriceChoiceInput } from './subscriptionInput.ts';
import { preview } from './subscriptionChanges.service.ts';
import { getSubscription } from './subscriptionReads.service.ts';
import { NOT_BILLED_YET } from './subscription.ts';
import type { NewSubscription, Subscription } from './subscription.ts';
import { anchorDateOf } from './subscriptionTimeline.ts';
import { usagePeriodAt } from './usagePeriods.ts';
import type { UsagePeriod } from './usagePeriods.ts';
import { catchUpWarning } from './subscriptionWarnings.ts';
import { checkActivateOnPayment, incompleteUntilOf } from './subscriptionActivation.ts';
import type { SubscriptionWarning } from './subscriptionWarnings.ts';

export interface CreateSubscriptionInput extends PriceChoiceInput {
  customerId: number;
  /** Wire dates, read in the account's time zone. */
  startDate?: string | null;
  endDate?: string | null;
  numDaysBeforeToInv?: number;
  isProRata?: boolean;
  firstProrataSyncDate?: string | null;
  components?: ComponentChoice[];
  /** Its own collection, copied to its invoices; left out, they follow the customer's payment settings. */
  collectionMethod?: string | null;
  gatewayId?: number | null;
  customerPaymentMethodId?: number | null;
  /** Incomplete until its first invoice is paid (docs/subscriptions.md, "Subscriptions that start when paid"). */
  activateOnPayment?: boolean;
}

/**
 * Creates a subscription on a package version and one of its rate terms in the customer's currency, copying the
 * price terms onto it, with its first components. Billed at once when its first invoice is due.
 */
export async function createSubscription(
  ctx: ServiceContext,
  input: CreateSubscriptionInput,
): Promise<Subscription> {
  return (await createAndBillSubscription(ctx, input)).subscription;
}

/** createSubscription, with what the answer warns of (subscriptionWarnings.ts). */
export async function createSubscriptionWithWarnings(
  ctx: ServiceContext,
  input: CreateSubscriptionInput,
): Promise<{ subscription: Subscription; warnings: SubscriptionWarning[] }> {
  return createAndBillSubscription(ctx, input);
}

/**
 * What creating the subscription would make (POST /v1/subscriptions?preview=true): created and billed in a
 * transaction that is rolled back, by the very code that creates it; `render` reads the result inside it.
 */
export function previewSubscription<T>(
  ctx: ServiceContext,
  input: CreateSubscriptionInput,
  render: (
    ctx: ServiceContext,
    created: { subscription: Subscription; invoiceIds: number[]; warnings: SubscriptionWarning[] },
  ) => Promise<T>,
): Promise<T> {
  return preview(ctx, async (tctx) => render(tctx, await createAndBillSubscription(tctx, input)));
}

async function createAndBillSubscription(
  ctx: ServiceContext,
  input: CreateSubscriptionInput,
): Promise<{ subscription: Subscription; invoiceIds: number[]; warnings: SubscriptionWarning[] }> {
  const on = today(ctx);
  const customer = await subscribableCustomer(ctx, input.customerId);
  const checked = await checkNewSubscription(ctx, input, customer, on);
  const subscription = newSubscriptionOf(ctx, input, customer, checked);
  const timeline = timelineFor(ctx, { id: 0, ...NOT_BILLED_YET, ...subscription });
  // next_inv_date: the start less numDaysBeforeToInv, never before today (the core's rule for a new record).
  const nextInvDate = scheduledInvoiceDate(timeline, [], on);
  const firstPeriod = usagePeriodAt(timeline, null, checked.startDate);
  const catchUp = catchUpWarning(
    checked.startDate,
    subscription.trialEndDate ?? checked.startDate,
    checked.chosen.term,
    on,
  );
  const incompleteUntil = input.activateOnPayment
    ? incompleteUntilOf(checked.collection.collectionMethod ?? customer.paymentMethod, on)
    : null;
  const subscriptionId = await withTransaction(ctx, (tctx) =>
    insertSubscriptionWithComponents(tctx, { ...subscription, nextInvDate }, checked.components, {
      firstPeriod,
      backdated: catchUp !== undefined,
      incompleteUntil,
    }),
  );
  const invoiceIds = await billIfDue(ctx, subscriptionId, nextInvDate);
  const warnings = catchUp ? [catchUp] : [];
  return { subscription: await getSubscription(ctx, subscriptionId), invoiceIds, warnings };
}

/** As for contacts and notes, the customer a subscription belongs to is a 404 when the account cannot see it. */
async function subscribableCustomer(ctx: ServiceContext, customerId: number): Promise<Customer> {
  const customer = await getCustomer(ctx, customerId);
  if (!customer.isActive) {
    throw new ConflictError(
      'customer_archived',
      `Customer ${customerId} is archived; reopen it before subscribing it to a package`,
    );
  }
  return customer;
}

/** What a request for a new subscription chose, checked: every problem found is answered at once (422). */
interface CheckedNewSubscription {
  startDate: PlainDate;
  endDate: PlainDate | null;
  isProRata: boolean;
  syncDate: PlainDate | null;
  chosen: PriceChoice;
  components: ChosenComponent[];
  collection: Omit<Collection, 'customerId'>;
  cycle: { day: number; syncDate: PlainDate | null } | null;
}

async function checkNewSubscription(
  ctx: ServiceContext,
  input: CreateSubscriptionInput,
  customer: Customer,
  on: PlainDate,
): Promise<CheckedNewSubscription> {
  const problems: FieldProblem[] = [];
  const startDate = input.startDate == null ? on : readDate(ctx, input.startDate, 'StartDate', problems);
  const endDate = input.endDate == null ? null : readDate(ctx, input.endDate, 'EndDate', problems);
  const isProRata = input.isProRata ?? false;
  const syncDate =
    input.firstProrataSyncDate == null
      ? null
      : readDate(ctx, input.firstProrataSyncDate, 'firstProrataSyncDate', problems);
  const currencyCode = customer.currencyCode;
  const chosen = await choosePriceTerms(ctx, input, currencyCode, problems);
  const components = await chooseComponents(ctx, input.components ?? [], currencyCode, new Map(), problems);
  const collection = await checkedOwnCollection(ctx, customer.id, input, problems);

  if (startDate && endDate && endDate <= startDate) {
    problems.push({ field: 'EndDate', message: `must be after StartDate (${startDate})` });
  }
  const cycle =
    chosen && startDate
      ? billCycleOfNew(ctx, customer.billCycleDay, input, chosen.term, chosen, startDate)
      : null;
  checkProRata(problems, { isProRata, syncDate, startDate, chosen, cycle, input });
  if (input.activateOnPayment) {
    const numDaysBeforeToInv = input.numDaysBeforeToInv ?? 0;
    checkActivateOnPayment(problems, { on, startDate, numDaysBeforeToInv, trialPeriod: chosen?.trialPeriod });
  }
  if (problems.length > 0 || !chosen || !startDate || endDate === undefined || syncDate === undefined) {
    throw new ValidationError(problems);
  }
  return { startDate, endDate, isProRata, syncDate, chosen, components, collection, cycle };
}

/** A pro-rated first period needs its sync date (or a bill-cycle day), at most one term after the start. */
function checkProRata(
  problems: FieldProblem[],
  given: {
    isProRata: boolean;
    syncDate: PlainDate | null | undefined;
    startDate: PlainDate | undefined;
    chosen: PriceChoice | undefined;
    cycle: unknown;
    input: CreateSubscriptionInput;
  },
): void {
  const { isProRata, syncDate, startDate, chosen, cycle, input } = given;
  if (isProRata && input.firstProrataSyncDate == null && !cycle) {
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
}

/** The new subscription's record, with its dates, terms and anchor; the bill run sets the rest. */
function newSubscriptionOf(
  ctx: ServiceContext,
  input: CreateSubscriptionInput,
  customer: Customer,
  checked: CheckedNewSubscription,
): NewSubscription {
  const { startDate, endDate, isProRata, syncDate, chosen, collection, cycle } = checked;
  const now = nowInstant(ctx);
  const trialEndDate = trialEndOf(startDate, chosen.trialPeriod, chosen.trialPeriodType);
  const dates = {
    startDate,
    endDate,
    trialEndDate,
    isProRata: cycle ? cycle.syncDate !== null : isProRata,
    firstProrataSyncDate: cycle ? cycle.syncDate : isProRata ? syncDate : null,
    billCycleDay: cycle?.day ?? null,
    term: chosen.term.count,
    termType: chosen.term.unit,
  };
  return {
    accountId: ctx.account.id,
    customerId: customer.id,
    currencyCode: customer.currencyCode,
    ...priceChoiceFields(chosen),
    ...dates,
    anchorDate: anchorDateOf(dates, trialEndDate),
    numDaysBeforeToInv: input.numDaysBeforeToInv ?? 0,
    nextInvDate: null,
    collectionMethod: collection.collectionMethod,
    gatewayId: collection.gatewayId,
    customerPaymentMethodId: collection.customerPaymentMethodId,
    createdAt: now,
    updatedAt: now,
  };
}

/** Inserts the subscription, its components and their initial usage, and its events; returns its id. */
async function insertSubscriptionWithComponents(
  tctx: ServiceContext,
  subscription: NewSubscription,
  components: ChosenComponent[],
  given: { firstPeriod: UsagePeriod | null; backdated: boolean; incompleteUntil: PlainDate | null },
): Promise<number> {
  const { firstPeriod, backdated, incompleteUntil } = given;
  const trx = tctx.db;
  const accountId = tctx.account.id;
  const now = subscription.createdAt;
  const id = await repo.insertSubscription(trx, subscription);
  if (incompleteUntil) await repo.updateSubscription(trx, accountId, id, { incompleteUntil });
  await repo.insertComponents(trx, accountId, id, components, now);
  // Spec, componentUsage NumUnits (units used): initial units are usage of the first usage period.
  for (const c of components) {
    if ((c.units === undefined && c.memo == null) || !firstPeriod) continue;
    const usage = { units: c.units, memo: c.memo, isSetUnits: true };
    await repo.insertUsage(trx, accountId, newUsage(id, c.componentId, firstPeriod, usage, now));
  }
  await emitEvent(tctx, 'subscription.created', subscriptionRef(id));
  if (backdated) await emitEvent(tctx, 'subscription.backdated', subscriptionRef(id));
  if (incompleteUntil) await emitEvent(tctx, 'subscription.incomplete', subscriptionRef(id));
  return id;
}

/**
 * The bill-cycle day a new subscription renews on (docs/pricing.md, "Bill-cycle day"): the customer's, else the
 * account's, for a term of months, unless the request asks for its own cycle (a firstProrataSyncDate, or
 * isProRata false). With it, where the first period ends: the first day-date after the start, or after the
 * trial's end (null: the start, or the trial's end, falls on the day, and no stub is needed).
 */
function billCycleOfNew(
  ctx: ServiceContext,
  customerDay: number | null,
  input: Pick<CreateSubscriptionInput, 'isProRata' | 'firstProrataSyncDate'>,
  term: Term,
  trial: { trialPeriod: number; trialPeriodType: string },
  startDate: PlainDate,
): { day: number; syncDate: PlainDate | null } | null {
  const day = customerDay ?? ctx.account.billCycleDay;
  if (day === null || !honoursBillCycleDay(term)) return null;
  if (input.firstProrataSyncDate != null || input.isProRata === false) return null;
  const from = trialEndOf(startDate, trial.trialPeriod, trial.trialPeriodType) ?? startDate;
  return { day, syncDate: firstBillCycleSync(from, day, term) };
}
