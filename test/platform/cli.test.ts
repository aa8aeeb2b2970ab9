import fs from 'node:fs';
import http from 'node:http';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, killTransient, postAcrossShutdown, runCli, startServer } from '../helpers/cli.ts';
import type { RunningServer } from '../helpers/cli.ts';
import { dialect } from '../helpers/service.ts';
import {
  EXIT_0,
  firstAccount,
  newDatabase,
  releaseAll,
  singleJson,
  sqliteFile,
  withDatabase,
} from './cli.fixtures.ts';
import type { TestDatabase } from './cli.fixtures.ts';
import { fetchInvoicePdf } from '../helpers/invoices.ts';
import { renderPdf } from '../invoicing/pdf.fixtures.ts';

// The `billing` command run as a real child process against a database of its own: migrate, account create,
// serve (cli.account, cli.gateway, cli.errors, cli.help and cli.run test the other commands).

afterEach(() => killTransient());
afterAll(releaseAll);

describe('billing migrate', () => {
  afterAll(releaseAll);

  it('applies the schema to an empty database, and a second run says it is up to date', async () => {
    const db = await newDatabase();
    const first = await runCli(['migrate'], db.env);
    expect(first.code, first.stderr).toBe(0);
    const tables = await withDatabase(db, async (storage) =>
      (await storage.db.introspection.getTables()).map((table) => table.name),
    );
    expect(tables).toEqual(expect.arrayContaining(['accounts', 'api_keys', 'customers', 'mail_outbox']));
    expect(first.stdout.trim()).toMatch(/^Applied: 0001_foundation(, \w+)*$/);

    const second = await runCli(['migrate'], db.env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.trim()).toBe('The schema is up to date.');
  });
});

describe('billing on a database of its own', () => {
  afterAll(releaseAll);

  // On PostgreSQL, a deployment may tell databases apart by search_path alone: here a schema beside the test
  // database's own, in the same database. The migration bookkeeping must stay in the connection's own schema and
  // not be found in another one.
  it('works beside another database that is already migrated', async () => {
    const own = await newDatabase();
    const other = dialect === 'postgres' ? await besideOwnSchema(own) : await newDatabase();
    const migrated = await runCli(['migrate'], other.env);
    expect(migrated.code, migrated.stderr).toBe(0);

    const created = await runCli(['account', 'create', '--name', 'Own', '--json'], own.env);
    expect(created.code, created.stderr).toBe(0);
    expect(singleJson(created.stdout).accountID).toBe(1);
  });
});

describe('billing account create', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await newDatabase();
  });
  afterAll(releaseAll);

  it('prints exactly one JSON object with --json', async () => {
    const result = await runCli(['account', 'create', '--name', 'Acme', '--json'], db.env);
    expect(result.code, result.stderr).toBe(0);
    const created = singleJson(result.stdout);
    expect(Object.keys(created).sort()).toEqual(['accountID', 'apiKey', 'isTest']);
    expect(Number.isSafeInteger(created.accountID) && created.accountID > 0).toBe(true);
    expect(created.isTest).toBe(false);
    expect(typeof created.apiKey).toBe('string');
    expect(created.apiKey.length).toBeGreaterThan(20);
    const name = await withDatabase(db, async (storage) =>
      storage.db.selectFrom('accounts').select('name').where('id', '=', created.accountID).executeTakeFirst(),
    );
    expect(name).toEqual({ name: 'Acme' });
  });

  it('prints the id and the key in words without --json', async () => {
    const result = await runCli(['account', 'create', '--name', 'Acme'], db.env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^Account (\d+) created\.\nAPI key \(shown once\): bk_\S+\nIt is a live account: its built-in test gateway moves no money and stays disabled\. Add a live gateway before it bills \(billing gateway add --account \1 --type …; docs\/going-live\.md\)\.\n$/,
    );
  });
});

