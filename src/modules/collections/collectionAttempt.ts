/**
 * A collection attempt as the module reads it (collectionAttempt.mapper.ts makes it from its row): one charge of one
 * invoice at a gateway, from `started` until the gateway's answer.
 */
export interface CollectionAttempt {
  id: number;
  accountId: number;
  invoiceId: number;
  customerId: number;
  attemptNo: number;
  idempotencyKey: string;
  gatewayId: number;
  paymentMethodId: number;
  /** The vault token charged, sealed: opened only inside the gateway's call. */
  sealedToken: string;
  amountMinor: number;
  currencyCode: string;
  /** started (the gateway may have been asked), succeeded, pending, declined or error. */
  state: string;
  reason: string | null;
  rawCode: string | null;
  /** soft, hard, customer_action or technical (src/modules/gateways/failureReasons.ts). */
  retryClass: string | null;
  paymentId: number | null;
  /** The provider's id of the charge made (what a refund names). */
  chargeId: string | null;
  /** Business time. */
  startedAt: string;
  /** Wall-clock time: an attempt still `started` long after it is finished by the next collection run. */
  leasedAt: string;
  finishedAt: string | null;
}

/** An attempt about to ask the gateway: `started`, with no answer yet. */
export type NewCollectionAttempt = Omit<
  CollectionAttempt,
  'id' | 'reason' | 'rawCode' | 'retryClass' | 'paymentId' | 'chargeId' | 'finishedAt'
>;

/** What an attempt's answer writes on it. */
export interface FinishedAttempt {
  state: string;
  reason: string | null;
  rawCode: string | null;
  retryClass: string | null;
  finishedAt: string;
}

/** A refund asked of the gateway that charged a payment (refundAttempt.mapper.ts makes it from its row). */
export interface RefundAttempt {
  id: number;
  accountId: number;
  paymentId: number;
  /** The positive refund adjustment that reserves the money while the gateway is asked. */
  adjustmentId: number;
  gatewayId: number;
  chargeId: string;
  amountMinor: number;
  currencyCode: string;
  idempotencyKey: string;
  /** started, succeeded or declined. */
  state: string;
  refundId: string | null;
  rawCode: string | null;
  /** Business time. */
  startedAt: string;
  /** Wall-clock time: one still `started` long after is finished by the next run. */
  leasedAt: string;
  /** `credit`, `reopen`, or null for an attempt made before the choice existed (tables.ts). */
  paidInvoices: string | null;
  /** The credit note issued with the refund (`credit`, when it took money from invoices). */
  creditNoteId: number | null;
}

/** A refund attempt about to ask the gateway. */
export type NewRefundAttempt = Omit<RefundAttempt, 'id' | 'refundId' | 'rawCode'>;

/** What the gateway's answer writes on a refund attempt. */
export interface RefundAnswer {
  state: 'succeeded' | 'declined' | 'pending';
  refundId?: string;
  rawCode?: string;
}
