import type { FastifyBaseLogger } from 'fastify';
import type { BlockList } from 'node:net';
import { fixedClock } from './clock.ts';
import type { Clock } from './clock.ts';
import { dateAt } from './core/calendar.ts';
import type { PlainDate } from './core/calendar.ts';
import type { StatementPeriod } from './core/periods.ts';
import type { DocumentFor, DocumentRenderer } from './pdf/documentPool.ts';
import type { PasswordHashing } from './security/passwords.ts';
import type { SecretBox } from './security/secretBox.ts';
import type { Db } from './storage/database.ts';
import { sentTogether } from './storage/sentTogether.ts';

/**
 * The account a context acts for, as every module sees it. It is defined here, below every module, so that the
 * context needs no module (auth makes and reads accounts, and re-exports this type).
 */
export interface Account {
  id: number;
  name: string;
  timeZone: string;
  currencyCode: string;
  /** A test account bills on its own clock (`testClockAt`), which the API moves forward. */
  isTest: boolean;
  testClockAt: string | null;
  /** Days from an invoice's date to its due date. */
  invoiceDueDays: number;
  /** Defaults for an invoice's Notes and Terms when a request leaves them unset. */
  invoiceNotes: string | null;
  invoiceTerms: string | null;
  /** How failed card collections are retried, and what happens when retries run out (docs/gateways.md). */
  dunning: DunningSettings;
  /** How often automatic statements go out (docs/spec-decisions.md, "Statements"). */
  statementPeriod: StatementPeriod;
  /** The customer portal's address, /portal/{portalSlug}/ (docs/portal.md); null until the account sets one. */
  portalSlug: string | null;
  /** Moves on whenever portalSlug changes: the portal's sessions and tokens of an earlier slug no longer work. */
  portalEpoch: number;
  /** What customers may change in the portal (docs/portal.md, "What customers may change"). */
  portalSelfService: PortalSelfService;
  /** Whether the account's prices include tax, unless a rate or currency says otherwise (docs/pricing.md). */
  isTaxInclusive: boolean;
  /** The default bill-cycle day (1–31) of its customers (docs/pricing.md, "Bill-cycle day"); null for none. */
  billCycleDay: number | null;
  /** What the collection loop does on its own (docs/gateways.md, "The collection loop"). */
  collectionLoop: CollectionLoopSettings;
  /** How many hours late a usage event may arrive (docs/usage.md, "Grace and late events"). */
  usageGraceHours: number;
  /** Whether customers are e-mailed when a usage alert fires (docs/usage.md, "Alerts"). */
  usageAlertEmails: boolean;
  /** How VAT is accounted for (docs/tax.md). */
  vat: VatSettings;
  /** What customers are told beyond invoices and collections (docs/tax.md, "What customers are told"). */
  notices: NoticeSettings;
}

/** Notices to customers, each on by default; their events are emitted whatever these say. */
export interface NoticeSettings {
  /** Each tax credit note is e-mailed, with its PDF, to a customer who gets its invoices by e-mail. */
  creditNotes: boolean;
  /** A refund through a gateway: how much, to what, and when to expect it. */
  refunds: boolean;
  /** A wallet's balance fell below its low-balance alert: the customer is e-mailed. */
  lowBalance: boolean;
  /** A cancelled subscription: what ends when, and any credit. */
  cancellations: boolean;
  /** A subscription's pause: confirmed, resuming soon, resumed (docs/subscriptions.md, "Pause and resume"). */
  pauses: boolean;
  /** The staff address (StaffEmail, else ContactEmail) gets a copy of these notices (off by default). */
  copyStaff: boolean;
}

/** How the account accounts for VAT (docs/tax.md). */
export interface VatSettings {
  /**
   * How the prepaid credit it sells from now on is taxed: when it is sold (the VAT Act's section 10(19), the
   * default) or when it is used (section 10(18), a monetary voucher). Credit sold before keeps its own.
   */
  prepaidCredit: 'when_sold' | 'when_used';
  /** The VAT report's basis: invoice (documents by their date) or payments (by the date money came in). */
  basis: 'invoice' | 'payments';
}