describe('billing serve', () => {
  let db: TestDatabase;
  let server: RunningServer | undefined;
  let demo: { accountId: number; apiKey: string };
  let customerID: number;

  beforeAll(async () => {
    db = await newDatabase();
  });
  afterAll(releaseAll);

  it('on an empty database prints a demo account whose key works (SQLite), or how to make one (PostgreSQL)', async () => {
    server = await startServer(db.env, { shared: true });
    const running = server;
    demo = await firstAccount(running, db.env);

    const created = await api(running.url, demo, 'POST', '/v1/customers', {
      Name: 'Ada',
      LastName: 'Lovelace',
      Email: 'ada@example.com',
    });
    expect(created.status).toBe(201);
    customerID = created.body.customerID;
    const read = await api(running.url, demo, 'GET', `/v1/customers/${customerID}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      customerID,
      Name: 'Ada',
      LastName: 'Lovelace',
      Email: 'ada@example.com',
    });
  });

  it('finds the files its modules find beside themselves: the PDF threads, the fonts, the portal templates', async () => {
    // What runs is dist/bundle/ (scripts/bundle.mjs): each module still finds these where its dist/ file is.
    const running = server!;
    const invoice = await api(running.url, demo, 'POST', '/v1/invoices', {
      customerID,
      Charges: [{ Descrip: 'Analytical engine', Qty: 1, UnitCostEx: 120 }],
    });
    expect(invoice.status, JSON.stringify(invoice.body)).toBe(201);
    const pdf = await fetchInvoicePdf(running.url, demo, invoice.body.invoiceID);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const rendered = renderPdf(pdf.body, 'served-from-bundle');
    expect(rendered.text).toContain('Analytical engine');
    expect(rendered.text).toContain('Ada Lovelace');
    expect(rendered.fonts.join(' ')).toContain('DejaVuSans');

    const slug = `bundle-${process.pid}`;
    expect((await api(running.url, demo, 'PUT', '/v1/account', { PortalSlug: slug })).status).toBe(204);
    const signIn = await fetch(`${running.url}/portal/${slug}/login`);
    expect(signIn.status).toBe(200);
    expect(await signIn.text()).toMatch(/<form[^>]+method="post"/);
  });

  it('the first account is a test account: its clock moves with the printed key, as the docs suggest', async () => {
    const running = server!;
    const clock = await api(running.url, demo, 'GET', '/v1/test-clock');
    expect(clock.status).toBe(200);
    expect(clock.body.isTest).toBe(true);
    // The day the printed example moves to (SQLite), a month from now; on PostgreSQL nothing is printed.
    const printed = /"To":"(\d{4}-\d{2}-\d{2})"/.exec(running.stdout())?.[1];
    if (dialect === 'sqlite') expect(printed, running.stdout()).toBeDefined();
    const to = printed ?? new Date(Date.now() + 31 * 86_400_000).toISOString().slice(0, 10);
    const moved = await api(running.url, demo, 'POST', '/v1/test-clock/advance', { To: to });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.Today).toBe(to);
    const read = await api(running.url, demo, 'GET', '/v1/test-clock');
    expect(read.body.Now.slice(0, 10)).toBe(to);
  });

  const GRACE = { Name: 'Grace', LastName: 'Hopper', Email: 'grace@example.com' };

  it('on SIGTERM finishes the request in flight, then exits 0 and closes the database cleanly', async () => {
    // The first account was printed, so the signal handlers are in place.
    const answer = await postAcrossShutdown(server!, demo, '/v1/customers', GRACE, false);
    expect(answer.status, answer.text).toBe(201);
    const result = await server!.exit();
    expect({ code: result.code, signal: result.signal }, result.stdout + result.stderr).toEqual(EXIT_0);

    if (dialect === 'sqlite') {
      const file = sqliteFile(db);
      expect(fs.existsSync(`${file}-wal`), 'the -wal file is left behind').toBe(false);
    }
    const stored = await withDatabase(db, async (storage) => {
      if (storage.dialect === 'sqlite') {
        const { rows } = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(storage.db);
        expect(rows).toEqual([{ integrity_check: 'ok' }]);
      }
      return storage.db
        .selectFrom('customers')
        .select(['name', 'email'])
        .where('account_id', '=', demo.accountId)
        .orderBy('id')
        .execute();
    });
    expect(stored).toEqual([
      { name: 'Ada', email: 'ada@example.com' },
      { name: 'Grace', email: 'grace@example.com' },
    ]);
  });

  it('a second start on the same database creates no other account', async () => {
    server = await startServer(db.env, { shared: true });
    const running = server;
    const read = await api(running.url, demo, 'GET', `/v1/customers/${customerID}`);
    expect(read.status).toBe(200);
    // serve checks for accounts right after it starts listening; give it a moment before the signal.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const result = await running.stop();
    expect({ code: result.code, signal: result.signal }, result.stdout + result.stderr).toEqual(EXIT_0);
    expect(result.stdout).not.toContain('demo account');
    expect(result.stdout).not.toContain('No accounts yet');
    const accounts = await withDatabase(db, (storage) =>
      storage.db.selectFrom('accounts').select('id').execute(),
    );
    expect(accounts).toEqual([{ id: demo.accountId }]);
  });
});

describe('billing serve, with a keep-alive client', () => {
  afterAll(releaseAll);

  it('on SIGTERM answers the request in flight and exits promptly, not after the keep-alive timeout', async () => {
    const db = await newDatabase();
    const running = await startServer(db.env);
    const demo = await firstAccount(running, db.env);
    // Most clients (fetch included) keep connections alive. Once shutting down, the server must not leave the
    // connection of the request it just finished open: that holds the exit back for the keep-alive timeout.
    const agent = new http.Agent({ keepAlive: true });
    try {
      const answer = await postAcrossShutdown(
        running,
        demo,
        '/v1/customers',
        { Name: 'Kept', LastName: 'Alive', Email: 'kept@example.com' },
        agent,
      );
      expect(answer.status, answer.text).toBe(201);
      const result = await running.exit(5_000);
      expect({ code: result.code, signal: result.signal }, result.stdout + result.stderr).toEqual(EXIT_0);
    } finally {
      agent.destroy();
    }
  });
});

/** A schema of its own in `db`'s PostgreSQL database: the same database, another search_path. */
async function besideOwnSchema(db: TestDatabase): Promise<TestDatabase> {
  await withDatabase(db, (storage) => sql`create schema beside`.execute(storage.db));
  const url = new URL(db.url);
  url.searchParams.set('options', '-c search_path=beside');
  return { ...db, url: url.toString(), env: { ...db.env, DATABASE_URL: url.toString() } };
}
