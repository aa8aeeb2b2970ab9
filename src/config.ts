import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PASSWORD_COST_LOG2, PASSWORD_COST_LOG2_MAX, PASSWORD_COST_LOG2_MIN } from './security/passwords.ts';

/** PostgreSQL's connection pool in each process (docs/operations.md, "Fairness under load"). */
export interface PoolSettings {
  /** Connections the process may hold (DATABASE_POOL_SIZE). */
  size: number;
  /** How long a request waits for one before it is answered 503 (DATABASE_POOL_TIMEOUT_MS). */
  acquireTimeoutMs: number;
}

export type DatabaseTarget =
  | { dialect: 'sqlite'; file: string }
  /** Without `pool`, the defaults of storage/database.ts. */
  | { dialect: 'postgres'; url: string; pool?: PoolSettings };

/** How one customer's money movements take turns in a process (docs/operations.md, "Fairness under load"). */
export interface MoneyTurnSettings {
  /** Requests of one customer that may wait for their turn in a process (MONEY_QUEUE_PER_CUSTOMER). */
  waitingPerCustomer: number;
  /** Requests of one account that may wait, all its customers together (MONEY_QUEUE_PER_ACCOUNT). */
  waitingPerAccount: number;
  /** How long a money movement waits for a PostgreSQL row lock once its turn came (MONEY_LOCK_TIMEOUT_MS). */
  lockTimeoutMs: number;
}

/** How PDFs are drawn: off the event loop, in turns per account (docs/operations.md, "PDF documents"). */
export interface DocumentSettings {
  /** Worker threads drawing PDFs in each process (PDF_THREADS). */
  threads: number;
  /**
   * A customer's documents in hosted pages, of one account together (PDF_QUEUE_CUSTOMERS_PER_ACCOUNT) and of one
   * customer (PDF_QUEUE_PER_CUSTOMER), drawn or waiting; and how many one customer may ask for in a minute
   * (PDF_READS_PER_CUSTOMER_MINUTE).
   */
  customersPerAccount: number;
  perCustomer: number;
  customerReadsPerMinute: number;
  /** Documents of one account that may wait for their turn in a process (PDF_QUEUE_PER_ACCOUNT). */
  waitingPerAccount: number;
  /** Documents a thread draws at once, in slices (PDF_DOCUMENTS_PER_THREAD). */
  documentsPerThread: number;
  /** The most one document may take to draw before it is stopped (PDF_TIMEOUT_MS). */
  timeoutMs: number;
  /** The most lines an invoice PDF holds (PDF_MAX_INVOICE_LINES). */
  maxInvoiceLines: number;
  /** The most lines a statement PDF holds (PDF_MAX_STATEMENT_LINES). */
  maxStatementLines: number;
}