export interface CollectionLoopSettings {
  /** A receipt to the customer for every payment collected (on by default). */
  sendReceipts: boolean;
  /** A notice to the customer at every failed collection, with what happens next (on by default). */
  sendPaymentFailed: boolean;
  /** Reminders of the invoices the customer pays itself (on by default), on `reminderDays`. */
  sendReminders: boolean;
  /** Days relative to the due date (negative: before it) on which an unpaid invoice is reminded; null: the default. */
  reminderDays: number[] | null;
  /** The customer's unapplied credit pays an invoice before it is charged or bundled (on by default). */
  applyCreditFirst: boolean;
  /** Bundled debit-order batches are submitted on their last safe day without a person (off by default). */
  autoSubmitBatches: boolean;
  /** Where notices to the account's staff go; null: the seller's ContactEmail (none: the event alone). */
  staffEmail: string | null;
  /**
   * Below this, in minor units of the account's currency, an invoice past due is a small leftover the staff are
   * told of at once (docs/gateways.md, "Small leftovers"); null: none is.
   */
  smallInvoiceMinor: number | null;
  /**
   * A charge from a provider's popup that arrives for an invoice already paid: refunded through the provider (the
   * default) or kept as the customer's credit (docs/hosted-pages.md, "When the browser never comes back").
   */
  lateCharges: LateChargeHandling;
}

export type LateChargeHandling = 'refund' | 'credit';

export interface PortalSelfService {
  /** Whether a customer may cancel a subscription at the end of its period. */
  allowCancel: boolean;
  /** Whether a customer may buy prepaid credit for its wallets (docs/portal.md, "Prepaid credit"). */
  allowTopUps: boolean;
  /** The least and the most credit bought at once, in the currencies the account set them for. */
  topUpLimits: TopUpLimit[];
  /** The packages a customer may switch a subscription to; empty: no switching. */
  switchPackageIds: number[];
  /** Whether a customer may pause a subscription, for how many days at most and how often (docs/portal.md, "Pausing"). */
  pause: PortalPauseLimits;
}

/** Pausing in the portal: off by default; at most maxDays long, at most maxPerYear in any 365 days. */
export interface PortalPauseLimits {
  allowed: boolean;
  maxDays: number;
  maxPerYear: number;
}

/** Portal top-ups' bounds in one currency, in its minor units. */
export interface TopUpLimit {
  currencyCode: string;
  minMinor: number;
  maxMinor: number;
}

export interface DunningSettings {
  /** Days after the first failure on which soft declines are tried again; null: the default schedule. */
  retryDays: number[] | null;
  /** Attempts after which an invoice is no longer tried; null: the default. */
  maxAttempts: number | null;
  /** When retries run out: suspend the customer, and cancel its subscriptions at the end of their period. */
  suspendCustomer: boolean;
  cancelSubscriptions: boolean;
}

/**
 * Who asked for a change, for the audit log: an API key (with the client's address, the request id and the
 * operation), or someone at the command line. Absent for the service's own work (the bill run, the workers).
 */
export type Actor =
  | { kind: 'api_key'; apiKeyId: number; clientAddress: string; requestId: string; operation: string }
  | { kind: 'cli'; clientAddress: string; operation: string }
  /**
   * A customer in a hosted page, who has no key: the page's token (a capture session's HashToken, a portal
   * session) is the capability. In the customer portal, once signed in, `contactId` says which contact acted.
   */
  | { kind: 'widget'; clientAddress: string; requestId: string; operation: string; contactId?: number };

