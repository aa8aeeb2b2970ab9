import { emitEvent } from '../events/index.ts';
import { subscriptionRef } from './subscriptionEvents.ts';
import { nowInstant, today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { firstBillCycleSync, honoursBillCycleDay } from '../../core/billCycleDay.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { boundary } from '../../core/periods.ts';
import type { Term } from '../../core/periods.ts';
import { trialEndOf } from '../../core/subscriptionBilling.ts';
import { getCustomer } from '../customers/index.ts';
import { checkedOwnCollection } from '../invoicing/index.ts';
import * as repo from './subscription.repository.ts';
import {
  billIfDue,
  newComponentRows,
  newUsageRow,
  scheduledInvoiceDate,
  timelineFor,
} from './subscriptionEditing.ts';
import { chooseComponents, choosePriceTerms, priceChoiceColumns, readDate } from './subscriptionInput.ts';
import type { ComponentChoice, PriceChoiceInput } from './subscriptionInput.ts';
import { preview } from './subscriptionChanges.service.ts';
import { getSubscription } from './subscriptionReads.service.ts';
import type { Subscription } from './subscription.ts';
import { anchorDateOf } from './subscriptionTimeline.ts';
import { usagePeriodAt } from './usagePeriods.ts';

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

/**
 * What creating the subscription would make (POST /v1/subscriptions?preview=true): created and billed in a
 * transaction that is rolled back, by the very code that creates it; `render` reads the result inside it.
 */
export function previewSubscription<T>(
  ctx: ServiceContext,
  input: CreateSubscriptionInput,
  render: (ctx: ServiceContext, created: { subscription: Subscription; invoiceIds: number[] }) => Promise<T>,
): Promise<T> {
  return preview(ctx, async (tctx) => render(tctx, await createAndBillSubscription(tctx, input)));
}

async function createAndBillSubscription(
  ctx: ServiceContext,
  input: CreateSubscriptionInput,
): Promise<{ subscription: Subscription; invoiceIds: number[] }> {
  const on = today(ctx);
  const problems: FieldProblem[] = [];
  const startDate = input.startDate == null ? on : readDate(ctx, input.startDate, 'StartDate', problems);
  const endDate = input.endDate == null ? null : readDate(ctx, input.endDate, 'EndDate', problems);
  const isProRata = input.isProRata ?? false;
  const syncDate =
    input.firstProrataSyncDate == null
      ? null
      : readDate(ctx, input.firstProrataSyncDate, 'firstProrataSyncDate', problems);

  // As for contacts and notes, the customer a subscription belongs to is a 404 when the account cannot see it.
  const customer = await getCustomer(ctx, input.customerId);
  if (!customer.isActive) {
    throw new ConflictError(
      'customer_archived',
      `Customer ${input.customerId} is archived; reopen it before subscribing it to a package`,
    );
  }
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
  if (problems.length > 0 || !chosen || !startDate || endDate === undefined || syncDate === undefined) {
    throw new ValidationError(problems);
  }

  const now = nowInstant(ctx);
  const trialEndDate = trialEndOf(startDate, chosen.trialPeriod, chosen.trialPeriodType);
  const dates = {
    start_date: startDate,
    end_date: endDate,
    trial_end_date: trialEndDate,
    is_pro_rata: cycle ? cycle.syncDate !== null : isProRata,
    first_prorata_sync_date: cycle ? cycle.syncDate : isProRata ? syncDate : null,
    bill_cycle_day: cycle?.day ?? null,
    term: chosen.term.count,
    term_type: chosen.term.unit,
  };
  const values = {
    account_id: ctx.account.id,
    customer_id: customer.id,
    currency_code: currencyCode,
    ...priceChoiceColumns(chosen),
    ...dates,
    anchor_date: anchorDateOf(dates, trialEndDate),
    off_cycle_start: null,
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
    collection_method: collection.collectionMethod,
    gateway_id: collection.gatewayId,
    customer_payment_method_id: collection.customerPaymentMethodId,
    created_at: now,
    updated_at: now,
  } satisfies repo.NewSubscriptionRow;
  const timeline = timelineFor(ctx, { id: 0, ...values });
  // next_inv_date: the start less numDaysBeforeToInv, never before today (the core's rule for a new record).
  const nextInvDate = scheduledInvoiceDate(timeline, [], on);
  const firstPeriod = usagePeriodAt(timeline, null, startDate);

  const subscriptionId = await withTransaction(ctx, async (tctx) => {
    const trx = tctx.db;
    const id = await repo.insertSubscription(trx, { ...values, next_inv_date: nextInvDate });
    await repo.insertComponents(trx, newComponentRows(ctx, id, components, now));
    // Spec, componentUsage NumUnits (units used): initial units are usage of the first usage period.
    for (const c of components) {
      if ((c.units === undefined && c.memo == null) || !firstPeriod) continue;
      const usage = { units: c.units, memo: c.memo, isSetUnits: true };
      await repo.insertUsage(trx, newUsageRow(ctx, id, c.componentId, firstPeriod, usage, now));
    }
    await emitEvent(tctx, 'subscription.created', subscriptionRef(id));
    return id;
  });
  const invoiceIds = await billIfDue(ctx, subscriptionId, nextInvDate);
  return { subscription: await getSubscription(ctx, subscriptionId), invoiceIds };
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
