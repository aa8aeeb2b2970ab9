import type { Clock } from '../../clock.ts';
import type { FieldProblem } from '../../errors.ts';
import type { Db } from '../../storage/database.ts';
import type { Rail } from '../../core/bankingDays.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { FailureReason } from './failureReasons.ts';

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

/** A gateway's refusal with its normalised reason (src/modules/gateways/failureReasons.ts) and the provider's own code. */
export interface GatewayDecline {
  outcome: 'declined';
  reason: FailureReason;
  rawCode: string;
}

export type VaultResult = { outcome: 'ok'; token: string } | GatewayDecline;

/**
 * Who a charge or a saved card is for, as a provider that keeps customers of its own needs it (Paystack ties a
 * card's authorization to an e-mail address; Stripe keeps a Customer per payer). Never a card or bank number.
 */
export interface PayerDetails {
  /** Our customer's id as text, or the capture session's reference for a payer not yet a customer. */
  ref: string;
  email: string | null;
  name: string;
}

/**
 * What the capture frame loads to show the provider's own card fields (its hosted fields), decided without a call
 * to the provider: never a secret key. The card number goes from the browser to the provider; only the provider's
 * word, asked of it server-side, tells us what happened (docs/hosted-pages.md, "With a real provider").
 */
export interface HostedFields {
  /** Which of the frame's adapters runs (src/modules/widgets/hostedFieldsScripts.ts): `stripe`, `paystack`. */
  provider: string;
  /** The provider's script, loaded in the frame. */
  scriptUrl: string;
  /** Origins the frame's Content-Security-Policy allows for the provider's script, frames and calls. */
  origins: readonly string[];
  /** What the adapter mounts the fields with: a publishable key, the mode, amount and currency. */
  mount: Readonly<Record<string, string>>;
  /** The provider needs the payer's e-mail address (Paystack ties a card to one): the frame asks when unknown. */
  needsEmail: boolean;
  /**
   * The provider charges a stored card on session, its script finishing the bank's challenge in the page
   * (Stripe's PaymentIntent confirmed by the server, then `handleNextAction`): a setup may name `storedToken`.
   * Without it, the pay page's "Confirm payment" is the provider's checkout for a sale (docs/hosted-pages.md,
   * "Paying one invoice").
   */
  confirmsStoredCard?: boolean;
}

/** What the frame's hosted fields are shown for: a sale of an amount, or a card saved. */
export interface HostedFieldsRequest {
  /** A sale: this much (minor units). Absent: a card saved, verified by the provider. */
  amountMinor?: number;
  currencyCode: string;
  keepCard: boolean;
}

/** A card saved, or a sale made, through the provider's hosted fields: started server-side, then completed. */
export interface CardSetupRequest {
  /** Our key for the setup (the capture session's): the same key answers the same setup. */
  idempotencyKey: string;
  /** A sale with the card: charge this much now (minor units). Absent: save the card only, verified. */
  amountMinor?: number;
  currencyCode: string;
  payer: PayerDetails;
  description: string;
  /** Whether the card is kept for later charges off session (a vault), or used for this sale only. */
  keepCard: boolean;
  /**
   * A sale of the card kept under this token, confirmed now with the cardholder present (on session), for a
   * provider whose hosted fields say `confirmsStoredCard`: no card is entered; `confirm` carries what the provider's
   * script finishes the bank's challenge with, when the bank asks for one.
   */
  storedToken?: string;
}

/**
 * The setup started at the provider when the customer submits: `setupRef` is the provider's id of it (a
 * SetupIntent's, a PaymentIntent's, a transaction reference), kept by the service; `confirm` is what the frame's
 * adapter confirms it with in the browser (a client secret, an access code).
 */
export type CardSetupStart =
  | { outcome: 'ok'; setupRef: string; confirm: Readonly<Record<string, string>> }
  | GatewayDecline
  | { outcome: 'error'; reason: FailureReason; rawCode: string };

/** A card as a person may see it, from the provider's own record of it. */
export interface CardShownByProvider {
  cardType: string;
  lastFour: string;
  expiryMonth: number;
  expiryYear: number;
}

/**
 * The setup's outcome, looked up with the provider server-side (the browser's word is never taken): `ok` with the
 * token a later charge uses (when the card is kept and the provider says it can be charged again), the card as shown,
 * and the sale's charge; `incomplete` while the customer has not finished in the browser.
 */
export type CardSetupResult =
  | {
      outcome: 'ok';
      token: string | null;
      card: CardShownByProvider;
      charge?: { chargeId: string; state: 'succeeded' | 'pending' };
    }
  | { outcome: 'incomplete' }
  | GatewayDecline
  | { outcome: 'error'; reason: FailureReason; rawCode: string };

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
  /** The payer, for a provider that charges a saved card with its customer's reference or e-mail. */
  payer?: PayerDetails;
}

