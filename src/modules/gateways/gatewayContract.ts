import type { Db } from '../../storage/database.ts';
import type { Rail } from '../../core/batches.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { FailureReason } from '../../core/dunning.ts';

/**
 * What a payment provider plugs into: one driver per gateway type. Drivers speak in tokens, minor units and
 * idempotency keys, never in our invoices or payments; the collections code turns their answers into records.
 * Every call goes through `recordedCall` (gatewayCalls.ts), which records it.
 */

/** A card on its way to the vault; the number lives only in memory and is never stored, logged or echoed. */
export interface CardToVault {
  /** Digits only. */
  number: string;
  cardType: string;
  nameOnCard: string;
  lastNameOnCard: string;
  expiryMonth: number;
  expiryYear: number;
}

/** A gateway's refusal with its normalised reason (src/core/dunning.ts) and the provider's own code. */
export interface GatewayDecline {
  outcome: 'declined';
  reason: FailureReason;
  rawCode: string;
}

export type VaultResult = { outcome: 'ok'; token: string } | GatewayDecline;

export interface ChargeRequest {
  token: string;
  amountMinor: number;
  currencyCode: string;
  /** The same key always means the same charge: asking again returns the first answer and charges nothing. */
  idempotencyKey: string;
  description: string;
  /**
   * The cardholder, present, passed the issuer's challenge for this charge (3-D Secure): a card that answers
   * `authentication_required` off session is charged. A provider's hosted fields run the challenge themselves and
   * confirm the charge; the test gateway takes our simulated challenge's word (docs/hosted-pages.md, "3-D Secure").
   */
  authenticated?: boolean;
}

/**
 * `succeeded`: the money is taken. `pending`: accepted, the result comes later. `declined`: the issuer said no.
 * `error`: no decision was made (nothing was charged).
 */
export type ChargeResult =
  | { outcome: 'succeeded'; chargeId: string }
  | { outcome: 'pending'; chargeId: string }
  | GatewayDecline
  | { outcome: 'error'; reason: FailureReason; rawCode: string };

/**
 * The call got no answer in time: the provider may or may not have charged. The caller keeps the attempt open
 * and asks again with the same idempotency key (a reconciliation), never with a new one.
 */
export class GatewayTimeoutError extends Error {
  constructor(operation: string) {
    super(`the gateway did not answer ${operation} in time`);
    this.name = 'GatewayTimeoutError';
  }
}

export interface GatewayTarget {
  id: number;
  type: string;
  isTestMode: boolean;
}

/** A bank account as the gateway's validation receives it (offline checks already passed). */
export interface BankAccountToValidate {
  method: 'debit_order' | 'ach' | 'sepa';
  accountHolder: string;
  accountNumber: string | null;
  branchCode: string | null;
  routingNumber: string | null;
  iban: string | null;
}

/**
 * `ok`: the account exists and takes debits (SA AVS full match). `pending`: the bank's service did not answer;
 * nothing is known yet. `declined`: a permanent answer (no such account, closed, no debits, holder mismatch).
 */
export type BankValidationResult =
  { outcome: 'ok' | 'pending'; detail?: string } | (GatewayDecline & { detail: string });

export interface RefundRequest {
  /** The provider's id of the charge refunded (a payment's Ref). */
  chargeId: string;
  amountMinor: number;
  currencyCode: string;
  /** The same key always means the same refund: asking again returns the first answer and refunds nothing more. */
  idempotencyKey: string;
}

export type RefundResult =
  | { outcome: 'succeeded'; refundId: string }
  | GatewayDecline
  | { outcome: 'error'; reason: FailureReason; rawCode: string };

/** One line of a batch of debits, with the account's details opened (they go to the provider, never to a log). */
export interface BatchLineToSubmit {
  /** Our payment id: the provider and the bank report the line back under it. */
  lineRef: string;
  amountMinor: number;
  accountHolder: string;
  accountNumber: string | null;
  branchCode: string | null;
  routingNumber: string | null;
  iban: string | null;
}

export interface BatchToSubmit {
  /** The same key always means the same batch: submitting again answers the first acceptance. */
  idempotencyKey: string;
  rail: Rail;
  currencyCode: string;
  actionDate: PlainDate;
  lines: readonly BatchLineToSubmit[];
}

/** `accepted`: the provider took the whole batch under `providerRef`; `rejected`: nothing was taken. */
export type BatchSubmitResult =
  | { outcome: 'accepted'; providerRef: string }
  | { outcome: 'rejected'; message: string; lineErrors: { lineRef: string; message: string }[] };

/** What the provider reported about one line: `unpaid` with the rail's code (SA 02, R01, AM04), or `paid`. */
export interface BatchLineReport {
  lineRef: string;
  outcome: 'paid' | 'unpaid';
  code: string | null;
  reportedOn: PlainDate;
}

/** What a provider says of a charge after the fact: the cardholder disputed it (a chargeback). */
export interface ChargeEvent {
  chargeId: string;
  kind: 'dispute';
  code: string;
  reportedOn: PlainDate;
}

/** The operations of a provider; a type that lacks one (no vault) leaves it out. */
export interface GatewayDriver {
  vaultCard?(target: GatewayTarget, card: CardToVault, at: string): Promise<VaultResult>;
  charge?(target: GatewayTarget, request: ChargeRequest, at: string): Promise<ChargeResult>;
  validateBankAccount?(target: GatewayTarget, account: BankAccountToValidate): Promise<BankValidationResult>;
  refund?(target: GatewayTarget, request: RefundRequest, at: string): Promise<RefundResult>;
  /**
   * Every late event on the gateway's charges reported by `asOf` (business date), old ones included: the caller
   * applies each once. A provider that pushes them (webhooks) feeds the same path.
   */
  chargeEvents?(target: GatewayTarget, asOf: PlainDate): Promise<ChargeEvent[]>;
  submitBatch?(target: GatewayTarget, batch: BatchToSubmit, at: string): Promise<BatchSubmitResult>;
  /** Withdraws an accepted batch before the bank processes it (a revocation); `too_late` once it cannot. */
  cancelBatch?(
    target: GatewayTarget,
    providerRef: string,
    at: string,
  ): Promise<{ outcome: 'cancelled' } | { outcome: 'too_late'; message: string }>;
  /**
   * Every report the provider has made on the batch by `asOf` (business date), old ones included: the caller
   * applies each once. A provider whose results come as files the business uploads has no such operation.
   */
  batchReports?(target: GatewayTarget, providerRef: string, asOf: PlainDate): Promise<BatchLineReport[]>;
}

/** What a driver may use: the database for a simulator's own state (its vault), never a caller's transaction. */
export interface DriverDeps {
  db: Db;
}
