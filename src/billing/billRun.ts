import { contextFor, serviceMemory, today } from '../context.ts';
import type { Logger } from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.ts';
import { fixedClock } from '../clock.ts';
import type { MemoryPart, Ports, ServiceContext, ServiceMemory, WebhookSender } from '../context.ts';
import { dateAt, startOfDate } from '../core/calendar.ts';
import type { PlainDate } from '../core/calendar.ts';
import type { SecretBox } from '../security/secretBox.ts';
import type { Db } from '../storage/database.ts';
import { transactionSizer } from '../storage/transactionSizer.ts';
import type { TransactionSizer } from '../storage/transactionSizer.ts';
import { getAccount, listAccountIds } from '../modules/auth/index.ts';
import {
  collectDueInvoices,
  payOpenInvoicesFromCredit,
  sendDueReminders,
} from '../modules/collections/index.ts';
import { runBatches } from '../modules/batches/index.ts';
import { sendDueStatements } from '../modules/statements/index.ts';
import { expireLapsedEmandates, refreshDebiCheckAuthentications } from '../modules/mandates/index.ts';
import { expireCreditGrants } from '../modules/credits/index.ts';
import { PROVIDER_SWEEP_AFTER_MS, recoverCaptureSessions } from '../modules/widgets/index.ts';
import type { CollectionOptions } from '../modules/collections/index.ts';
import type { Account } from '../modules/auth/index.ts';
import { BillingInvariantError } from '../modules/invoicing/index.ts';
import {
  billRecurringInvoice,
  emitInvoicingTimeEvents,
  listDueRecurringInvoiceIds,
  parkRecurringInvoice,
} from '../modules/invoicing/index.ts';
import {
  billNextDueSubscriptions,
  billSubscription,
  dueSubscriptionIds,
  emitSubscriptionTimeEvents,
  expireIncompleteSubscriptions,
  expireUnpaidResumptions,
} from '../modules/subscriptions/index.ts';

/**
 * The bill run: for each account, everything due by today in the account's time zone — subscriptions in
 * stretches, each stretch one transaction, then recurring invoices. Safe to run twice, or in several processes at
 * once: a stretch holds its rows (SKIP LOCKED on PostgreSQL), a period already billed cannot be billed again (a
 * unique constraint), and a run stopped half-way leaves whole stretches only, which the next run continues.
 */
export interface BillingDeps {
  db: Db;
  clock: Clock;
  /** The wall clock the run's contexts carry (ServiceContext.wallClock). */
  wallClock: Clock;
  log: Logger;
  secrets: SecretBox;
  mailQueued(): void;
  ports: Ports;
  /** The service's memory (ServiceContext.memory); absent: runBilling makes one for the run (a command). */
  memory?: ServiceMemory;
  /** This process's webhook worker, which the run's changes hand their deliveries to. */
  webhookSender?: WebhookSender;
  /** The HTTP client payment providers are reached with (ServiceContext.providerFetch). */
  providerFetch?: typeof fetch;
  /** The origin of the links the run's e-mails carry (ServiceContext.publicUrl). */
  publicUrl?: string;
  /** COLLECTION_UNANSWERED_AFTER_MS: when a charge left unanswered is asked about again (default 2 minutes). */
  collectionUnansweredAfterMs?: number;
  /**
   * Aborted when the process is asked to stop (SIGTERM): the run stops after the transaction in progress, before
   * the next stretch, step or account, leaving whole stretches only, as a run cut short always does.
   */
  signal?: AbortSignal;
}

export interface BillRunSummary {
  accounts: number;
  subscriptions: number;
  invoices: number;
  parked: number;
  recurringInvoices: number;
  /** Card charges that reached a gateway, and how many of them collected the money. */
  collectionAttempts: number;
  collected: number;
  /** Due debit-order invoices put into batches, and batches handed to their gateway (or made into bank files). */
  batchLinesBundled: number;
  batchesBuilt: number;
  /** Statements of account queued for e-mail (autoSendStatement customers whose StatementDate came). */
  statementsSent: number;
  failures: number;
}

/**
 * The most due subscriptions billed in one transaction (one stretch of a pass); a stretch that fails is billed one
 * by one. On PostgreSQL every stretch is this long; on SQLite storage's transactionSizer sizes them by their CPU.
 */