/**
 * What the customer must do in a browser for a charge to go ahead (3-D Secure, a bank's confirmation): a page to
 * open, or a client secret the provider's script confirms with.
 */
export type CustomerAction =
  { kind: 'redirect'; url: string } | { kind: 'client_secret'; clientSecret: string };

/**
 * `succeeded`: the money is taken. `pending`: accepted, the result comes later (a late event). `declined`: the
 * issuer said no. `requires_action`: nothing is taken until the customer acts in a browser (`action`); off session
 * the collection code treats it as the customer-action decline `authentication_required`. `error`: no decision was
 * made (nothing was charged).
 */
export type ChargeResult =
  | { outcome: 'succeeded'; chargeId: string }
  | { outcome: 'pending'; chargeId: string }
  | GatewayDecline
  | { outcome: 'requires_action'; chargeId: string; action: CustomerAction; rawCode: string }
  | { outcome: 'error'; reason: FailureReason; rawCode: string };

/** A charge looked up by our idempotency key, beyond the provider's own idempotency window. */
export type ChargeLookup = ChargeResult | { outcome: 'not_found' };

/**
 * How long a call to a provider may take before its answer counts as lost (GatewayTimeoutError): a charge can take
 * seconds while the issuer decides, and the providers' own limits are longer (Stripe's 80 s).
 */
export const PROVIDER_TIMEOUT_MS = 30_000;

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
  /** SA debit orders: the account's type as stored (Cheque, Current, Checking, Savings, Transmission). */
  accountType?: string | null;
  /** The debtor's identity number, opened for the call only: never recorded, logged or answered back. */
  identity?: { kind: 'sa_id' | 'passport'; number: string } | null;
  /** Our reference for the question (the payment method's), under which a bank's later answer comes back. */
  reference?: string | null;
}

/**
 * `ok`: the account exists and takes debits (SA AVS full match). `pending`: the bank answers later; nothing is known
 * yet: `providerRef` is what to ask the provider again by (bankValidationOutcome), absent when the bank's service
 * did not answer at all. `declined`: a permanent answer (no such account, closed, no debits, holder mismatch).
 */
export type BankValidationResult =
  | { outcome: 'ok'; detail?: string }
  | { outcome: 'pending'; detail?: string; providerRef?: string }
  | (GatewayDecline & { detail: string });

export interface RefundRequest {
  /** The provider's id of the charge refunded (a payment's Ref). */
  chargeId: string;
  amountMinor: number;
  currencyCode: string;
  /** The same key always means the same refund: asking again returns the first answer and refunds nothing more. */
  idempotencyKey: string;
}

/** `pending`: the provider accepted the refund and says later whether it went through (a late event). */
export type RefundResult =
  | { outcome: 'succeeded'; refundId: string }
  | { outcome: 'pending'; refundId: string }
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
  /** SA debit orders: the account's type as its bank knows it (`cheque`, `savings`, `transmission`). */
  accountType?: string | null;
  /** SA debit orders: the debtor's identity number, where the bank account has one. */
  idNumber?: string | null;
}

export interface BatchToSubmit {
  /** The same key always means the same batch: submitting again answers the first acceptance. */
  idempotencyKey: string;
  rail: Rail;
  currencyCode: string;
  actionDate: PlainDate;
  lines: readonly BatchLineToSubmit[];
  /**
   * The batch as the provider's own file, made by the batches module, for a provider that takes files (Netcash's
   * NIF, docs/gateways/netcash.md): what is uploaded, as it is. A file upload carries no idempotency key of ours:
   * submitBatchToGateway answers a key already used from its record instead of uploading again.
   */
  file?: string;
}

/**
 * `accepted`: the provider took the whole batch under `providerRef`; `submitted`: the provider received it under
 * `providerRef` (a file token) and says later, in its load report (`batchStatus`), whether it took it;
 * `rejected`: nothing was taken.
 */
export type BatchSubmitResult =
  | { outcome: 'accepted'; providerRef: string }
  | { outcome: 'submitted'; providerRef: string }
  | { outcome: 'rejected'; message: string; lineErrors: { lineRef: string; message: string }[] };

/** What the provider reported about one line: `unpaid` with the rail's code (SA 02, R01, AM04), or `paid`. */
export interface BatchLineReport {
  lineRef: string;
  outcome: 'paid' | 'unpaid';
  code: string | null;
  reportedOn: PlainDate;
}

