import type { PlainDate } from '../../core/calendar.ts';

export type AdjustmentDirection = 'positive' | 'negative';

export interface Adjustment {
  id: number;
  customerId: number;
  direction: AdjustmentDirection;
  adjustmentType: string;
  currencyCode: string;
  amountMinor: number;
  /** Allocated to a positive adjustment, or from a negative one. */
  allocatedMinor: number;
  date: PlainDate;
  /** Positive adjustments only; null for negative ones. */
  dueDate: PlainDate | null;
  ref: string | null;
  memo: string | null;
}

/** An adjustment as stored (adjustment.mapper.ts makes it from its row): with the subscription it was issued for. */
export interface AdjustmentRecord extends Adjustment {
  /** The subscription whose cancellation or change this credit was issued for. */
  subscriptionId: number | null;
}

/** A new adjustment, as the ledger writes it. */
export interface NewAdjustment {
  accountId: number;
  customerId: number;
  direction: AdjustmentDirection;
  adjustmentType: string;
  subscriptionId: number | null;
  currencyCode: string;
  amountMinor: number;
  date: PlainDate;
  dueDate: PlainDate | null;
  ref: string | null;
  memo: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What an edit of an adjustment writes: the fields given; the others stay. */
export interface AdjustmentChanges {
  adjustmentType?: string;
  amountMinor?: number;
  date?: PlainDate;
  dueDate?: PlainDate | null;
  ref?: string | null;
  memo?: string | null;
  updatedAt: string;
}