export interface Config {
  /**
   * Processes `billing serve` runs on the port (WORKERS; `--workers` overrides it). Unset: one per core, as many as
   * the database's free connections hold (src/cli/serve.ts, `workersToStart`).
   */
  workers: number | undefined;
  port: number;
  host: string;
  dataDir: string;
  database: DatabaseTarget;
  /** SMTP connection URL for nodemailer; undefined means e-mail is kept in the outbox as skipped. */
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Base64 of 32 bytes; undefined means the key file in the data directory is used (created on first start). */
  encryptionKey: string | undefined;
  logLevel: string;
  /** undefined: pretty when standard output is a terminal, else JSON. */
  logFormat: 'json' | 'pretty' | undefined;
  workerIntervalMs: number;
  /** How often the service runs the bill run; 0: never (bill with `billing run`, e.g. from cron). */
  billingIntervalMs: number;
  /** How often the service evaluates usage alerts; 0: never (evaluate with `billing check-usage-alerts`). */
  usageAlertIntervalMs: number;
  /** What one account may send of usage events per second, in each process (docs/usage.md, "Limits"). */
  usageRate: UsageRateSettings;
  /**
   * The most bytes of usage events one account may store (USAGE_STORAGE_BYTES_PER_ACCOUNT, docs/usage.md, "Limits"):
   * past it, its new events are refused; 0: no cap.
   */
  usageStorageBytesPerAccount: number;
  /** How long a card charge may go unanswered before the next collection run asks the gateway again. */
  collectionUnansweredAfterMs: number;
  bodyLimitBytes: number;
  /** The most a request may take to arrive in full (headers and body). */
  requestTimeoutMs: number;
  /** The most the request headers may take to arrive. */
  headersTimeoutMs: number;
  /** How long an idle keep-alive connection is kept open. */
  keepAliveTimeoutMs: number;
  /** Failed authentications a client address may make a minute before it is answered 429. */
  authFailuresPerMinute: number;
  /** Webhook endpoints may use plain http:// (WEBHOOK_ALLOW_HTTP); https only otherwise. */
  webhookAllowHttp: boolean;
  /** Private, loopback or link-local IPs and CIDRs webhooks may still be sent to (WEBHOOK_ALLOWED_PRIVATE_HOSTS). */
  webhookAllowedPrivateHosts: string[];
  /** The most one webhook attempt may take, look-up to last byte (WEBHOOK_TIMEOUT_MS). */
  webhookTimeoutMs: number;
  /** Webhook requests one process keeps in flight to one endpoint (WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT). */
  webhookMaxInFlightPerEndpoint: number;
  /** Webhook endpoints one account may have, enabled or not (WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT). */
  webhookMaxEndpointsPerAccount: number;
  /**
   * How many MB (millions of characters) of rendered catalogue list pages the process keeps (CATALOGUE_PAGE_CACHE_MB,
   * docs/architecture.md, "Catalogue pages kept in the process"); 0 keeps none.
   */
  cataloguePageCacheChars: number;
  /**
   * The origin browsers reach the service at (PUBLIC_URL): every link that leaves the service, the portal's HTTPS
   * judgement and its cookies (docs/portal.md, "PUBLIC_URL and links"); undefined: links only for requests that
   * arrived on loopback.
   */
  publicUrl: string | undefined;
  /**
   * The proxies in front of the service (TRUSTED_PROXIES, IPs and CIDR ranges): a request from one of them is from
   * the client its X-Forwarded-For names, which rate limits count and eMandate evidence records.
   */
  trustedProxies: string[];
  /**
   * TEST_GATEWAY_ON_LIVE_ACCOUNTS=true: live accounts may collect through the built-in test gateway, which moves no
   * money (docs/gateways.md, "Live means live"). For a staging deployment and the service's own tests, never for one
   * that bills real customers; `billing doctor` reports it.
   */
  testGatewayOnLiveAccounts: boolean;
  /**
   * PASSWORD_COST: log2 of scrypt's N for the portal's password hashes, the API's being a quarter of it
   * (security/passwords.ts). Below the default only for the service's own tests, where a sign-in at OWASP's cost
   * spent seconds of a core; `billing doctor` reports it.
   */
  passwordCostLog2: number;
  moneyTurns: MoneyTurnSettings;
  documents: DocumentSettings;
}

export class ConfigError extends Error {}

/** The most processes `billing serve` may run (WORKERS, `--workers`): a typo of many zeros must not fork them all. */
export const MAX_WORKERS = 256;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function integerSetting(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}; got "${raw}"`);
  }
  return Number(raw);
}

function booleanSetting(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false; got "${raw}"`);
}

/** Comma-separated IP addresses or CIDR ranges (`127.0.0.1,10.0.0.0/8,fd00::/8`). */
function addressListSetting(env: NodeJS.ProcessEnv, name: string): string[] {
  const entries = (env[name] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = net.isIP(address);
    const prefixOk =
      prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (family === 0 || !prefixOk || rest.length > 0) {
      throw new ConfigError(
        `${name} must list IP addresses or CIDR ranges separated by commas; got "${entry}"`,
      );
    }
  }
  return entries;
}

/** A URL as it may appear in a message: without the password. */
export function withoutPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@]*@/i, '$1***@');
}

