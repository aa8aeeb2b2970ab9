import type { KyselyPlugin } from 'kysely';
import type { DestinationStream, Logger } from 'pino';
import type { Config } from './config.ts';
import { ConfigError } from './config.ts';
import type { Clock } from './clock.ts';
import { systemClock } from './clock.ts';
import { buildApp } from './app.ts';
import { connectModules } from './connectModules.ts';
import type { App } from './http/types.ts';
import { IDEMPOTENCY_RETENTION_MS, purgeIdempotencyKeys } from './http/idempotency.ts';
import { InFlight } from './http/inflight.ts';
import { takeIdempotencyLease } from './http/idempotencyLease.ts';
import type { IdempotencyLease } from './http/idempotencyLease.ts';
import { createLogger, flushLogs } from './logger.ts';
import { startBillingWorker } from './billing/billing.worker.ts';
import type { BillingWorker } from './billing/billing.worker.ts';
import { findSellerDetails, getAccount, keepCredentialLookups } from './modules/auth/index.ts';
import type { KeptCredentials } from './modules/auth/index.ts';
import { keepCataloguePages } from './modules/catalogue/index.ts';
import {
  configureWebhookEndpointLimit,
  configureWebhookUrlPolicy,
  parseWebhookUrlPolicy,
  purgeExpiredEvents,
  startWebhookWorker,
} from './modules/events/index.ts';
import type { WebhookAccounts, WebhookWorker } from './modules/events/index.ts';
import { smtpTransport, startMailWorker } from './modules/mail/index.ts';
import type { MailTransport, MailWorker } from './modules/mail/index.ts';
import { DocumentPool } from './pdf/documentPool.ts';
import { createSecretBox, loadEncryptionKey } from './security/secretBox.ts';
import type { SecretBox } from './security/secretBox.ts';
import { openStorage } from './storage/database.ts';
import type { Storage } from './storage/database.ts';
import { migrateToLatest } from './storage/migrate.ts';

export interface Service {
  app: App;
  storage: Storage;
  secrets: SecretBox;
  log: Logger;
  /** The base URL the server listens on, e.g. http://127.0.0.1:8080. */
  url: string;
  close(): Promise<void>;
}

export interface ServiceOptions {
  clock?: Clock;
  /** The wall clock (ServiceContext.wallClock); the system's unless a test moves it. */
  wallClock?: Clock;
  logStream?: DestinationStream;
  /** Overrides the SMTP transport built from the configuration. */
  mailTransport?: MailTransport;
  /** Called with the SQL of every statement the service runs. */
  onQuery?: (sql: string) => void;
  /** Kysely plugins every statement the service runs passes through (tests: storage/database.ts). */
  queryPlugins?: KyselyPlugin[];
  /**
   * The schema is up to date already: a worker of `billing serve --workers N`, whose primary migrated before forking
   * (src/cluster.ts), so that N processes never race on a migration.
   */
  migrated?: boolean;
  /** The HTTP client payment providers are reached with (ServiceContext.providerFetch): a test's simulator. */
  providerFetch?: typeof fetch;
}

const HOUSEKEEPING_MS = 60 * 60 * 1000;
/** How long shutdown waits for handlers of requests whose clients hung up. */
const SHUTDOWN_GRACE_MS = 10_000;
/** Shutdown gives up (the process exits 1) after this long. */
export const SHUTDOWN_DEADLINE_MS = 20_000;
/** How long shutdown waits for its last log lines to be written (a reader that stopped reading gets no more). */
const LOG_FLUSH_MS = 1_000;
/** How long shutdown waits for webhook attempts in flight before aborting them (they are retried later). */
const WEBHOOK_STOP_WAIT_MS = 5_000;

/**
 * The PDF threads' entry beside this file: src/documentWorker.ts when the service runs from its sources (tests,
 * benchmarks), dist/documentWorker.js when compiled.
 */