/**
 * What a provider says of a charge or a refund after the fact:
 * - `dispute`: the cardholder disputed the charge and the money was taken back (a chargeback);
 * - `dispute_won`: the business won the dispute and the money came back; `dispute_lost`: it stays taken;
 * - `charge_settled`: a pending charge went through; `charge_failed`: it did not (with the reason);
 * - `refund_settled`: a pending refund went through; `refund_failed`: it did not, the money stays with the business.
 * `refundId` names the refund of the refund kinds; `chargeId` the charge of the others.
 */
export interface ChargeEvent {
  chargeId: string;
  refundId?: string;
  kind:
    | 'dispute'
    | 'dispute_won'
    | 'dispute_lost'
    | 'charge_settled'
    | 'charge_failed'
    | 'refund_settled'
    | 'refund_failed'
    /** A card setup that charged nothing went through (Stripe's setup_intent.succeeded); chargeId names it. */
    | 'setup_succeeded';
  code: string;
  reason?: FailureReason;
  /** The disputes' kinds: the amount disputed (minor units), when the provider says. */
  amountMinor?: number;
  reportedOn: PlainDate;
}

/** A provider's webhook request as it arrived: the body's exact bytes, which its signature covers. */
export interface WebhookRequest {
  headers: Readonly<Record<string, string | undefined>>;
  rawBody: Buffer;
}

/**
 * A webhook checked with the provider's own scheme: `verified` with the events it tells (none, for a kind the
 * service does not act on), `unverified` when the signature does not match (nothing is applied).
 */
export type WebhookResult =
  { outcome: 'verified'; events: ChargeEvent[] } | { outcome: 'unverified'; message: string };

/** A batch's load report: `loading` until the provider has read the file, then `accepted` or `rejected`. */
export type BatchStatus =
  | { outcome: 'loading' }
  | { outcome: 'accepted' }
  | { outcome: 'rejected'; message: string; lineErrors: { lineRef: string; message: string }[] };

/** A provider's statement of a day asked for: answered later under `pollingId`, or refused (its code in words). */
export type StatementRequest =
  { outcome: 'requested'; pollingId: string } | { outcome: 'refused'; message: string };

/** The statement asked for: `ready` with the document as the provider writes it, `not_ready` yet, or refused. */
export type StatementRetrieval =
  { outcome: 'ready'; document: string } | { outcome: 'not_ready' } | { outcome: 'refused'; message: string };

/** A check of the gateway's settings against the provider (its keys): `ok`, or in words what is wrong. */
export type SettingsCheck = { outcome: 'ok'; detail: string } | { outcome: 'refused'; message: string };

/**
 * A DebiCheck mandate the debtor is to authenticate with their bank (docs/gateways/netcash.md, "DebiCheck"), with
 * the account's number and the debtor's identity number opened: they go to the provider, never to a log.
 */
export interface DebiCheckToAuthenticate {
  /** The debtor's key in the provider's masterfile: the one its collections name. */
  accountReference: string;
  idKind: 'sa_id' | 'passport';
  idNumber: string;
  accountName: string;
  accountHolder: string;
  branchCode: string;
  accountNumber: string;
  /** The account's type as its bank knows it (`cheque`, `current`, `savings`, `transmission`). */
  accountType: string;
  mobileNumber: string;
  email: string | null;
  /** The instalment, minor units. */
  amountMinor: number;
  /** The first collection, when it differs from the instalment. */
  firstAmountMinor: number | null;
  firstCollectionDate: PlainDate;
  /** The day of the month collections fall on (1 to 31). */
  collectionDay: number;
}

/**
 * What a DebiCheck authentication is at the provider: `authenticated` (the debtor approved), `pending` (the bank has
 * not answered yet: ask again with `debiCheckStatus`), `declined`, `expired`, `cancelled`; `refused` when the provider
 * did not take the request (its code and words: nothing was sent to the bank). `contractReference` names the
 * authentication at the provider once it has one.
 */
export type DebiCheckAnswer =
  | {
      outcome: 'authenticated' | 'pending' | 'declined' | 'expired' | 'cancelled';
      contractReference: string | null;
      detail: string | null;
    }
  | { outcome: 'refused'; rawCode: string; detail: string };

/** An amendment of an authenticated mandate's amounts (minor units). */
export interface DebiCheckAmendment {
  amountMinor: number;
  maxAmountMinor: number;
}

/** The answer to an amendment or a cancel: `ok` when the provider took it to the bank, else its refusal. */
export type DebiCheckChange = { outcome: 'ok' } | { outcome: 'refused'; rawCode: string; detail: string };