export const SUBSCRIPTIONS_PER_TRANSACTION = 250;
/** Due recurring invoices read in one page; each is billed in its own transaction. */
const RECURRING_INVOICES_PER_PAGE = 250;
/** Passes over an account's due subscriptions in one run; a subscription far behind catches up 400 at a time. */
const MAX_PASSES = 100;

export function emptySummary(): BillRunSummary {
  return {
    accounts: 0,
    subscriptions: 0,
    invoices: 0,
    parked: 0,
    recurringInvoices: 0,
    collectionAttempts: 0,
    collected: 0,
    batchLinesBundled: 0,
    batchesBuilt: 0,
    statementsSent: 0,
    failures: 0,
  };
}

/** The account's context for a run at `at`: what contextFor makes, on a clock standing at that instant. */
export function billingContext(deps: BillingDeps, account: Account, at: Date | string): ServiceContext {
  const log = deps.log.child({ accountId: account.id }) as unknown as FastifyBaseLogger;
  return {
    ...contextFor({ ...deps, log }, account),
    clock: fixedClock(typeof at === 'string' ? at : at.toISOString()),
  };
}

/**
 * Bills everything of one account due by the day its context's clock shows, then collects it: the story of a
 * renewal from its invoice to the money (docs/architecture.md, "A renewal, step by step"). Each step counts what it
 * did in the summary; one that fails is logged and counted, and the steps after it still run.
 */
export async function billAccount(
  ctx: ServiceContext,
  collection: CollectionOptions = {},
  signal?: AbortSignal,
): Promise<BillRunSummary> {
  const summary = { ...emptySummary(), accounts: 1 };
  const on = today(ctx);
  const stopped = () => signal?.aborted === true;
  await billSubscriptionsDue(ctx, on, summary, stopped);
  if (stopped()) return summary;
  await billRecurringInvoicesDue(ctx, on, summary, stopped);
  if (stopped()) return summary;
  // After billing, so that the day's invoices are among the open ones; before collection, so that credit pays the
  // oldest invoices first, whoever collects them, and a card is charged only for what credit left.
  await payOpenInvoicesFromCreditOnce(ctx, on, summary);
  if (stopped()) return summary;
  // Before collection, so that money a provider's popup took is recorded before the run charges what it paid.
  await recordSessionsLeftWithProvider(ctx, summary);
  if (stopped()) return summary;
  // After billing, so that the day's invoices are collected the day they are due.
  await chargeCardInvoicesDue(ctx, collection, summary);
  if (stopped()) return summary;
  // Before the debit orders, so that a DebiCheck mandate the debtor approved since is collected today.
  await refreshDebiCheckAuthenticationsOnce(ctx, summary);
  if (stopped()) return summary;
  await runDebitOrderBatches(ctx, summary);
  if (stopped()) return summary;
  // After billing and collection, so that a statement shows the day's invoices and the money collected on them.
  await sendStatementsDue(ctx, summary);
  if (stopped()) return summary;
  // After collection, so that an invoice the day's run collected, or whose collection stopped today, is seen so.
  await sendRemindersDue(ctx, collection, summary);
  if (stopped()) return summary;
  // After collection and the debit orders, so that a first invoice paid today starts its subscription before the
  // subscriptions still unpaid expire (docs/subscriptions.md, "Subscriptions that start when paid").
  await expireIncompleteDue(ctx, on, summary);
  if (stopped()) return summary;
  // After billing and collection, so that an invoice the day's run paid off, or a term it renewed, is seen as it now is.
  await emitTimeEvents(ctx, on, summary);
  return summary;
}

/**
 * Invoices the account's due subscriptions (billNextDueSubscriptions), pass after pass while a pass still makes
 * invoices: a subscription far behind is billed a few periods per pass.
 */
async function billSubscriptionsDue(
  ctx: ServiceContext,
  on: PlainDate,
  summary: BillRunSummary,
  stopped: () => boolean,
): Promise<void> {
  const sizer = transactionSizer(ctx.db, SUBSCRIPTIONS_PER_TRANSACTION);
  for (let pass = 0; pass < MAX_PASSES && !stopped(); pass += 1) {
    const invoices = await billSubscriptionsPass(ctx, on, summary, sizer, stopped);
    summary.invoices += invoices;
    if (invoices === 0) break;
  }
}