/**
 * What lower modules ask of higher ones at a moment only the lower module knows (docs/architecture.md, "Ports"):
 * an invoice issued, an allocation changed, a mandate cancelled. Each module that asks declares its member
 * in its own `ports.ts`, by merging into this interface; the composition root (src/modulePorts.ts) builds the one
 * object, so a port nobody answers is a type error there, and no module holds a registry.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by each module's ports.ts
export interface Ports {}

/** What every use case receives first: the account it acts for, its database handle and its side effects. */
export interface ServiceContext {
  account: Account;
  db: Db;
  /**
   * The account's clock: business time, which every billing rule, due date, schedule and event `timestamp` is
   * decided on. A test account's is its test clock, which stands still until the test-clock API moves it; the bill
   * run's is the instant it bills as of.
   */
  clock: Clock;
  /**
   * The wall clock, which no test clock moves (docs/architecture.md, "Two clocks"). Right only for time that
   * other processes or machines compare with their own, or that measures how long something really took:
   * - when a charge or refund attempt was leased, and which attempts are old enough to be asked about again (an
   *   answer in flight takes real time, whatever a test clock shows);
   * - when a gateway call started (with its measured duration);
   * - when an event was written (`recorded_at`, retention) and the time in its id, so ids sort in writing order;
   * - a webhook's `webhook-timestamp`, which receivers compare with their own clock, and an HTTP-date
   *   `Retry-After`;
   * - on a test account, the times its webhook requests give delivery (`serviceNow`: a resend, a rotated secret's
   *   expiry), which runs on the service's time, not on the account's standing test clock.
   * Everything else reads `clock`.
   */
  wallClock: Clock;
  log: FastifyBaseLogger;
  secrets: SecretBox;
  /**
   * The HTTP client payment providers are reached with: `fetch` unless a test runs the service against a provider's
   * simulator (nothing global is patched).
   */
  providerFetch?: typeof fetch;
  /**
   * The origin of links that leave the service in what a context writes (e-mails, events): PUBLIC_URL, or for a
   * request on loopback the address it arrived on (http/origin.ts, linkOrigin); absent: no link can be made.
   */
  publicUrl?: string;
  /** Tells the mail worker that a committed change queued mail, so it need not wait for its next round. */
  mailQueued(): void;
  /** Who asked for what the context does (audit log); absent when the service acts on its own. */
  actor?: Actor;
  /** This process's webhook sender; absent where none runs. */
  webhookSender?: WebhookSender;
  /** This process's PDF threads (src/pdf/documentPool.ts); absent where none runs (the CLI draws no PDF). */
  documents?: DocumentRenderer;
  /** The service's cap on an account's stored usage events; absent where no usage event is recorded (the CLI). */
  usageStorage?: UsageStorageCap;
  /** The service's webhook settings, from its configuration; absent: the defaults (events module, `webhookRulesOf`). */
  webhookRules?: WebhookRules;
  /** The service's password hashing at its configured cost; absent: the default (security/passwords.ts). */
  passwordHashing?: PasswordHashing;
  /** The answers of higher modules to lower ones' questions, made once by the composition root. */
  ports: Ports;
  /** What the service keeps in memory for its own work while it runs: its own, never another service's. */
  memory: ServiceMemory;
}

/** A part of a service's memory: its name, and how it is made the first time a context of the service asks for it. */
export interface MemoryPart<T> {
  readonly name: string;
  make(): T;
}

/**
 * What a service keeps in memory for its own work while it runs (docs/architecture.md, "State a service keeps"):
 * made when the service starts, carried by every context it makes, cleared when it closes. Each module keeps its
 * parts here rather than in module-level variables, so that two services in one process (tests start many) never
 * share them. A context made outside a service (a command, a benchmark) gets a memory of its own from contextFor.
 */
export interface ServiceMemory {
  /** The part of `kind`, made when first asked for. */
  part<T>(kind: MemoryPart<T>): T;
  /** Forgets every part: the service has closed. */
  clear(): void;
}

export function serviceMemory(): ServiceMemory {
  const parts = new Map<MemoryPart<unknown>, unknown>();
  return {
    // One lookup once made: key lookups ask for their part on every request (auth/credentialsCache.ts).
    part<T>(kind: MemoryPart<T>): T {
      let part = parts.get(kind);
      if (part === undefined && !parts.has(kind)) parts.set(kind, (part = kind.make()));
      return part as T;
    },
    clear: () => parts.clear(),
  };
}

/**
 * The cap on an account's stored usage events (USAGE_STORAGE_BYTES_PER_ACCOUNT; docs/usage.md, "Limits"), made once
 * per service by the usage module (`usageStorageCap`) and checked by it before and within each batch.
 */
export interface UsageStorageCap {
  /** 0: no cap. */
  readonly capBytes: number;
  /** 409 `usage_storage_full`, before any work, when this service already found the account at its cap. */
  refuseWhenKnownFull(accountId: number): void;
  /** 409 `usage_storage_full` when the account's stored events had reached the cap before this batch. */
  assertRoomForEvents(before: { accountId: number; bytes: number }): void;
}

