import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../src/modules/auth/index.ts';
import { runCli } from '../helpers/cli.ts';
import { accountContext } from '../helpers/context.ts';
import { dialect } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

// Key lookups kept in the server's process (src/modules/auth/credentialsCache.ts): whatever the cache holds, a
// revoked key and a changed account are seen as they now are, by this process at once, and by the others at once
// on SQLite (a write to an account or a key empties the cache) and once PostgreSQL has told them.
describe('API keys and accounts seen by a server that keeps its key lookups', () => {
  const t = useTestService();

  async function newKey(): Promise<{ keyID: number; apiKey: string }> {
    const made = await runCli(['key', 'create', '--account', String(t.accountId), '--json'], t.env, 60_000);
    expect(made.code, made.stderr).toBe(0);
    return JSON.parse(made.stdout) as { keyID: number; apiKey: string };
  }

  const getAccount = (apiKey: string) =>
    t.request('GET', '/v1/account', { auth: { accountId: t.accountId, apiKey } });

  it('a key revoked by another process (the CLI) is refused once the server is told', async () => {
    const key = await newKey();
    // Twice: the first lookup is stored, the second is answered from the store where there is one.
    expect((await getAccount(key.apiKey)).status).toBe(200);
    expect((await getAccount(key.apiKey)).status).toBe(200);

    const revoked = await runCli(['key', 'revoke', String(key.keyID)], t.env, 60_000);
    expect(revoked.code, revoked.stderr).toBe(0);

    await expect.poll(async () => (await getAccount(key.apiKey)).status, { timeout: 10_000 }).toBe(401);
    // The account's other key still works.
    expect((await t.request('GET', '/v1/account')).status).toBe(200);
  });

  it('a change of the account made by another process is seen on the next requests', async () => {
    expect((await t.request('GET', '/v1/account')).body.TimeZone).not.toBe('Africa/Johannesburg');
    const set = await runCli(
      ['account', 'set', String(t.accountId), '--time-zone', 'Africa/Johannesburg'],
      t.env,
      60_000,
    );
    expect(set.code, set.stderr).toBe(0);
    await expect
      .poll(async () => (await t.request('GET', '/v1/account')).body.TimeZone, { timeout: 10_000 })
      .toBe('Africa/Johannesburg');
  });

  it('a key revoked in the server itself is refused on the very next request', async () => {
    const key = await newKey();
    expect((await getAccount(key.apiKey)).status).toBe(200);
    expect((await getAccount(key.apiKey)).status).toBe(200);
    await revokeApiKey(await accountContext(t, t.accountId), key.keyID);
    expect((await getAccount(key.apiKey)).status).toBe(401);
  });

  if (dialect === 'sqlite') {
    it('a key revoked by a plain write that tells no one is refused on the very next request', async () => {
      const key = await newKey();
      expect((await getAccount(key.apiKey)).status).toBe(200);
      expect((await getAccount(key.apiKey)).status).toBe(200);

      // Another connection, as another process's would be: no credentialsChanged, only the commit itself.
      const other = new BetterSqlite3(t.env.DATABASE_URL!.slice('sqlite:'.length));
      try {
        other
          .prepare('update api_keys set revoked_at = ? where id = ?')
          .run(new Date().toISOString(), key.keyID);
      } finally {
        other.close();
      }
      expect((await getAccount(key.apiKey)).status).toBe(401);
    });

    // Only writes to accounts and keys move the credentials' version (migration 0081), and it is read only after
    // another process committed: a server taking payments or usage, or beside a CLI billing, keeps its lookups.
    it('commits to other tables, by the server and by another process, keep the lookup', async () => {
      const key = await newKey();
      const counted = (part: string) => t.queries.filter((text) => text.includes(part)).length;
      const lookups = () => counted('"api_keys"."key_hash" =');
      const versionReads = () => counted('from credentials_version');
      // Both keys looked up, and kept: this test's and the one the customer is created with.
      expect((await getAccount(key.apiKey)).status).toBe(200);
      expect((await t.request('GET', '/v1/account')).status).toBe(200);
      const [firstLookups, firstVersionReads] = [lookups(), versionReads()];

      const created = await t.request('POST', '/v1/customers', { body: { Name: 'Kept Lookups' } });
      expect(created.status).toBe(201);
      expect((await getAccount(key.apiKey)).status).toBe(200);
      expect([lookups(), versionReads()]).toEqual([firstLookups, firstVersionReads]);

      const other = new BetterSqlite3(t.env.DATABASE_URL!.slice('sqlite:'.length));
      try {
        other.prepare('update customers set name = ? where id = ?').run('Renamed', created.body.customerID);
      } finally {
        other.close();
      }
      expect((await getAccount(key.apiKey)).status).toBe(200);
      expect([lookups(), versionReads()]).toEqual([firstLookups, firstVersionReads + 1]);
    });
  }

  // The race docs/architecture.md, "Two clocks", closes: another process has committed a move of the clock and
  // answered, and this one has not been told yet. A write that tells no one stands for that moment, for good.
  it("a test account's clock moved by a write that tells no one is read by the very next request", async () => {
    const shop = await t.newAccount('Clock Shop', { isTest: true });
    const today = async () => {
      const res = await shop.request('GET', '/v1/test-clock');
      expect(res.status).toBe(200);
      return res.body.Today as string;
    };
    const before = await today();
    expect(await today()).toBe(before);

    const moved = '2031-05-17T00:00:00.000Z';
    if (dialect === 'sqlite') {
      const other = new BetterSqlite3(t.env.DATABASE_URL!.slice('sqlite:'.length));
      try {
        other.prepare('update accounts set test_clock_at = ? where id = ?').run(moved, shop.accountId);
      } finally {
        other.close();
      }
    } else {
      const other = new pg.Client({ connectionString: t.env.DATABASE_URL });
      await other.connect();
      try {
        await other.query('update accounts set test_clock_at = $1 where id = $2', [moved, shop.accountId]);
      } finally {
        await other.end();
      }
    }
    expect(await today()).toBe('2031-05-17');
  });

  // Only PostgreSQL listens.
  if (dialect === 'postgres') {
    it('after its listening connection broke, the server trusts nothing it had stored', async () => {
      const key = await newKey();
      expect((await getAccount(key.apiKey)).status).toBe(200);
      expect((await getAccount(key.apiKey)).status).toBe(200);

      // The test's own schema (the URL's search_path), and this process's listener (its application_name).
      const admin = new pg.Client({ connectionString: t.env.DATABASE_URL });
      await admin.connect();
      try {
        const listeners = async () =>
          (
            await admin.query<{ pid: number }>(
              'select pid from pg_stat_activity where application_name = $1',
              [`billing-credentials-${process.pid}`],
            )
          ).rows.map((row) => row.pid);
        const before = await listeners();
        expect(before).toHaveLength(1);
        await admin.query('select pg_terminate_backend($1)', [before[0]]);
        // Listening again, on a new connection: whatever was said while it was gone, it did not hear.
        await expect
          .poll(async () => (await listeners()).some((pid) => !before.includes(pid)), { timeout: 10_000 })
          .toBe(true);
        // Revoked without telling anyone, as if the notification had been sent while the connection was down.
        await admin.query('update api_keys set revoked_at = $1 where id = $2', [
          new Date().toISOString(),
          key.keyID,
        ]);
      } finally {
        await admin.end();
      }
      expect((await getAccount(key.apiKey)).status).toBe(401);
    });
  }
});
