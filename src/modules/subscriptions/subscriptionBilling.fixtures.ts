import type { PlainDate } from '../../core/calendar.ts';
import type { Term } from '../../core/periods.ts';
import type { Bracket } from '../catalogue/index.ts';
import type {
  PlannedInvoice,
  PriceTerms,
  SubscriptionTimeline,
  UnbilledUsage,
} from './subscriptionBilling.ts';

/* Builders shared by the subscriptionBilling.*.test.ts files: a monthly Gold subscription and its usage. */

const MONTHLY: Term = { count: 1, unit: 'months' };

export const GOLD: PriceTerms = {
  label: 'Gold (v1)',
  term: MONTHLY,
  chargePrice: '30.00',
  setupFee: '0',
  trialFee: '0',
};

/** A monthly subscription at 30.00 USD, created on its start, nothing billed yet. */
export function subscription(overrides: Partial<SubscriptionTimeline> = {}): SubscriptionTimeline {
  const startDate = overrides.startDate ?? '2026-01-15';
  return {
    currencyCode: 'USD',
    startDate,
    endDate: null,
    trialEndDate: null,
    isProRata: false,
    firstProrataSyncDate: null,
    anchorDate: startDate,
    numDaysBeforeToInv: 0,
    createdOn: startDate,
    cancelDate: null,
    periodCount: 0,
    nextRenewDate: null,
    setupBilled: false,
    terms: GOLD,
    pendingChange: null,
    ...overrides,
  };
}

/** [periodNo, start, end, kind, amountMinor] of each invoice's period. */
export function periodsOf(invoices: readonly PlannedInvoice[]) {
  return invoices.map((invoice) =>
    invoice.period
      ? [
          invoice.period.periodNo,
          invoice.period.start,
          invoice.period.end,
          invoice.period.kind,
          invoice.period.amountMinor,
        ]
      : null,
  );
}

export const termLine = (start: PlainDate, end: PlainDate, label = 'Gold (v1)', unitCostEx = '30.00') => ({
  descrip: label,
  qty: '1',
  unitCostEx,
  periodStart: start,
  periodEnd: end,
});

// Brackets 1–10 at 1.00, 11–20 at 0.80, 21+ at 0.50 (the example of pricing.ts).
export const TIERED: Bracket[] = [
  { qtyFrom: '1', qtyTill: '10', price: '1.00' },
  { qtyFrom: '11', qtyTill: '20', price: '0.80' },
  { qtyFrom: '21', qtyTill: null, price: '0.50' },
];

export const usageRow = (
  usageId: number,
  periodStart: PlainDate,
  periodEnd: PlainDate,
  units: string,
): UnbilledUsage => ({
  usageId,
  label: 'API calls',
  unitName: 'calls',
  periodStart,
  periodEnd,
  units,
  scheme: 'unit',
  brackets: TIERED,
});
