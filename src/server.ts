import { serviceMemory } from './context.ts';
import type { ServiceMemory } from './context.ts';
import type { KyselyPlugin } from 'kysely';
import type { DestinationStream, Logger } from 'pino';
import type { Config } from './config.ts';
import { ConfigError } from './config.ts';
import type { Clock } from './clock.ts';
import type { Ports, WebhookRules } from './context.ts';
import { systemClock } from './clock.ts';
import { buildApp } from './app.ts';
import { modulePorts } from './modulePorts.ts';
import type { App } from './http/types.ts';
import { IDEMPOTENCY_RETENTION_MS, purgeIdempotencyKeys } from './http/idempotency.ts';
import { InFlight } from './http/inflight.ts';
import { takeIdempotencyLease } from './http/idempotencyLease.ts';
import type { IdempotencyLease } from './http/idempotencyLease.ts';
import { createLogger, flushLogs } from './logger.ts';
import { startBillingWorker } from './billing/billing.worker.ts';
import type { BillingWorker } from './billing/billing.worker.ts';
import { startUsageAlertWorker } from './billing/usageAlerts.ts';
import type { UsageAlertWorker } from './billing/usageAlerts.ts';
import {
  findMailSender,
  findSellerDetails,
  getAccount,
  keepCredentialLookups,
} from './modules/auth/index.ts';
import type { KeptCredentials } from './modules/auth/index.ts';
import { keepCataloguePages } from './modules/catalogue/index.ts';
import { purgeExpiredEvents, startWebhookWorker, webhookRules } from './modules/events/index.ts';
import type { WebhookAccounts, WebhookWorker } from './modules/events/index.ts';
import { smtpTransport, startMailWorker } from './modules/mail/index.ts';
import type { MailTransport, MailWorker } from './modules/mail/index.ts';
import { prepareMonthPartitions } from './modules/usage/index.ts';
import { DocumentPool } from './pdf/documentPool.ts';
import { passwordHashing } from './security/passwords.ts';
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
  /** What this service keeps in memory (ServiceContext.memory): its own, cleared when it closes. */
  memory: ServiceMemory;
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
 * benchmarks), dist/bundle/documentWorker.js when compiled (an entry of the bundle, whose chunks all sit beside it:
 * scripts/bundle.mjs leaves this module the URL of its chunk).
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

/**
 * What a start has started so far, with what every part needs: stopped in reverse order when the service closes, or
 * when its start fails part way (a port in use), so that the caller's process has nothing of ours left open.
 */
interface Started {
  storage: Storage;
  memory: ServiceMemory;
  inflight: InFlight;
  documents: DocumentPool;
  housekeeping?: NodeJS.Timeout;
  firstPurge?: Promise<unknown>;
  mailWorker?: MailWorker;
  webhookWorker?: WebhookWorker;
  billingWorker?: BillingWorker;
  usageAlertWorker?: UsageAlertWorker;
  idempotencyLease?: IdempotencyLease;
  keptCredentials?: KeptCredentials;
  app?: App;
}

/** What every worker is given: the database, both clocks, the secrets, the service's memory and webhook settings. */
interface WorkerBase {
  db: Storage['db'];
  clock: Clock;
  wallClock: Clock;
  secrets: SecretBox;
  ports: Ports;
  memory: ServiceMemory;
  webhookRules: WebhookRules;
}

