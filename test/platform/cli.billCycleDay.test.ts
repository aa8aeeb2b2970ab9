import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killTransient, runCli } from '../helpers/cli.ts';
import { newDatabase, releaseAll, singleJson, withDatabase } from './cli.fixtures.ts';
import type { TestDatabase } from './cli.fixtures.ts';

// `billing account set --bill-cycle-day` (docs/pricing.md, "Bill-cycle day"), run as a real child process.

afterEach(() => killTransient());
afterAll(releaseAll);

describe('billing account set --bill-cycle-day', () => {
  let db: TestDatabase;
  let accountId: number;
  beforeAll(async () => {
    db = await newDatabase();
    const created = await runCli(['account', 'create', '--name', 'Cycle', '--json'], db.env);
    expect(created.code, created.stderr).toBe(0);
    accountId = singleJson(created.stdout).accountID;
  });

  const dayOf = async () =>
    (
      await withDatabase(db, (storage) =>
        storage.db
          .selectFrom('accounts')
          .select('bill_cycle_day')
          .where('id', '=', accountId)
          .executeTakeFirstOrThrow(),
      )
    ).bill_cycle_day;

  it('sets the default day of the customers, prints it, and "" clears it', async () => {
    const set = await runCli(['account', 'set', String(accountId), '--bill-cycle-day', '31'], db.env);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('\nBill-cycle day: 31\n');
    expect(await dayOf()).toBe(31);

    const cleared = await runCli(['account', 'set', String(accountId), '--bill-cycle-day', ''], db.env);
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(cleared.stdout).not.toContain('Bill-cycle day');
    expect(await dayOf()).toBe(null);
  });

  it('refuses a day outside 1 to 31 and changes nothing', async () => {
    for (const bad of ['0', '32', 'first']) {
      const result = await runCli(['account', 'set', String(accountId), '--bill-cycle-day', bad], db.env);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('must be a day of the month from 1 to 31');
    }
    expect(await dayOf()).toBe(null);
  });
});
