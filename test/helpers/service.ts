import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { inject } from 'vitest';
import { loadConfig, parseDatabaseUrl } from '../../src/config.ts';
import type { Clock } from '../../src/clock.ts';
import { systemClock } from '../../src/clock.ts';
import { createAccount } from '../../src/modules/auth/index.ts';
import { startService } from '../../src/server.ts';
import { openStorage } from '../../src/storage/database.ts';
import { migrateToLatest } from '../../src/storage/migrate.ts';
import { TEST_SCHEMA, adminQuery, databaseUrl, testDatabaseName } from './postgresDatabases.ts';
import type { Service, ServiceOptions } from '../../src/server.ts';
import { modulePorts } from '../../src/modulePorts.ts';

export type Dialect = 'sqlite' | 'postgres';
export const dialect = (process.env.TEST_DIALECT ?? 'sqlite') as Dialect;

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body text, sent as is (with the JSON content type unless headers say otherwise). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Credentials to send; defaults to the test account's (Basic). `false` sends none. */
  auth?: { accountId: number; apiKey: string } | { bearer: string } | false;
}

export interface TestAccount {
  accountId: number;
  apiKey: string;
  /** Calls the API as this account. */
  request<T = any>(method: string, urlPath: string, options?: RequestOptions): Promise<ApiResponse<T>>;
}

export interface TestService extends TestAccount {
  service: Service;
  url: string;
  dataDir: string;
  /** Environment that points the CLI at this service's database and data directory. */
  env: Record<string, string>;
  logs: string[];
  /** The SQL of every statement the service has run, in order (clear it to count a request's statements). */
  queries: string[];
  newAccount(name?: string, options?: NewAccountOptions): Promise<TestAccount>;
  close(): Promise<void>;
}

/**
 * The services a test file has started and not closed. Files share their worker process (vitest.config.ts, "isolate"),
 * so a service a file leaves running would go on working in the next file's time: test/helpers/perFile.ts closes
 * what is left here when a file ends, and says so.
 */
const leftOpen = new Map<{ close(): Promise<void> }, string>();

function keptUntilClosed<T extends { close(): Promise<void> }>(started: T, what: string): T {
  const close = started.close.bind(started);
  started.close = () => {
    leftOpen.delete(started);
    return close();
  };
  leftOpen.set(started, what);
  return started;
}

/** Closes every service a test file left running; the names of those it closed. */
export async function closeLeftOpen(): Promise<string[]> {
  const closed = [...leftOpen.values()];
  await Promise.all([...leftOpen.keys()].map((service) => service.close()));
  return closed;
}

/**
 * A fresh database of the suite's dialect: an SQLite file, or a PostgreSQL database of its own. Empty, unless
 * `migrated`: then a copy of a database migrated once (CONTRIBUTING.md, "How long the suite takes"), which a service
 * finds at the latest migration: on SQLite a file migrated once per worker, on PostgreSQL a database migrated once
 * per run.
 */
export async function freshDatabase(
  dataDir: string,
  options: { migrated?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const file = path.join(dataDir, 'test.sqlite');
    if (options.migrated) fs.copyFileSync(await migratedSqliteTemplate(), file);
    return { url: `sqlite:${file}`, drop: async () => {} };
  }
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DIALECT=postgres needs TEST_DATABASE_URL');
  const template = inject('postgresTemplate');
  if (!template)
    throw new Error('TEST_DIALECT=postgres needs the template test/helpers/globalSetup.ts makes');
  const name = testDatabaseName(template, crypto.randomBytes(6).toString('hex'));
  // A copy of the database migrated once for the run (test/helpers/globalSetup.ts), or an empty one.
  await adminQuery(
    base,
    options.migrated ? `create database ${name} template ${template}` : `create database ${name}`,
  );
  const url = databaseUrl(base, name);
  if (!options.migrated) await adminQuery(url, `create schema ${TEST_SCHEMA}`);
  return { url, drop: async () => dropLater(base, name) };
}

/**
 * The drops of this worker's databases, one after another, which nothing waits for: PostgreSQL makes a checkpoint for
 * each DROP DATABASE and answers once it has reached the disk (about a second while the suite runs), and the next
 * file need not wait for it (CONTRIBUTING.md, "How long the suite takes"). A drop that fails, or that the worker's
 * exit cuts short, is done by globalSetup's teardown, which drops every database of the run.
 */
let drops = Promise.resolve();

function dropLater(base: string, name: string): void {
  drops = drops.then(() => adminQuery(base, `drop database if exists ${name} with (force)`)).catch(() => {});
}

let sqliteTemplate: Promise<string> | undefined;

/** An SQLite file migrated to the latest, made once per worker and removed when the worker exits. */
function migratedSqliteTemplate(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-template-'));
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'migrated.sqlite');
    const storage = openStorage(parseDatabaseUrl(`sqlite:${file}`, dir));
    await migrateToLatest(storage.db);
    await storage.close();
    // Closing checkpoints the write-ahead log into the file: a copy of the file alone is the whole database.
    if (fs.existsSync(`${file}-wal`) && fs.statSync(`${file}-wal`).size > 0) {
      throw new Error(`the migrated template ${file} left a write-ahead log behind`);
    }
    return file;
  })();
  return sqliteTemplate;
}