export function parseDatabaseUrl(raw: string | undefined, dataDir: string): DatabaseTarget {
  if (raw === undefined || raw === '')
    return { dialect: 'sqlite', file: path.join(dataDir, 'billing.sqlite') };
  if (raw.startsWith('sqlite:')) {
    const file = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (file === '')
      throw new ConfigError('DATABASE_URL "sqlite:" needs a file path, e.g. sqlite:./data/billing.sqlite');
    return { dialect: 'sqlite', file };
  }
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError(`DATABASE_URL is not a valid PostgreSQL URL: "${withoutPassword(raw)}"`);
    }
    return { dialect: 'postgres', url: raw };
  }
  throw new ConfigError(
    `DATABASE_URL must be unset (embedded SQLite), sqlite:PATH or postgres://...; got "${withoutPassword(raw)}"`,
  );
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = env.DATA_DIR || path.resolve('data');
  const smtpUrl = env.SMTP_URL || undefined;
  if (smtpUrl !== undefined && !/^smtps?:\/\//.test(smtpUrl)) {
    throw new ConfigError(`SMTP_URL must start with smtp:// or smtps://; got "${withoutPassword(smtpUrl)}"`);
  }
  const encryptionKey = env.ENCRYPTION_KEY || undefined;
  if (encryptionKey !== undefined && Buffer.from(encryptionKey, 'base64').length !== 32) {
    throw new ConfigError('ENCRYPTION_KEY must be 32 bytes in base64 (e.g. `openssl rand -base64 32`)');
  }
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${logLevel}"`);
  }
  const logFormat = env.LOG_FORMAT || undefined;
  if (logFormat !== undefined && logFormat !== 'json' && logFormat !== 'pretty') {
    throw new ConfigError(`LOG_FORMAT must be json or pretty; got "${logFormat}"`);
  }
  const requestTimeoutMs = integerSetting(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000);
  const headersTimeoutMs = integerSetting(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 3_600_000);
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(
      'HEADERS_TIMEOUT_MS must not be above REQUEST_TIMEOUT_MS (the headers are part of the request)',
    );
  }
  return {
    publicUrl: publicUrlSetting(env.PUBLIC_URL),
    trustedProxies: addressListSetting(env, 'TRUSTED_PROXIES'),
    workers: env.WORKERS ? integerSetting(env, 'WORKERS', 1, 1, MAX_WORKERS) : undefined,
    port: integerSetting(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '127.0.0.1',
    dataDir,
    database: withPoolSettings(env, parseDatabaseUrl(env.DATABASE_URL, dataDir)),
    moneyTurns: moneyTurnSettings(env),
    documents: documentSettings(env),
    smtpUrl,
    mailFrom: env.MAIL_FROM || 'billing@localhost',
    encryptionKey,
    logLevel,
    logFormat,
    workerIntervalMs: integerSetting(env, 'WORKER_INTERVAL_MS', 5000, 10, 3_600_000),
    billingIntervalMs: integerSetting(env, 'BILLING_INTERVAL_MS', 60_000, 0, 86_400_000),
    usageAlertIntervalMs: integerSetting(env, 'USAGE_ALERT_INTERVAL_MS', 60_000, 0, 86_400_000),
    usageRate: usageRateSettings(env),
    // 10 GB; at most 1 PB, which a JS number still counts exactly.
    usageStorageBytesPerAccount: integerSetting(
      env,
      'USAGE_STORAGE_BYTES_PER_ACCOUNT',
      10_000_000_000,
      0,
      1_000_000_000_000_000,
    ),
    collectionUnansweredAfterMs: integerSetting(
      env,
      'COLLECTION_UNANSWERED_AFTER_MS',
      120_000,
      0,
      86_400_000,
    ),
    bodyLimitBytes: integerSetting(env, 'BODY_LIMIT_BYTES', 1_048_576, 1024, 104_857_600),
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs: integerSetting(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 1_000, 3_600_000),
    authFailuresPerMinute: integerSetting(env, 'AUTH_FAILURES_PER_MINUTE', 30, 1, 1_000_000),
    webhookAllowHttp: booleanSetting(env, 'WEBHOOK_ALLOW_HTTP', false),
    testGatewayOnLiveAccounts: booleanSetting(env, 'TEST_GATEWAY_ON_LIVE_ACCOUNTS', false),
    passwordCostLog2: integerSetting(
      env,
      'PASSWORD_COST',
      PASSWORD_COST_LOG2,
      PASSWORD_COST_LOG2_MIN,
      PASSWORD_COST_LOG2_MAX,
    ),
    webhookAllowedPrivateHosts: addressListSetting(env, 'WEBHOOK_ALLOWED_PRIVATE_HOSTS'),
    webhookTimeoutMs: integerSetting(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 100, 120_000),
    webhookMaxInFlightPerEndpoint: integerSetting(env, 'WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT', 10, 1, 1000),
    webhookMaxEndpointsPerAccount: integerSetting(env, 'WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT', 16, 1, 1000),
    cataloguePageCacheChars: integerSetting(env, 'CATALOGUE_PAGE_CACHE_MB', 64, 0, 4096) * 1024 * 1024,
  };
}

