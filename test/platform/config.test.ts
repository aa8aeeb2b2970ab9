import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { killAll, killTransient, runCli } from '../helpers/cli.ts';

// Configuration is read from the environment alone; nothing here touches a database.

function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('defaults to port 8080 on loopback and an SQLite file in DATA_DIR', () => {
    const config = loadConfig({ DATA_DIR: '/srv/billing' });
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: '/srv/billing',
      database: { dialect: 'sqlite', file: path.join('/srv/billing', 'billing.sqlite') },
      smtpUrl: undefined,
      encryptionKey: undefined,
      logLevel: 'info',
    });
    expect(config.workerIntervalMs).toBeGreaterThan(0);
    expect(config.bodyLimitBytes).toBeGreaterThan(0);
  });

  it('puts the data directory under the working directory when DATA_DIR is unset', () => {
    const config = loadConfig({});
    expect(config.dataDir).toBe(path.resolve('data'));
    expect(config.database).toEqual({
      dialect: 'sqlite',
      file: path.join(path.resolve('data'), 'billing.sqlite'),
    });
  });

  it('treats empty variables as unset', () => {
    const config = loadConfig({ PORT: '', HOST: '', DATABASE_URL: '', SMTP_URL: '', DATA_DIR: '/d' });
    expect(config).toMatchObject({ port: 8080, host: '127.0.0.1', smtpUrl: undefined });
    expect(config.database).toEqual({ dialect: 'sqlite', file: path.join('/d', 'billing.sqlite') });
  });

  it('reads every setting it is given', () => {
    const key = crypto.randomBytes(32).toString('base64');
    const config = loadConfig({
      PORT: '0',
      HOST: '0.0.0.0',
      DATA_DIR: '/d',
      SMTP_URL: 'smtps://user:pass@mail.example.com:465',
      ENCRYPTION_KEY: key,
      LOG_LEVEL: 'debug',
      WORKER_INTERVAL_MS: '250',
      BODY_LIMIT_BYTES: '2048',
    });
    expect(config).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      smtpUrl: 'smtps://user:pass@mail.example.com:465',
      encryptionKey: key,
      logLevel: 'debug',
      workerIntervalMs: 250,
      bodyLimitBytes: 2048,
    });
  });

  it('parses sqlite: and postgres:// database URLs', () => {
    expect(loadConfig({ DATABASE_URL: 'sqlite:/x/y.db' }).database).toEqual({
      dialect: 'sqlite',
      file: '/x/y.db',
    });
    expect(loadConfig({ DATABASE_URL: 'sqlite:///x/y.db' }).database).toEqual({
      dialect: 'sqlite',
      file: '/x/y.db',
    });
    expect(loadConfig({ DATABASE_URL: 'sqlite:./rel/y.db' }).database).toEqual({
      dialect: 'sqlite',
      file: './rel/y.db',
    });
    // The pool's defaults: 10 connections, waiting for one without a limit (docs/operations.md, "Fairness under
    // load").
    const pool = { size: 10, acquireTimeoutMs: 0 };
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).database).toEqual({
      dialect: 'postgres',
      url: 'postgres://u@h/db',
      pool,
    });
    expect(loadConfig({ DATABASE_URL: 'postgresql://u:p@h:5433/db?sslmode=require' }).database).toEqual({
      dialect: 'postgres',
      url: 'postgresql://u:p@h:5433/db?sslmode=require',
      pool,
    });
    expect(
      loadConfig({
        DATABASE_URL: 'postgres://u@h/db',
        DATABASE_POOL_SIZE: '3',
        DATABASE_POOL_TIMEOUT_MS: '250',
      }).database,
    ).toEqual({ dialect: 'postgres', url: 'postgres://u@h/db', pool: { size: 3, acquireTimeoutMs: 250 } });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'sqlite:'],
    ['SMTP_URL', 'http://x'],
    ['ENCRYPTION_KEY', 'short'],
    ['LOG_LEVEL', 'loud'],
    ['WORKER_INTERVAL_MS', '0'],
    ['BODY_LIMIT_BYTES', 'lots'],
  ])('refuses %s=%s with a ConfigError naming the variable', (name, value) => {
    const error = configError({ DATA_DIR: '/d', [name]: value });
    expect(error.message).toMatch(new RegExp(`^${name}\\b`));
  });

  it('reads PUBLIC_URL as an origin, and refuses one with a path', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://Billing.Example.com/' }).publicUrl).toBe(
      'https://billing.example.com',
    );
    expect(loadConfig({}).publicUrl).toBeUndefined();
    for (const raw of [
      'billing.example.com',
      'https://billing.example.com/v1',
      'ftp://billing.example.com',
    ]) {
      expect(configError({ PUBLIC_URL: raw }).message).toContain('PUBLIC_URL');
    }
  });

  it('reads TRUSTED_PROXIES as addresses and ranges, and refuses anything else', () => {
    expect(loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1,::1' }).trustedProxies).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
    ]);
    expect(loadConfig({}).trustedProxies).toEqual([]);
    for (const raw of ['loopback', '10.0.0.0/33', 'true']) {
      expect(configError({ TRUSTED_PROXIES: raw }).message).toContain('TRUSTED_PROXIES');
    }
  });

  it('reads the usage rate per account, and refuses a value out of range', () => {
    expect(loadConfig({}).usageRate).toEqual({ eventsPerSecond: 1000, bytesPerSecond: 1_000_000 });
    expect(loadConfig({ USAGE_EVENTS_PER_SECOND: '50', USAGE_BYTES_PER_SECOND: '65536' }).usageRate).toEqual({
      eventsPerSecond: 50,
      bytesPerSecond: 65_536,
    });
    expect(configError({ USAGE_EVENTS_PER_SECOND: '0' }).message).toContain('USAGE_EVENTS_PER_SECOND');
  });

  it('reads the usage storage cap per account, 10 GB unless set, 0 for none, and refuses anything else', () => {
    expect(loadConfig({}).usageStorageBytesPerAccount).toBe(10_000_000_000);
    expect(loadConfig({ USAGE_STORAGE_BYTES_PER_ACCOUNT: '0' }).usageStorageBytesPerAccount).toBe(0);
    expect(loadConfig({ USAGE_STORAGE_BYTES_PER_ACCOUNT: '5000000' }).usageStorageBytesPerAccount).toBe(
      5_000_000,
    );
    for (const raw of ['10GB', '-1', '1e9', '1000000000000000001']) {
      expect(configError({ USAGE_STORAGE_BYTES_PER_ACCOUNT: raw }).message).toContain(
        'USAGE_STORAGE_BYTES_PER_ACCOUNT',
      );
    }
  });

  it('reads the PDF settings, leaving one core to the event loop, and refuses a value out of range', () => {
    expect(loadConfig({}).documents).toEqual({
      threads: Math.max(1, os.availableParallelism() - 1),
      waitingPerAccount: 8,
      documentsPerThread: 4,
      customersPerAccount: 4,
      perCustomer: 2,
      customerReadsPerMinute: 30,
      timeoutMs: 30_000,
      maxInvoiceLines: 1000,
      maxStatementLines: 2000,
    });
    const given = loadConfig({
      PDF_THREADS: '3',
      PDF_QUEUE_PER_ACCOUNT: '0',
      PDF_DOCUMENTS_PER_THREAD: '2',
      PDF_QUEUE_CUSTOMERS_PER_ACCOUNT: '6',
      PDF_QUEUE_PER_CUSTOMER: '1',
      PDF_READS_PER_CUSTOMER_MINUTE: '10',
      PDF_TIMEOUT_MS: '5000',
      PDF_MAX_INVOICE_LINES: '200',
      PDF_MAX_STATEMENT_LINES: '500',
    }).documents;
    expect(given).toEqual({
      threads: 3,
      waitingPerAccount: 0,
      documentsPerThread: 2,
      customersPerAccount: 6,
      perCustomer: 1,
      customerReadsPerMinute: 10,
      timeoutMs: 5000,
      maxInvoiceLines: 200,
      maxStatementLines: 500,
    });
    for (const [name, raw] of [
      ['PDF_THREADS', '0'],
      ['PDF_QUEUE_PER_ACCOUNT', '-1'],
      ['PDF_DOCUMENTS_PER_THREAD', '0'],
      ['PDF_TIMEOUT_MS', 'soon'],
      ['PDF_MAX_INVOICE_LINES', '0'],
      ['PDF_MAX_STATEMENT_LINES', '1.5'],
    ] as const) {
      expect(configError({ [name]: raw }).message).toMatch(new RegExp(`^${name}`));
    }
  });

  it('does not repeat database credentials in its error message', () => {
    const error = configError({ DATABASE_URL: 'mysql://admin:s3cret@db.example.com/billing' });
    expect(error.message).toMatch(/^DATABASE_URL/);
    expect(error.message).not.toContain('s3cret');
    for (const env of [
      { DATABASE_URL: 'postgres://user:s3cret@ho st/db' },
      { SMTP_URL: 'mailto://u:s3cret@mail.example.com' },
    ]) {
      expect(configError(env).message).not.toContain('s3cret');
    }
  });
});

describe('the CLI with a bad configuration', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-config-'));
  afterEach(() => killTransient());
  afterAll(async () => {
    await killAll();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits with code 2 and names the variable on stderr', async () => {
    const result = await runCli(['serve'], {
      PORT: 'abc',
      DATA_DIR: dataDir,
      DATABASE_URL: `sqlite:${path.join(dataDir, 'unused.sqlite')}`,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Configuration error: PORT .*"abc"/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
    // It gave up before touching the database.
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });
});