/** The operations of a provider; a type that lacks one (no vault) leaves it out. */
export interface GatewayDriver {
  vaultCard?(target: GatewayTarget, card: CardToVault, at: string): Promise<VaultResult>;
  /** What the capture frame loads for the provider's hosted fields; no call is made. */
  hostedFields?(target: GatewayTarget, request: HostedFieldsRequest): HostedFields;
  /** Starts saving a card (or a sale) in the provider's hosted fields; the number never reaches the service. */
  startCardSetup?(target: GatewayTarget, request: CardSetupRequest, at: string): Promise<CardSetupStart>;
  /** The setup's outcome, asked of the provider by its `setupRef` (never taken from the browser). */
  completeCardSetup?(target: GatewayTarget, setupRef: string, at: string): Promise<CardSetupResult>;
  charge?(target: GatewayTarget, request: ChargeRequest, at: string): Promise<ChargeResult>;
  /** The charge made under our idempotency key, found after the provider's own idempotency window. */
  findCharge?(target: GatewayTarget, idempotencyKey: string, at: string): Promise<ChargeLookup>;
  validateBankAccount?(target: GatewayTarget, account: BankAccountToValidate): Promise<BankValidationResult>;
  /**
   * The bank's answer to a validation that was `pending` with a `providerRef` (SA AVS sent to the bank in bulk), asked
   * again under our `reference`: `pending` until the bank has answered.
   */
  bankValidationOutcome?(
    target: GatewayTarget,
    providerRef: string,
    reference: string,
  ): Promise<BankValidationResult>;
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
  /**
   * The load report of a batch the provider received (`submitted`), by its file token; `file` is the file uploaded,
   * for a provider whose report names lines by their place in it (Netcash's "Line :3").
   */
  batchStatus?(target: GatewayTarget, providerRef: string, file?: string): Promise<BatchStatus>;
  /**
   * Asks for the provider's statement of a day (Netcash's RequestMerchantStatement), which a provider whose results
   * come as a statement makes ready later; `retrieveStatement` fetches it by the polling id answered.
   */
  requestStatement?(target: GatewayTarget, day: PlainDate): Promise<StatementRequest>;
  retrieveStatement?(target: GatewayTarget, pollingId: string): Promise<StatementRetrieval>;
  /** A webhook the provider sent, verified from its raw body with the provider's scheme. */
  readWebhook?(target: GatewayTarget, request: WebhookRequest): WebhookResult | Promise<WebhookResult>;
  /** Tries the gateway's settings against the provider (its keys), for `billing gateway add` and its check. */
  checkSettings?(target: GatewayTarget): Promise<SettingsCheck>;
  /** Asks the debtor's bank to authenticate a DebiCheck mandate (real time: the answer may come in the call). */
  authenticateDebiCheck?(target: GatewayTarget, mandate: DebiCheckToAuthenticate): Promise<DebiCheckAnswer>;
  /** Where a DebiCheck authentication is now, by the provider's contract reference. */
  debiCheckStatus?(target: GatewayTarget, contractReference: string): Promise<DebiCheckAnswer>;
  /** Amends an authenticated DebiCheck mandate's amounts. */
  amendDebiCheck?(
    target: GatewayTarget,
    contractReference: string,
    amendment: DebiCheckAmendment,
  ): Promise<DebiCheckChange>;
  /** Cancels a DebiCheck authentication, with the bank's reason code (CUST: requested by the customer). */
  cancelDebiCheck?(
    target: GatewayTarget,
    contractReference: string,
    reasonCode: string,
  ): Promise<DebiCheckChange>;
}

/**
 * What a driver is given: the database for a simulator's own state (its vault), never a caller's transaction; the
 * gateway's settings (its credentials), opened; the HTTP client it reaches its provider with (`fetch` in
 * production, a provider's simulator in tests: nothing global is patched); and the wall clock (a webhook's signed
 * timestamp is compared with real time, whatever a test clock shows).
 */
export interface DriverDeps {
  db: Db;
  settings: Readonly<Record<string, unknown>>;
  fetch: typeof fetch;
  wallClock: Clock;
}

/** A gateway type's driver, and the check of the settings it needs when a gateway of that type is added. */
export interface DriverModule {
  create(deps: DriverDeps): GatewayDriver;
  /**
   * Its provider answers a check of the settings (GatewayDriver.checkSettings): a gateway of the type is added
   * disabled and enabled once the check passes (docs/operations.md, "Gateways").
   */
  checksSettings?: boolean;
  /**
   * Its provider verifies a new debit-order bank account with the debtor's bank before the first debit (SA AVS,
   * docs/gateways/netcash.md, "Account verification"), when its driver has `validateBankAccount`: an account added
   * for it is asked about at once.
   */
  verifiesNewBankAccounts?: boolean;
  /** The settings' problems, each naming its field (`Settings.secretKey`), all at once; none when they will do. */
  settingsProblems?(settings: Readonly<Record<string, unknown>>, isTestMode: boolean): FieldProblem[];
}