/** One pass over the due subscriptions in id order, one transaction per stretch; how many invoices it made. */
async function billSubscriptionsPass(
  ctx: ServiceContext,
  on: PlainDate,
  summary: BillRunSummary,
  sizer: TransactionSizer,
  stopped: () => boolean,
): Promise<number> {
  let invoices = 0;
  for (let afterId = 0; !stopped();) {
    const stretch = await sizer.run((size) => billStretch(ctx, on, afterId, size, summary));
    invoices += stretch.invoices;
    if (stretch.items < stretch.size) return invoices;
    afterId = stretch.lastId;
  }
  return invoices;
}

interface Stretch {
  /** The subscriptions billed. */
  items: number;
  invoices: number;
  lastId: number;
}

/** Bills the due subscriptions after `afterId`, `size` of them, in one transaction. */
async function billStretch(
  ctx: ServiceContext,
  on: PlainDate,
  afterId: number,
  size: number,
  summary: BillRunSummary,
): Promise<Stretch> {
  try {
    const outcome = await billNextDueSubscriptions(ctx, on, size, afterId);
    summary.subscriptions += outcome.subscriptions;
    summary.parked += outcome.parked;
    return {
      items: outcome.subscriptions,
      invoices: outcome.invoiceIds.length,
      lastId: outcome.lastId,
    };
  } catch (error) {
    // One bad subscription must not hold back the others: bill this stretch one by one.
    ctx.log.error(
      { err: error, afterId },
      'billing a stretch of subscriptions failed; billing them one by one',
    );
    return billStretchOneByOne(ctx, on, afterId, size, summary);
  }
}

/** The same stretch, each subscription in its own transaction (billSubscription). */
async function billStretchOneByOne(
  ctx: ServiceContext,
  on: PlainDate,
  afterId: number,
  size: number,
  summary: BillRunSummary,
): Promise<Stretch> {
  const ids = await dueSubscriptionIds(ctx, on, size, afterId);
  let invoices = 0;
  for (const id of ids) {
    try {
      invoices += (await billSubscription(ctx, id)).length;
    } catch (error) {
      summary.failures += 1;
      ctx.log.error({ err: error, subscriptionId: id }, 'billing a subscription failed');
    }
  }
  summary.subscriptions += ids.length;
  return { items: ids.length, invoices, lastId: ids.at(-1) ?? afterId };
}

/** Invoices the account's due recurring invoices, each in its own transaction (billRecurringInvoice). */
async function billRecurringInvoicesDue(
  ctx: ServiceContext,
  on: PlainDate,
  summary: BillRunSummary,
  stopped: () => boolean,
): Promise<void> {
  while (!stopped()) {
    const ids = await listDueRecurringInvoiceIds(ctx, on, RECURRING_INVOICES_PER_PAGE);
    let made = 0;
    for (const id of ids) {
      if (stopped()) break;
      made += await billOrParkRecurringInvoice(ctx, id, summary);
      summary.recurringInvoices += 1;
    }
    summary.invoices += made;
    if (ids.length < RECURRING_INVOICES_PER_PAGE || made === 0) break;
  }
}

/** Bills one recurring invoice; how many invoices it made. */
async function billOrParkRecurringInvoice(
  ctx: ServiceContext,
  id: number,
  summary: BillRunSummary,
): Promise<number> {
  try {
    return (await billRecurringInvoice(ctx, id)).length;
  } catch (error) {
    if (error instanceof BillingInvariantError) {
      // Parked, as subscriptions are: out of the due list, the reason kept, until someone mends it.
      await parkRecurringInvoice(ctx, id, error.message);
      summary.parked += 1;
    } else {
      summary.failures += 1;
    }
    ctx.log.error({ err: error, recurInvoiceId: id }, 'billing a recurring invoice failed');
    return 0;
  }
}

/**
 * In the service's memory, the day each account's open invoices were last paid from credit by it. The pass reads
 * where every customer of the account holds money or grants, too much for every round of the worker
 * (BILLING_INTERVAL_MS), and it is for the day (docs/credits.md, "Consumption order"): so once an account day. It
 * changes nothing when repeated (credit spent is gone), so another process or a restart running it again that day
 * costs only its reads; a table to claim the day would make nothing safer.
 */
const CREDIT_PASS_DAYS: MemoryPart<Map<number, PlainDate>> = {
  name: 'credit pass days',
  make: () => new Map(),
};

