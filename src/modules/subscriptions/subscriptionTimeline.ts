import type { Selectable } from 'kysely';
import { dateAt } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Term } from '../../core/periods.ts';
import type { PriceTerms, SubscriptionTimeline } from '../../core/subscriptionBilling.ts';
import type { SubscriptionsTable } from '../../storage/schema.ts';

export type SubscriptionRow = Selectable<SubscriptionsTable>;

/** A change of package, version or rate term scheduled for the next renewal (the `pending_change` column). */
export interface PendingChange {
  effectiveDate: PlainDate;
  packageId: number;
  packageVersionId: number;
  packageRateTermId: number;
  label: string;
  term: Term;
  chargePrice: string;
  setupFee: string;
  trialFee: string;
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

/** What the billing core needs of a subscription. `label` names the package on invoice lines. */
export function timelineOf(row: SubscriptionRow, label: string, timeZone: string): SubscriptionTimeline {
  const pending = parsePendingChange(row.pending_change);
  return {
    currencyCode: row.currency_code,
    startDate: row.start_date,
    endDate: row.end_date,
    trialEndDate: row.trial_end_date,
    isProRata: Boolean(row.is_pro_rata),
    firstProrataSyncDate: row.first_prorata_sync_date,
    anchorDate: row.anchor_date,
    numDaysBeforeToInv: row.num_days_before_to_inv,
    createdOn: dateAt(row.created_at, timeZone),
    cancelDate: row.cancel_date,
    periodCount: row.period_count,
    nextRenewDate: row.next_renew_date,
    setupBilled: Boolean(row.setup_billed),
    terms: priceTermsOf(row, label),
    pendingChange: pending && {
      effectiveDate: pending.effectiveDate,
      terms: {
        label: pending.label,
        term: pending.term,
        chargePrice: pending.chargePrice,
        setupFee: pending.setupFee,
        trialFee: pending.trialFee,
      },
    },
  };
}