/** Opens the database, brings its schema up to date, starts the workers and listens. */
export async function startService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const ports = modulePorts();
  // A test may run the service on clocks of its own: the account's business time, and the wall clock that claims
  // and leases run out by (ServiceContext.wallClock), moved to stage what real time would take minutes to show.
  const clock = options.clock ?? systemClock;
  const wallClock = options.wallClock ?? systemClock;
  const log = createLogger(config.logLevel, options.logStream, config.logFormat);
  const rules = webhookRulesFrom(config);
  const storage = await openMigratedStorage(config, options);
  if (storage.dialect === 'postgres' && !config.encryptionKey) {
    log.warn(
      'ENCRYPTION_KEY is not set: using the key file in DATA_DIR; every process sharing this database needs the same key',
    );
  }
  const started: Started = {
    storage,
    // The service's own: another service in the process keeps its own (ServiceContext.memory).
    memory: serviceMemory(),
    inflight: new InFlight(),
    documents: new DocumentPool(config.documents, DOCUMENT_WORKER, wallClock),
  };
  try {
    const secrets = createSecretBox(loadEncryptionKey(config.encryptionKey, config.dataDir));
    const base: WorkerBase = {
      db: storage.db,
      clock,
      wallClock,
      secrets,
      memory: started.memory,
      webhookRules: rules,
      ports,
    };
    const mail = (started.mailWorker = startMail(config, options, base, log, started.documents));
    const webhooks = (started.webhookWorker = startWebhooks(config, base, log, mail));
    startHousekeeping(started, clock, log);
    started.idempotencyLease = await takeIdempotencyLease(config.database, storage.db, (error) =>
      log.warn(
        { err: error },
        "lost the idempotency lease connection to PostgreSQL: retries of this process's requests now wait out the 5-minute abandonment delay",
      ),
    );
    started.keptCredentials = await keepCredentialLookups(config.database, storage.db, started.memory, log);
    keepCataloguePages(storage.db, started.memory, config.cataloguePageCacheChars);
    const app = (started.app = await buildApp({
      storage,
      clock,
      wallClock,
      secrets,
      logger: log,
      bodyLimitBytes: config.bodyLimitBytes,
      timeouts: config,
      authFailuresPerMinute: config.authFailuresPerMinute,
      idempotencyLease: started.idempotencyLease,
      inflight: started.inflight,
      mailQueued: () => mail.wake(),
      webhookSender: webhooks,
      documents: started.documents,
      publicUrl: config.publicUrl,
      trustedProxies: config.trustedProxies,
      moneyTurns: config.moneyTurns,
      usageRate: config.usageRate,
      usageStorageBytesPerAccount: config.usageStorageBytesPerAccount,
      memory: started.memory,
      webhookRules: rules,
      passwordHashing: passwordHashing(config.passwordCostLog2),
      ...(options.providerFetch ? { providerFetch: options.providerFetch } : {}),
    }));
    await app.listen({ port: config.port, host: config.host });
    // Once the service answers: a first round with much due would otherwise run while the app starts (its plugins
    // have a start timeout), and a long one would keep /healthz from answering.
    started.billingWorker = startBilling(config, options, base, log, mail, webhooks);
    started.usageAlertWorker = startUsageAlerts(config, options, base, log, mail, webhooks);
    return runningService(started, secrets, log, config);
  } catch (error) {
    await stopStarted(started).catch((closeError: unknown) =>
      log.error({ err: closeError }, 'could not stop what had started after a failed start'),
    );
    await flushLogs(log, LOG_FLUSH_MS);
    throw error;
  }
}

/** The service's own webhook settings (ServiceContext.webhookRules): another service in the process has its own. */
function webhookRulesFrom(config: Config): WebhookRules {
  try {
    return webhookRules({
      allowHttp: config.webhookAllowHttp,
      allowedPrivateHosts: config.webhookAllowedPrivateHosts,
      maxEndpointsPerAccount: config.webhookMaxEndpointsPerAccount,
    });
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }
}

async function openMigratedStorage(config: Config, options: ServiceOptions): Promise<Storage> {
  const storage = openStorage(config.database, { onQuery: options.onQuery, plugins: options.queryPlugins });
  try {
    // The key only when a migration has stored rows to seal (src/storage/migrate.ts).
    const sealer = () => createSecretBox(loadEncryptionKey(config.encryptionKey, config.dataDir));
    if (!options.migrated) await migrateToLatest(storage.db, { sealer });
  } catch (error) {
    await storage.close();
    throw error;
  }
  return storage;
}

function startMail(
  config: Config,
  options: ServiceOptions,
  base: WorkerBase,
  log: Logger,
  documents: DocumentPool,
): MailWorker {
  const transport = options.mailTransport ?? (config.smtpUrl ? smtpTransport(config.smtpUrl) : undefined);
  return startMailWorker(
    {
      ...base,
      transport,
      from: config.mailFrom,
      senderOf: findMailSender,
      log: log.child({ worker: 'mail' }),
      documents,
    },
    config.workerIntervalMs,
  );
}