/** The account's open invoices paid from its customers' credit (payOpenInvoicesFromCredit), once an account day. */
async function payOpenInvoicesFromCreditOnce(
  ctx: ServiceContext,
  on: PlainDate,
  summary: BillRunSummary,
): Promise<void> {
  const days = ctx.memory.part(CREDIT_PASS_DAYS);
  if (days.get(ctx.account.id) === on) return;
  try {
    await payOpenInvoicesFromCredit(ctx);
    days.set(ctx.account.id, on);
  } catch (error) {
    // The next run tries the day again.
    summary.failures += 1;
    ctx.log.error({ err: error }, 'paying open invoices from credit failed');
  }
}

/**
 * Capture sessions whose browser never came back from a provider's hosted fields or popup (recoverCaptureSessions;
 * docs/hosted-pages.md, "When the browser never comes back"), asked of the provider PROVIDER_SWEEP_AFTER_MS after
 * they started. Wall time: the customer in the popup takes real minutes, however a test clock stands.
 */
async function recordSessionsLeftWithProvider(ctx: ServiceContext, summary: BillRunSummary): Promise<void> {
  try {
    const startedBefore = new Date(ctx.wallClock.now().getTime() - PROVIDER_SWEEP_AFTER_MS).toISOString();
    await recoverCaptureSessions(ctx, startedBefore);
  } catch (error) {
    summary.failures += 1;
    ctx.log.error({ err: error }, 'recording capture sessions left with a provider failed');
  }
}

/** Charges the card invoices due today, and those whose retry is due (collectDueInvoices). */
async function chargeCardInvoicesDue(
  ctx: ServiceContext,
  collection: CollectionOptions,
  summary: BillRunSummary,
): Promise<void> {
  try {
    const collected = await collectDueInvoices(ctx, collection);
    summary.collectionAttempts += collected.attempts;
    summary.collected += collected.succeeded;
  } catch (error) {
    summary.failures += 1;
    ctx.log.error({ err: error }, 'collection failed');
  }
}

/**
 * Debit orders (runBatches): due ones bundled into payment batches, batches built once a person submitted them,
 * followed until the bank has answered.
 */
async function runDebitOrderBatches(ctx: ServiceContext, summary: BillRunSummary): Promise<void> {
  try {
    const batches = await runBatches(ctx);
    summary.batchLinesBundled += batches.bundled;
    summary.batchesBuilt += batches.built;
  } catch (error) {
    summary.failures += 1;
    ctx.log.error({ err: error }, 'batch run failed');
  }
}

/**
 * Statements of account for the autoSendStatement customers whose StatementDate has come (sendDueStatements):
 * once per customer and date, however often the day is run (the date moves on in the e-mail's transaction).
 */
async function sendStatementsDue(ctx: ServiceContext, summary: BillRunSummary): Promise<void> {
  try {
    summary.statementsSent += (await sendDueStatements(ctx)).sent;
  } catch (error) {
    // The next run sends what this one did not: the dates of the customers not reached have not moved.
    summary.failures += 1;
    ctx.log.error({ err: error }, 'statements failed');
  }
}

/** The bank's delayed answers to DebiCheck authentications, asked of their gateways (docs/design/mandates.md). */
async function refreshDebiCheckAuthenticationsOnce(
  ctx: ServiceContext,
  summary: BillRunSummary,
): Promise<void> {
  try {
    await refreshDebiCheckAuthentications(ctx);
  } catch (error) {
    // The next run asks again: nothing moved is lost.
    summary.failures += 1;
    ctx.log.error({ err: error }, 'DebiCheck authentications not refreshed');
  }
}

/** Reminders of the invoices customers pay themselves, each day of the account's schedule once. */
async function sendRemindersDue(
  ctx: ServiceContext,
  collection: CollectionOptions,
  summary: BillRunSummary,
): Promise<void> {
  try {
    await sendDueReminders(ctx, collection);
  } catch (error) {
    // The next run sends what this one did not: a reminder is marked sent only with its e-mail.
    summary.failures += 1;
    ctx.log.error({ err: error }, 'invoice reminders failed');
  }
}

/**
 * Subscriptions still unpaid on their IncompleteExpiryDate expire, their first invoices cancelled; resumptions still
 * unpaid on their ResumePayByDate are voided, the subscriptions left paused.
 */