const DOCUMENT_WORKER = new URL(
  `./documentWorker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

/** The webhook worker's view of accounts, which live in a module above events. */
const webhookAccounts: WebhookAccounts = {
  account: getAccount,
  contactEmail: async (db, accountId) => (await findSellerDetails(db, accountId))?.email ?? null,
};

/** Opens the database, brings its schema up to date, starts the workers and listens. */
export async function startService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  connectModules();
  // A test may run the service on clocks of its own: the account's business time, and the wall clock that claims
  // and leases run out by (ServiceContext.wallClock), moved to stage what real time would take minutes to show.
  const clock = options.clock ?? systemClock;
  const wallClock = options.wallClock ?? systemClock;
  const log = createLogger(config.logLevel, options.logStream, config.logFormat);
  try {
    configureWebhookUrlPolicy(
      parseWebhookUrlPolicy({
        allowHttp: config.webhookAllowHttp,
        allowedPrivateHosts: config.webhookAllowedPrivateHosts,
      }),
    );
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }
  configureWebhookEndpointLimit(config.webhookMaxEndpointsPerAccount);
  const storage = openStorage(config.database, { onQuery: options.onQuery, plugins: options.queryPlugins });
  try {
    if (!options.migrated) await migrateToLatest(storage.db);
  } catch (error) {
    await storage.close();
    throw error;
  }
  if (storage.dialect === 'postgres' && !config.encryptionKey) {
    log.warn(
      'ENCRYPTION_KEY is not set: using the key file in DATA_DIR; every process sharing this database needs the same key',
    );
  }
  // Whatever has been started is stopped again, in reverse order, if the start fails part way (a port in use):
  // the caller's process then has nothing of ours left open and can end on its own.
  let housekeeping: NodeJS.Timeout | undefined;
  let firstPurge: Promise<unknown> | undefined;
  let mailWorker: MailWorker | undefined;
  let webhookWorker: WebhookWorker | undefined;
  let billingWorker: BillingWorker | undefined;
  let idempotencyLease: IdempotencyLease | undefined;
  let keptCredentials: KeptCredentials | undefined;
  let app: App | undefined;
  const inflight = new InFlight();
  const documents = new DocumentPool(config.documents, DOCUMENT_WORKER);
  // In-flight requests finish before the workers stop and the database closes.
  const stopAll = async () => {
    if (housekeeping) clearInterval(housekeeping);
    // Told at once, a bill run in progress stops after its transaction in progress, while requests finish.
    const billingStopped = billingWorker?.stop();
    if (app) {
      await app.close();
      await inflight.idle(SHUTDOWN_GRACE_MS);
    }
    await billingStopped;
    // Before the mail worker: disabling an endpoint queues mail.
    await webhookWorker?.stop();
    await mailWorker?.stop();
    // After the requests and the mail worker, the last to ask for a document; no thread outlives the service.
    await documents.close();
    await idempotencyLease?.close();
    await keptCredentials?.close();
    await firstPurge;
    await storage.close();
  };

  try {
    const secrets = createSecretBox(loadEncryptionKey(config.encryptionKey, config.dataDir));
    const transport = options.mailTransport ?? (config.smtpUrl ? smtpTransport(config.smtpUrl) : undefined);
    const mail = startMailWorker(
      {
        db: storage.db,
        clock,
        wallClock,
        secrets,
        transport,
        from: config.mailFrom,
        log: log.child({ worker: 'mail' }),
        documents,
      },
      config.workerIntervalMs,
    );
    mailWorker = mail;
    const webhooks = startWebhookWorker(
      {
        db: storage.db,
        clock,
        wallClock,
        secrets,
        log: log.child({ worker: 'webhooks' }),
        accounts: webhookAccounts,
        timeoutMs: config.webhookTimeoutMs,
        mailQueued: () => mail.wake(),
      },
      {
        intervalMs: config.workerIntervalMs,
        maxInFlightPerEndpoint: config.webhookMaxInFlightPerEndpoint,
        stopWaitMs: WEBHOOK_STOP_WAIT_MS,
      },
    );
    webhookWorker = webhooks;

    const purge = () =>
      Promise.all([
        purgeIdempotencyKeys(
          storage.db,
          new Date(clock.now().getTime() - IDEMPOTENCY_RETENTION_MS).toISOString(),
        ).catch((error: unknown) => log.error({ err: error }, 'idempotency key purge failed')),
        purgeExpiredEvents(storage.db, clock.now()).catch((error: unknown) =>
          log.error({ err: error }, 'event purge failed'),
        ),
      ]);
    firstPurge = purge();
    housekeeping = setInterval(purge, HOUSEKEEPING_MS);
    housekeeping.unref();

    idempotencyLease = await takeIdempotencyLease(config.database, storage.db, (error) =>
      log.warn(
        { err: error },
        "lost the idempotency lease connection to PostgreSQL: retries of this process's requests now wait out the 5-minute abandonment delay",
      ),
    );
    keptCredentials = await keepCredentialLookups(config.database, storage.db, log);
    keepCataloguePages(storage.db, config.cataloguePageCacheChars);
    app = await buildApp({
      storage,
      clock,
      wallClock,
      secrets,
      logger: log,
      bodyLimitBytes: config.bodyLimitBytes,
      timeouts: config,
      authFailuresPerMinute: config.authFailuresPerMinute,
      idempotencyLease,
      inflight,
      mailQueued: () => mail.wake(),
      webhookSender: webhooks,
      documents,
      publicUrl: config.publicUrl,
      trustedProxies: config.trustedProxies,
      moneyTurns: config.moneyTurns,
      ...(options.providerFetch ? { providerFetch: options.providerFetch } : {}),
    });
    await app.listen({ port: config.port, host: config.host });
    // Once the service answers: a first round with much due would otherwise run while the app starts (its plugins
    // have a start timeout), and a long one would keep /healthz from answering.
    billingWorker =
      config.billingIntervalMs > 0
        ? startBillingWorker(
            {
              db: storage.db,
              clock,
              wallClock,
              secrets,
              log: log.child({ worker: 'billing' }),
              mailQueued: () => mail.wake(),
              webhookSender: webhooks,
              collectionUnansweredAfterMs: config.collectionUnansweredAfterMs,
              ...(options.providerFetch ? { providerFetch: options.providerFetch } : {}),
            },
            config.billingIntervalMs,
          )
        : undefined;
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;

    let closing: Promise<void> | undefined;
    return {
      app,
      storage,
      secrets,
      log,
      url: `http://${host}:${port}`,
      close() {
        closing ??= (async () => {
          await stopAll();
          await flushLogs(log, LOG_FLUSH_MS);
        })();
        return closing;
      },
    };
  } catch (error) {
    await stopAll().catch((closeError: unknown) =>
      log.error({ err: closeError }, 'could not stop what had started after a failed start'),
    );
    await flushLogs(log, LOG_FLUSH_MS);
    throw error;
  }
}
