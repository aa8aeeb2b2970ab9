import crypto from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { workersToStart } from '../../src/cli/serve.ts';
import { loadConfig } from '../../src/config.ts';
import { freePostgresConnections } from '../../src/storage/database.ts';
import { createCustomer } from '../helpers/billing.ts';
import { dialect, eventually, startAnotherInstance } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

// A PostgreSQL server opens at most `max_connections` client connections, and each process of `billing serve` holds
// DATABASE_POOL_SIZE + 2 (docs/operations.md, "Scaling out"): the default count of processes fits what is free, and
// a connection the server refuses anyway (53300) is a 503 the client may retry, never a 500.

const t = useTestService({ env: { WORKER_INTERVAL_MS: '3600000' } });

describe('the number of processes serve runs', () => {
  it('is the one given, else WORKERS, else one per core; on PostgreSQL the default fits the free connections', async () => {
    const config = (env: Record<string, string> = {}) => loadConfig({ ...t.env, ...env });
    expect(await workersToStart(config(), 5)).toBe(5);
    expect(await workersToStart(config({ WORKERS: '3' }), undefined)).toBe(3);
    expect(await workersToStart(config({ WORKERS: '3' }), 4)).toBe(4);
    if (dialect === 'sqlite') {
      // One file, no connection budget: the cores, whatever the pool settings say.
      expect(await workersToStart(config({ DATABASE_POOL_SIZE: '1000' }), undefined)).toBe(
        os.availableParallelism(),
      );
      return;
    }
    const cores = os.availableParallelism();
    // 3 connections a process (a pool of 1, the lease, the listener): a server with room for one per core.
    expect(await freePostgresConnections(t.env.DATABASE_URL!)).toBeGreaterThan(3 * cores);
    expect(await workersToStart(config({ DATABASE_POOL_SIZE: '1' }), undefined)).toBe(cores);
    // 1 002 connections a process: more than any default server has free, so the default is one process.
    expect(await workersToStart(config({ DATABASE_POOL_SIZE: '1000' }), undefined)).toBe(1);
    // A count given is kept (with a warning): the operator may know better, e.g. a pooler in front.
    expect(await workersToStart(config({ DATABASE_POOL_SIZE: '1000', WORKERS: '2' }), undefined)).toBe(2);
    expect(await workersToStart(config({ DATABASE_POOL_SIZE: '1000' }), 3)).toBe(3);
  });
});

describe('a connection the database refuses', () => {
  it('answers 503 database_busy with Retry-After, and serves again once the database has room', async () => {
    if (dialect === 'sqlite') {
      // SQLite opens its two connections at start and never another: there is no connection to be refused.
      expect(loadConfig(t.env).database.dialect).toBe('sqlite');
      return;
    }
    const customerId = await createCustomer(t);
    // In the test's own database, where its schema is: roles are the server's, grants the database's.
    const admin = new pg.Client({ connectionString: t.env.DATABASE_URL });
    await admin.connect();
    // A role of its own, not a superuser, so that its CONNECTION LIMIT applies (superusers are exempt).
    const role = `billing_limited_${crypto.randomBytes(4).toString('hex')}`;
    const schema = /search_path=(\S+)/.exec(new URL(t.env.DATABASE_URL!).searchParams.get('options')!)![1]!;
    await admin.query(`create role ${role} login`);
    await admin.query(`grant usage on schema ${schema} to ${role}`);
    await admin.query(`grant select, insert, update, delete on all tables in schema ${schema} to ${role}`);
    await admin.query(`grant usage, select on all sequences in schema ${schema} to ${role}`);
    const url = new URL(t.env.DATABASE_URL!);
    url.username = role;
    const limited = await startAnotherInstance(t, { env: { DATABASE_URL: url.toString() }, migrated: true });
    const get = () => limited.request('GET', `/v1/customers/${customerId}`);
    const backends = async () =>
      (
        await admin.query<{ pid: number; application_name: string }>(
          'select pid, application_name from pg_stat_activity where usename = $1',
          [role],
        )
      ).rows;
    try {
      expect((await get()).status).toBe(200);
      // The pool's connections end and the role may open no new one: the next request needs one, and is refused.
      const pooled = (await backends()).filter((b) => b.application_name === `billing-${process.pid}`);
      expect(pooled.length).toBeGreaterThan(0);
      await admin.query(`alter role ${role} connection limit ${(await backends()).length - pooled.length}`);
      for (const { pid } of pooled) await admin.query('select pg_terminate_backend($1)', [pid]);
      await eventually(async () =>
        (await backends()).some((b) => pooled.some((p) => p.pid === b.pid)) ? undefined : true,
      );
      await eventually(async () => {
        const refused = await get();
        if (refused.status === 500) throw new Error(`a 500: ${refused.text}`);
        return refused.status === 503 ? refused : undefined;
      }).then((refused) => {
        expect(refused.headers.get('retry-after')).toBe('1');
        expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
        expect(refused.body).toMatchObject({ status: 503, code: 'database_busy' });
      });
      await admin.query(`alter role ${role} connection limit -1`);
      expect((await get()).status).toBe(200);
    } finally {
      await limited.close();
      await admin.query(`drop owned by ${role}`);
      await admin.query(`drop role ${role}`);
      await admin.end();
    }
  });
});