async function expireIncompleteDue(
  ctx: ServiceContext,
  on: PlainDate,
  summary: BillRunSummary,
): Promise<void> {
  try {
    await expireIncompleteSubscriptions(ctx, on);
    // And resumes that waited for their invoice's payment (docs/subscriptions.md, "Resuming when paid").
    await expireUnpaidResumptions(ctx, on);
  } catch (error) {
    // The next run expires them: each is checked again under its hold.
    summary.failures += 1;
    ctx.log.error({ err: error }, 'expiring incomplete subscriptions failed');
  }
}

/** The moves time makes (an invoice past due, a trial ending), each emitted once. */
async function emitTimeEvents(ctx: ServiceContext, on: PlainDate, summary: BillRunSummary): Promise<void> {
  // Unsigned eMandates past their 24 hours expire (docs/design/mandates.md, "Lifecycle"); so do credit grants past
  // theirs (docs/credits.md, "Expiry").
  const expireGrants = async (ctx: ServiceContext) => {
    await expireCreditGrants(ctx);
  };
  for (const emitOf of [
    emitInvoicingTimeEvents,
    emitSubscriptionTimeEvents,
    expireLapsedEmandates,
    expireGrants,
  ]) {
    try {
      await emitOf(ctx, on);
    } catch (error) {
      // The next run emits them (their once-keys keep them to one).
      summary.failures += 1;
      ctx.log.error({ err: error }, 'time-driven events failed');
    }
  }
}

function add(total: BillRunSummary, part: BillRunSummary): void {
  for (const key of Object.keys(total) as (keyof BillRunSummary)[]) total[key] += part[key];
}

export interface BillRunOptions {
  /**
   * Bill as of this instead of the clock (every account, test accounts included): an instant, or a calendar
   * date, which each account reads in its own time zone.
   */
  asOf?: Date | { date: PlainDate };
  accountId?: number;
}

function asOfFor(account: Account, asOf: BillRunOptions['asOf']): Date | string | undefined {
  if (asOf === undefined || asOf instanceof Date) return asOf;
  return startOfDate(asOf.date, account.timeZone);
}

/**
 * One bill run over every account (or one). A test account is billed as of its own clock unless `asOf` is
 * given; other accounts as of the clock.
 */
export async function runBilling(given: BillingDeps, options: BillRunOptions = {}): Promise<BillRunSummary> {
  // One memory for all the run's accounts when no service gives its own.
  const deps = given.memory ? given : { ...given, memory: serviceMemory() };
  const summary = emptySummary();
  const accountIds = options.accountId !== undefined ? [options.accountId] : await listAccountIds(deps.db);
  for (const accountId of accountIds) {
    if (deps.signal?.aborted) break;
    const account = await getAccount(deps.db, accountId);
    const at =
      asOfFor(account, options.asOf) ??
      (account.isTest && account.testClockAt ? account.testClockAt : deps.clock.now());
    add(
      summary,
      await billAccount(
        billingContext(deps, account, at),
        { staleAfterMs: deps.collectionUnansweredAfterMs },
        deps.signal,
      ),
    );
  }
  return summary;
}

export interface BilledAhead {
  account: Account;
  /** The account's calendar date now, in its time zone. */
  today: PlainDate;
}

/**
 * The live accounts that a bill run as of `asOf` would bill after their today (in their time zone): that run would
 * issue real invoices and e-mail ahead of time. Test accounts are left out: they bill on a clock of their own, and
 * running them ahead harms nobody (their gateways move no money).
 */
export async function liveAccountsBilledAhead(
  db: Db,
  clock: Clock,
  options: { asOf: NonNullable<BillRunOptions['asOf']>; accountId?: number },
): Promise<BilledAhead[]> {
  const accountIds = options.accountId !== undefined ? [options.accountId] : await listAccountIds(db);
  const ahead: BilledAhead[] = [];
  for (const accountId of accountIds) {
    const account = await getAccount(db, accountId);
    if (account.isTest) continue;
    const today = dateAt(clock.now(), account.timeZone);
    const billedOn =
      options.asOf instanceof Date ? dateAt(options.asOf, account.timeZone) : options.asOf.date;
    if (billedOn > today) ahead.push({ account, today });
  }
  return ahead;
}