/** MONEY_QUEUE_PER_CUSTOMER, MONEY_QUEUE_PER_ACCOUNT and MONEY_LOCK_TIMEOUT_MS; `{}` gives the defaults. */
export function moneyTurnSettings(env: NodeJS.ProcessEnv): MoneyTurnSettings {
  return {
    waitingPerCustomer: integerSetting(env, 'MONEY_QUEUE_PER_CUSTOMER', 50, 0, 100_000),
    waitingPerAccount: integerSetting(env, 'MONEY_QUEUE_PER_ACCOUNT', 200, 0, 1_000_000),
    lockTimeoutMs: integerSetting(env, 'MONEY_LOCK_TIMEOUT_MS', 5_000, 10, 600_000),
  };
}

/**
 * PDF_THREADS, PDF_QUEUE_PER_ACCOUNT, PDF_DOCUMENTS_PER_THREAD, PDF_QUEUE_CUSTOMERS_PER_ACCOUNT,
 * PDF_QUEUE_PER_CUSTOMER, PDF_READS_PER_CUSTOMER_MINUTE, PDF_TIMEOUT_MS, PDF_MAX_INVOICE_LINES and PDF_MAX_STATEMENT_LINES; `{}` gives
 * the defaults. One core is left to the event loop (docs/operations.md, "PDF documents").
 */
export function documentSettings(env: NodeJS.ProcessEnv): DocumentSettings {
  return {
    threads: integerSetting(env, 'PDF_THREADS', Math.max(1, os.availableParallelism() - 1), 1, 64),
    waitingPerAccount: integerSetting(env, 'PDF_QUEUE_PER_ACCOUNT', 8, 0, 10_000),
    documentsPerThread: integerSetting(env, 'PDF_DOCUMENTS_PER_THREAD', 4, 1, 64),
    customersPerAccount: integerSetting(env, 'PDF_QUEUE_CUSTOMERS_PER_ACCOUNT', 4, 1, 10_000),
    perCustomer: integerSetting(env, 'PDF_QUEUE_PER_CUSTOMER', 2, 1, 100),
    customerReadsPerMinute: integerSetting(env, 'PDF_READS_PER_CUSTOMER_MINUTE', 30, 1, 100_000),
    timeoutMs: integerSetting(env, 'PDF_TIMEOUT_MS', 30_000, 1, 600_000),
    // The most Charges an invoice request may send (invoices.schemas.ts), so every invoice the API makes is drawn.
    maxInvoiceLines: integerSetting(env, 'PDF_MAX_INVOICE_LINES', 1000, 1, 100_000),
    maxStatementLines: integerSetting(env, 'PDF_MAX_STATEMENT_LINES', 2000, 1, 100_000),
  };
}

export interface UsageRateSettings {
  eventsPerSecond: number;
  bytesPerSecond: number;
}

/** USAGE_EVENTS_PER_SECOND and USAGE_BYTES_PER_SECOND, per account and process; `{}` gives the defaults. */
export function usageRateSettings(env: NodeJS.ProcessEnv): UsageRateSettings {
  return {
    eventsPerSecond: integerSetting(env, 'USAGE_EVENTS_PER_SECOND', 1000, 1, 10_000_000),
    bytesPerSecond: integerSetting(env, 'USAGE_BYTES_PER_SECOND', 1_000_000, 1, 10_000_000_000),
  };
}

/** DATABASE_POOL_SIZE and DATABASE_POOL_TIMEOUT_MS, for PostgreSQL (SQLite has one writer and no pool). */
function withPoolSettings(env: NodeJS.ProcessEnv, target: DatabaseTarget): DatabaseTarget {
  const size = integerSetting(env, 'DATABASE_POOL_SIZE', 10, 1, 1000);
  // 0: a request waits for a connection as long as it takes (see docs/spec-decisions.md, "Fairness under load").
  const acquireTimeoutMs = integerSetting(env, 'DATABASE_POOL_TIMEOUT_MS', 0, 0, 600_000);
  return target.dialect === 'postgres' ? { ...target, pool: { size, acquireTimeoutMs } } : target;
}

/** PUBLIC_URL: an http(s) origin, without a path, as browsers reach the service (behind a proxy, its address). */
function publicUrlSetting(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (
    !url ||
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.pathname !== '/' ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    raw.endsWith('#') ||
    raw.endsWith('?')
  ) {
    throw new ConfigError(`PUBLIC_URL must be an origin such as https://billing.example.com; got "${raw}"`);
  }
  return url.origin;
}