/**
 * Where webhooks may be sent (docs/design/webhooks.md, "Endpoint addresses"), as the events module reads it
 * (webhookUrlPolicy.ts, which makes it from WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOWED_PRIVATE_HOSTS).
 */
export interface WebhookUrlPolicy {
  /** `http` URLs too (WEBHOOK_ALLOW_HTTP=true): for local receivers in tests and development. */
  readonly allowHttp: boolean;
  /** IPs and CIDRs let through although in a refused range (WEBHOOK_ALLOWED_PRIVATE_HOSTS), as configured. */
  readonly allowedPrivateHosts: readonly string[];
  readonly allowedPrivate: BlockList;
}

/**
 * A service's webhook settings, made once from its configuration (the events module's `webhookRules`) and carried
 * by its contexts and its workers, so that two services in one process keep each their own (docs/architecture.md,
 * "State a service keeps").
 */
export interface WebhookRules {
  readonly urlPolicy: WebhookUrlPolicy;
  /** WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT (docs/webhooks.md). */
  readonly maxEndpointsPerAccount: number;
}

/**
 * What a process (a server, a worker, a command) holds to make the context of an account: everything of
 * ServiceContext but the account, the clocks as the process sees them.
 */
export interface ContextDeps {
  db: Db;
  /** The process's business clock, for accounts that are not test accounts. */
  clock: Clock;
  wallClock: Clock;
  log: FastifyBaseLogger;
  secrets: SecretBox;
  /** Absent where no mail worker runs: a running server picks queued mail up at its next round. */
  mailQueued?: () => void;
  webhookSender?: WebhookSender;
  documents?: DocumentRenderer;
  usageStorage?: UsageStorageCap;
  webhookRules?: WebhookRules;
  passwordHashing?: PasswordHashing;
  ports: Ports;
  /** The service's memory; absent: the context gets one of its own (a command, a benchmark). */
  memory?: ServiceMemory;
  providerFetch?: typeof fetch;
  publicUrl?: string;
  actor?: Actor;
}

/** The business clock of an account: a test account's own (its testClockAt), which only the test-clock API moves. */
export function accountClock(account: Account, clock: Clock): Clock {
  return account.isTest && account.testClockAt ? fixedClock(account.testClockAt) : clock;
}

/**
 * The one way to make a ServiceContext: the account's, from what the process holds. A test account lives on its
 * own clock (docs/architecture.md, "Two clocks"); what the deps leave out is left out of the context.
 */
export function contextFor(deps: ContextDeps, account: Account): ServiceContext {
  return {
    account,
    db: deps.db,
    clock: accountClock(account, deps.clock),
    wallClock: deps.wallClock,
    log: deps.log,
    secrets: deps.secrets,
    mailQueued: deps.mailQueued ?? (() => {}),
    ports: deps.ports,
    memory: deps.memory ?? serviceMemory(),
    ...(deps.webhookSender ? { webhookSender: deps.webhookSender } : {}),
    ...(deps.documents ? { documents: deps.documents } : {}),
    ...(deps.usageStorage ? { usageStorage: deps.usageStorage } : {}),
    ...(deps.webhookRules ? { webhookRules: deps.webhookRules } : {}),
    ...(deps.passwordHashing ? { passwordHashing: deps.passwordHashing } : {}),
    ...(deps.providerFetch ? { providerFetch: deps.providerFetch } : {}),
    ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}),
    ...(deps.actor ? { actor: deps.actor } : {}),
  };
}

/** Both clocks of a context, for work that makes its own context (an account's creation). */
export type Clocks = Pick<ServiceContext, 'clock' | 'wallClock'>;

/** A webhook endpoint as a delivery is sent to it (made by the events module's `sendingEndpointFromRow`). */
export interface SendingEndpoint {
  id: number;
  accountId: number;
  url: string;
  status: 'enabled' | 'disabled';
  /** The signing secret, sealed (security/secretBox.ts). */
  secretSealed: string;
  /** The secret before the last rotation, which still signs until `previousSecretExpiresAt`. */
  previousSecretSealed: string | null;
  previousSecretExpiresAt: string | null;
  /** Since when its deliveries have been failing; null after a success. */
  failingSince: string | null;
}

