import { cycleAnchorThrough } from './billCycleDay.ts';
import { dateAt } from '../../core/calendar.ts';
import { activationStatusOf } from './subscriptionActivation.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Term } from '../../core/periods.ts';
import type { PriceTerms, SubscriptionTimeline } from './subscriptionBilling.ts';
import { subscriptionStatus } from './subscriptionStatus.ts';
import type { SubscriptionStatus } from './subscriptionStatus.ts';
import type { SubscriptionRecord, SubscriptionStatusFields } from './subscription.ts';
import { awaitsResumptionPayment, pauseOf } from './subscriptionPause.ts';

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

/** The record's fields of package terms; a new choice adds the trial's length (`priceChoiceFields`). */
export function packageTermsFields(terms: PackageTerms) {
  return {
    packageId: terms.packageId,
    packageVersionId: terms.packageVersionId,
    packageRateTermId: terms.packageRateTermId,
    term: terms.term.count,
    termType: terms.term.unit,
    chargePrice: terms.chargePrice,
    setupFee: terms.setupFee,
    trialFee: terms.trialFee,
  };
}

export function parsePendingChange(text: string | null): PendingChange | null {
  return text === null ? null : (JSON.parse(text) as PendingChange);
}

/** The row's price terms; an unknown term type is kept as it is, so the billing core refuses it (and parks). */
export function priceTermsOf(row: SubscriptionRecord, label: string): PriceTerms {
  return {
    label,
    term: { count: row.term, unit: row.termType as Term['unit'] },
    chargePrice: row.chargePrice,
    setupFee: row.setupFee,
    trialFee: row.trialFee,
  };
}

/**
 * Billing periods are counted from the trial's end, else the pro-rata sync date, else the start; with a bill-cycle
 * day, from that day when the date falls on it in a short month (billCycleDay.ts, `cycleAnchorThrough`).
 */
export function anchorDateOf(
  row: Pick<SubscriptionRecord, 'startDate' | 'isProRata' | 'firstProrataSyncDate'> &
    Partial<Pick<SubscriptionRecord, 'billCycleDay' | 'term' | 'termType'>>,
  trialEndDate: PlainDate | null,
): PlainDate {
  const anchor =
    trialEndDate ??
    (Boolean(row.isProRata) && row.firstProrataSyncDate ? row.firstProrataSyncDate : row.startDate);
  if (row.billCycleDay == null || row.term === undefined || row.termType === undefined) return anchor;
  return cycleAnchorThrough(anchor, row.billCycleDay, {
    count: row.term,
    unit: row.termType as Term['unit'],
  });
}

/** The row's comp_Status on `today`. */
export function statusOf(row: SubscriptionStatusFields, today: PlainDate): SubscriptionStatus {
  const awaitingPayment = activationStatusOf(row);
  if (awaitingPayment) return awaitingPayment;
  const status = subscriptionStatus(
    {
      startDate: row.startDate,
      endDate: row.endDate,
      trialEndDate: row.trialEndDate,
      cancelDate: row.cancelDate,
      pause: pauseOf(row),
    },
    today,
  );
  // A resume waiting for its invoice's payment leaves it Paused, its period billed (docs/subscriptions.md).
  return status !== 'Cancelled' && status !== 'Expired' && awaitsResumptionPayment(row, today)
    ? 'Paused'
    : status;
}

/**
 * What the billing core needs of a subscription. `label` names the package on invoice lines; `taxInclusion` says
 * whether the prices of its terms and of its scheduled change include tax (exclusive when left out: only what
 * prices lines needs it).
 */
export function timelineOf(
  row: SubscriptionRecord,
  label: string,
  timeZone: string,
  taxInclusion?: { terms: boolean; pending: boolean },
): SubscriptionTimeline {
  const pending = parsePendingChange(row.pendingChange);
  return {
    currencyCode: row.currencyCode,
    startDate: row.startDate,
    endDate: row.endDate,
    trialEndDate: row.trialEndDate,
    isProRata: Boolean(row.isProRata),
    firstProrataSyncDate: row.firstProrataSyncDate,
    anchorDate: row.anchorDate,
    offCycleStart: row.offCycleStart,
    billCycleDay: row.billCycleDay,
    numDaysBeforeToInv: row.numDaysBeforeToInv,
    createdOn: dateAt(row.createdAt, timeZone),
    cancelDate: row.cancelDate,
    pause: pauseOf(row),
    periodCount: row.periodCount,
    nextRenewDate: row.nextRenewDate,
    setupBilled: Boolean(row.setupBilled),
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