async function call(
  baseUrl: string,
  defaultAuth: { accountId: number; apiKey: string },
  method: string,
  urlPath: string,
  options: RequestOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  const auth = options.auth === undefined ? defaultAuth : options.auth;
  if (auth && 'bearer' in auth) headers.authorization = `Bearer ${auth.bearer}`;
  else if (auth) {
    headers.authorization = `Basic ${Buffer.from(`${auth.accountId}:${auth.apiKey}`).toString('base64')}`;
  }
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  Object.assign(headers, options.headers);
  const response = await fetch(baseUrl + urlPath, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  if (text !== '' && (response.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/**
 * What a test service's deployment allows: live accounts collect through the built-in test gateway, as on a staging
 * deployment (TEST_GATEWAY_ON_LIVE_ACCOUNTS; docs/gateways.md, "Live means live").
 */
export const STAGING = { testGatewayOnLiveAccounts: true } as const;

export interface NewAccountOptions {
  isTest?: boolean;
  timeZone?: string;
  currencyCode?: string;
  /** Whether a live account's test gateway is usable; the service's TEST_GATEWAY_ON_LIVE_ACCOUNTS unless given. */
  testGatewayOnLiveAccounts?: boolean;
}

export interface StartOptions {
  smtpUrl?: string;
  clock?: Clock;
  /** The service's wall clock (ServiceContext.wallClock); the system's unless given. */
  wallClock?: Clock;
  env?: Record<string, string>;
  /** The HTTP client the service reaches payment providers with: a provider's simulator (test/providers/). */
  providerFetch?: typeof fetch;
  /** Told each statement's SQL as it completes, synchronously (after it joins `queries`): to act at that moment. */
  onQuery?: (sql: string) => void;
}

export async function startTestService(options: StartOptions = {}): Promise<TestService> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-test-'));
  const database = await freshDatabase(dataDir, { migrated: true });
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    WORKER_INTERVAL_MS: '100',
    // Tests run the bill run when they mean to; a test of the worker itself turns it on.
    BILLING_INTERVAL_MS: '0',
    // Likewise usage alerts: tests evaluate them with the CLI or the test clock, or turn the worker on.
    USAGE_ALERT_INTERVAL_MS: '0',
    // Most tests bill live accounts through the built-in test gateway, as a staging deployment may
    // (docs/gateways.md, "Live means live"); test/gateways/liveMeansLive.test.ts turns this off.
    TEST_GATEWAY_ON_LIVE_ACCOUNTS: 'true',
    // Passwords hashed at 2^12 rather than OWASP's 2^17 (docs/operations.md, PASSWORD_COST): a portal sign-in at the
    // full cost spent seconds of a core on a slow machine. test/portal/portal.signIn.test.ts signs in at the full
    // cost, which its timing and throttling tests are about.
    PASSWORD_COST: '12',
    ...(options.smtpUrl ? { SMTP_URL: options.smtpUrl } : {}),
    ...options.env,
  };
  const logs: string[] = [];
  const clock = options.clock ?? systemClock;
  const wallClock = options.wallClock ?? systemClock;
  const queries: string[] = [];
  const config = loadConfig({ ...env, PORT: '0', HOST: '127.0.0.1' });
  const service = await startService(config, {
    clock,
    wallClock,
    logStream: logsInto(logs),
    onQuery: (sql) => {
      queries.push(sql);
      options.onQuery?.(sql);
    },
    ...(options.providerFetch ? { providerFetch: options.providerFetch } : {}),
  });

  const makeAccount = async (
    name: string,
    { testGatewayOnLiveAccounts = config.testGatewayOnLiveAccounts, ...options }: NewAccountOptions = {},
  ): Promise<TestAccount> => {
    const created = await createAccount(
      service.storage.db,
      { ports: modulePorts(), clock, wallClock },
      { name, ...options },
      { testGatewayOnLiveAccounts },
    );
    const credentials = { accountId: created.account.id, apiKey: created.apiKey };
    return {
      ...credentials,
      request: (method, urlPath, o) => call(service.url, credentials, method, urlPath, o),
    };
  };
  const main = await makeAccount('Test Account');
  return keptUntilClosed<TestService>(
    {
      ...main,
      service,
      url: service.url,
      dataDir,
      env,
      logs,
      queries,
      newAccount: (name = 'Other Account', options) => makeAccount(name, options),
      async close() {
        await service.close();
        await database.drop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    },
    `a service on ${service.url}`,
  );
}

/** A log destination that keeps each line in `logs`. */
function logsInto(logs: string[]): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
}

/** A second process of a test service: its own connections to the same database, its own port. */
export interface ServiceInstance {
  url: string;
  /** Calls this instance as the service's main account (or as told, like TestAccount.request). */
  request<T = any>(method: string, urlPath: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

/**
 * Starts another instance of `t` against its database, as a deployment scales out, on the clocks given; its log
 * lines join `t.logs`. `queryPlugins` see every statement this instance runs (test/helpers/heldStatement.ts); `env`
 * adds to or overrides the service's settings for this instance (another DATABASE_URL user, with `migrated` when
 * that user may not migrate).
 */
export async function startAnotherInstance(
  t: TestService,
  options: Pick<ServiceOptions, 'clock' | 'wallClock' | 'queryPlugins' | 'migrated'> & {
    env?: Record<string, string>;
  } = {},
): Promise<ServiceInstance> {
  const { env, ...serviceOptions } = options;
  const service = await startService(loadConfig({ ...t.env, ...env, PORT: '0', HOST: '127.0.0.1' }), {
    ...serviceOptions,
    logStream: logsInto(t.logs),
  });
  const credentials = { accountId: t.accountId, apiKey: t.apiKey };
  return keptUntilClosed<ServiceInstance>(
    {
      url: service.url,
      request: (method, urlPath, o) => call(service.url, credentials, method, urlPath, o),
      close: () => service.close(),
    },
    `another instance on ${service.url}`,
  );
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