/** A delivery written already leased to this process's sender, with what sending it needs. */
export interface HandedOverDelivery {
  id: number;
  accountId: number;
  eventId: string;
  leaseUntil: string;
  payload: string;
  endpoint: SendingEndpoint;
}

/**
 * The webhook sender of this process (the webhook worker), as changes that write deliveries see it. Deliveries it
 * has room for are written already leased to it and handed over once their transaction has committed, so that it
 * sends them without leasing and reading them back; the rest wait in the database for a lease, as after a restart.
 */
export interface WebhookSender {
  /**
   * A change queued deliveries that were not handed over (to these endpoints, when it names them): look for them
   * soon rather than at the next round.
   */
  wake(endpointIds?: Iterable<number>): void;
  /** Room for up to so many deliveries to each endpoint (by id); undefined when it has room for none. */
  reserve(wanted: ReadonlyMap<number, number>): SendReservation | undefined;
}

/** Room a transaction holds with the webhook sender until it ends. */
export interface SendReservation {
  /** Deliveries it may write leased, by endpoint id (at most as many as wanted). */
  granted: ReadonlyMap<number, number>;
  /** The lease to write on them. */
  leaseUntil: string;
  /** The transaction ended: the room is given back, and the deliveries written leased are sent if it committed. */
  end(committed: boolean, deliveries: readonly HandedOverDelivery[]): void;
}

/** Today in the account's time zone: the calendar date every billing rule of the account is decided on. */
export function today(ctx: ServiceContext): PlainDate {
  return dateAt(ctx.clock.now(), ctx.account.timeZone);
}

/** The current instant as stored and returned (ISO 8601, UTC): for audit times such as `updated_at`. */
export function nowInstant(ctx: ServiceContext): string {
  return ctx.clock.now().toISOString();
}

/** The same context bound to an open transaction, for use cases that call each other inside one. */
export function inTransaction(ctx: ServiceContext, trx: Db): ServiceContext {
  return { ...ctx, db: trx };
}

/** What each read of `readTogether` gives. */
type ReadResults<R extends readonly ((ctx: ServiceContext) => Promise<unknown>)[]> = {
  -readonly [K in keyof R]: Awaited<ReturnType<R[K]>>;
};

/**
 * Reads that do not depend on each other, each a function of the context: in a PostgreSQL transaction sent
 * together, one round trip for all (storage/sentTogether.ts); elsewhere one after the other, in order.
 */
export function readTogether<R extends readonly ((ctx: ServiceContext) => Promise<unknown>)[]>(
  ctx: ServiceContext,
  ...reads: R
): Promise<ReadResults<R>> {
  return sentTogether(ctx.db, ...reads.map((read) => (db: Db) => read(inTransaction(ctx, db)))) as Promise<
    ReadResults<R>
  >;
}

/**
 * Whom the context's documents are drawn for (docs/operations.md, "PDF documents"): a customer in a hosted page by
 * the contact signed in, else by the address it asks from; the account's own staff and mail otherwise.
 */
export function documentFor(ctx: ServiceContext): DocumentFor {
  const { actor } = ctx;
  if (actor?.kind !== 'widget') return { accountId: ctx.account.id, customer: null };
  const customer =
    actor.contactId === undefined ? `address ${actor.clientAddress}` : `contact ${actor.contactId}`;
  return { accountId: ctx.account.id, customer };
}

/**
 * The context of a portal request once its session names the contact: the audit log then says which of the
 * customer's contacts asked for each change (docs/spec-decisions.md, "Customer portal").
 */
export function actingAsContact(ctx: ServiceContext, contactId: number): ServiceContext {
  if (ctx.actor?.kind !== 'widget') return ctx;
  return { ...ctx, actor: { ...ctx.actor, contactId } };
}

/**
 * Runs `work` in a transaction: the caller's when the context is already in one (a use case called by another,
 * or a preview that will be rolled back), else a new one.
 */
export function withTransaction<T>(
  ctx: ServiceContext,
  work: (ctx: ServiceContext) => Promise<T>,
): Promise<T> {
  if (ctx.db.isTransaction) return work(ctx);
  return ctx.db.transaction().execute((trx) => work(inTransaction(ctx, trx)));
}