function startWebhooks(config: Config, base: WorkerBase, log: Logger, mail: MailWorker): WebhookWorker {
  return startWebhookWorker(
    {
      ...base,
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
}

/** Expired idempotency keys and events purged now, then every hour. */
function startHousekeeping(started: Started, clock: Clock, log: Logger): void {
  const db = started.storage.db;
  const purge = () =>
    Promise.all([
      purgeIdempotencyKeys(
        db,
        new Date(clock.now().getTime() - IDEMPOTENCY_RETENTION_MS).toISOString(),
      ).catch((error: unknown) => log.error({ err: error }, 'idempotency key purge failed')),
      purgeExpiredEvents(db, clock.now()).catch((error: unknown) =>
        log.error({ err: error }, 'event purge failed'),
      ),
      prepareMonthPartitions(db, started.memory, clock.now()).catch((error: unknown) =>
        log.warn({ err: error }, 'making the usage events partitions ahead failed; tried again in an hour'),
      ),
    ]);
  started.firstPurge = purge();
  started.housekeeping = setInterval(purge, HOUSEKEEPING_MS);
  started.housekeeping.unref();
}

function startBilling(
  config: Config,
  options: ServiceOptions,
  base: WorkerBase,
  log: Logger,
  mail: MailWorker,
  webhooks: WebhookWorker,
): BillingWorker | undefined {
  if (config.billingIntervalMs <= 0) return undefined;
  return startBillingWorker(
    {
      ...workerDeps(config, options, base, log.child({ worker: 'billing' }), mail, webhooks),
      collectionUnansweredAfterMs: config.collectionUnansweredAfterMs,
    },
    config.billingIntervalMs,
  );
}

/** What the bill run's and the usage alerts' workers share: the base, a log of their own, mail and webhooks. */
function workerDeps(
  config: Config,
  options: ServiceOptions,
  base: WorkerBase,
  log: Logger,
  mail: MailWorker,
  webhooks: WebhookWorker,
) {
  return {
    ...base,
    log,
    mailQueued: () => mail.wake(),
    webhookSender: webhooks,
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    ...(options.providerFetch ? { providerFetch: options.providerFetch } : {}),
  };
}

/** Usage alerts evaluated every USAGE_ALERT_INTERVAL_MS (docs/design/usage.md, "Alerts"); 0 turns it off. */
function startUsageAlerts(
  config: Config,
  options: ServiceOptions,
  base: WorkerBase,
  log: Logger,
  mail: MailWorker,
  webhooks: WebhookWorker,
): UsageAlertWorker | undefined {
  if (config.usageAlertIntervalMs <= 0) return undefined;
  return startUsageAlertWorker(
    workerDeps(config, options, base, log.child({ worker: 'usage-alerts' }), mail, webhooks),
    config.usageAlertIntervalMs,
  );
}

function runningService(started: Started, secrets: SecretBox, log: Logger, config: Config): Service {
  const app = started.app!;
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  return {
    app,
    storage: started.storage,
    secrets,
    log,
    memory: started.memory,
    url: `http://${host}:${port}`,
    close() {
      closing ??= (async () => {
        await stopStarted(started);
        await flushLogs(log, LOG_FLUSH_MS);
      })();
      return closing;
    },
  };
}

/** In-flight requests finish before the workers stop and the database closes. */
async function stopStarted(started: Started): Promise<void> {
  if (started.housekeeping) clearInterval(started.housekeeping);
  // Told at once, a bill run in progress stops after its transaction in progress, while requests finish.
  const billingStopped = started.billingWorker?.stop();
  const usageAlertsStopped = started.usageAlertWorker?.stop();
  if (started.app) {
    await started.app.close();
    await started.inflight.idle(SHUTDOWN_GRACE_MS);
  }
  await billingStopped;
  await usageAlertsStopped;
  // Before the mail worker: disabling an endpoint queues mail.
  await started.webhookWorker?.stop();
  await started.mailWorker?.stop();
  // After the requests and the mail worker, the last to ask for a document; no thread outlives the service.
  await started.documents.close();
  await started.idempotencyLease?.close();
  await started.keptCredentials?.close();
  await started.firstPurge;
  await started.storage.close();
  started.memory.clear();
}
