import type { Selectable } from 'kysely';
import { cycleAnchorThrough } from '../../core/billCycleDay.ts';
import { dateAt } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Term } from '../../core/periods.ts';
import { subscriptionStatus } from '../../core/subscriptionBilling.ts';
import type { PriceTerms, SubscriptionStatus, SubscriptionTimeline } from '../../core/subscriptionBilling.ts';
import type { SubscriptionsTable } from '../../storage/schema.ts';

export type SubscriptionRow = Selectable<SubscriptionsTable>;

/** A package version and rate term with the price terms a subscription copies from it. */
export interface PackageTerms {
  packageId: number;
  packageVersionId: number;
  packageRateTermId: number;
  label: string;
  term: Term;
  chargePrice: string;
  setupFee: string;
  trialFee: string;
}

/** A change of package, version or rate term scheduled for the next renewal (the `pending_change` column). */
export interface PendingChange extends PackageTerms {
  effectiveDate: PlainDate;
}

/** The subscription columns of package terms; a new choice adds the trial's length (`priceChoiceColumns`). */
export function packageTermsColumns(terms: PackageTerms) {
  return {
    package_id: terms.packageId,
    package_version_id: terms.packageVersionId,
    package_rate_term_id: terms.packageRateTermId,
    term: terms.term.count,
    term_type: terms.term.unit,
    charge_price: terms.chargePrice,
    setup_fee: terms.setupFee,
    trial_fee: terms.trialFee,
  };
}

export function parsePendingChange(text: string | null): PendingChange | null {
  return text === null ? null : (JSON.parse(text) as PendingChange);
}

/** The row's price terms; an unknown term type is kept as it is, so the billing core refuses it (and parks). */
export function priceTermsOf(row: SubscriptionRow, label: string): PriceTerms {
  return {
    label,
    term: { count: row.term, unit: row.term_type as Term['unit'] },
    chargePrice: row.charge_price,
    setupFee: row.setup_fee,
    trialFee: row.trial_fee,
  };
}

/**
 * Billing periods are counted from the trial's end, else the pro-rata sync date, else the start; with a bill-cycle
 * day, from that day when the date falls on it in a short month (billCycleDay.ts, `cycleAnchorThrough`).
 */
export function anchorDateOf(
  row: Pick<SubscriptionRow, 'start_date' | 'is_pro_rata' | 'first_prorata_sync_date'> &
    Partial<Pick<SubscriptionRow, 'bill_cycle_day' | 'term' | 'term_type'>>,
  trialEndDate: PlainDate | null,
): PlainDate {
  const anchor =
    trialEndDate ??
    (Boolean(row.is_pro_rata) && row.first_prorata_sync_date ? row.first_prorata_sync_date : row.start_date);
  if (row.bill_cycle_day == null || row.term === undefined || row.term_type === undefined) return anchor;
  return cycleAnchorThrough(anchor, row.bill_cycle_day, {
    count: row.term,
    unit: row.term_type as Term['unit'],
  });
}

/** The row's comp_Status on `today`. */
export function statusOf(row: SubscriptionRow, today: PlainDate): SubscriptionStatus {
  return subscriptionStatus(
    {
      startDate: row.start_date,
      endDate: row.end_date,
      trialEndDate: row.trial_end_date,
      cancelDate: row.cancel_date,
    },
    today,
  );
}

/**
 * What the billing core needs of a subscription. `label` names the package on invoice lines; `taxInclusion` says
 * whether the prices of its terms and of its scheduled change include tax (exclusive when left out: only what
 * prices lines needs it).
 */
export function timelineOf(
  row: SubscriptionRow,
  label: string,
  timeZone: string,
  taxInclusion?: { terms: boolean; pending: boolean },
): SubscriptionTimeline {
  const pending = parsePendingChange(row.pending_change);
  return {
    currencyCode: row.currency_code,
    startDate: row.start_date,
    endDate: row.end_date,
    trialEndDate: row.trial_end_date,
    isProRata: Boolean(row.is_pro_rata),
    firstProrataSyncDate: row.first_prorata_sync_date,
    anchorDate: row.anchor_date,
    offCycleStart: row.off_cycle_start,
    billCycleDay: row.bill_cycle_day,
    numDaysBeforeToInv: row.num_days_before_to_inv,
    createdOn: dateAt(row.created_at, timeZone),
    cancelDate: row.cancel_date,
    periodCount: row.period_count,
    nextRenewDate: row.next_renew_date,
    setupBilled: Boolean(row.setup_billed),
    terms: { ...priceTermsOf(row, label), ...(taxInclusion?.terms ? { isTaxInclusive: true } : {}) },
    pendingChange: pending && {
      effectiveDate: pending.effectiveDate,
      terms: {
        label: pending.label,
        term: pending.term,
        chargePrice: pending.chargePrice,
        setupFee: pending.setupFee,
        trialFee: pending.trialFee,
        ...(taxInclusion?.pending ? { isTaxInclusive: true } : {}),
      },
    },
  };
}
