import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killTransient, runCli } from '../helpers/cli.ts';
import { newDatabase, releaseAll, singleJson, withDatabase } from './cli.fixtures.ts';

// `billing account set --tax-inclusive` (docs/pricing.md, "Tax-inclusive prices"), run as a real child process.

afterEach(() => killTransient());
afterAll(releaseAll);

describe('billing account set --tax-inclusive', () => {
  it('turns the account’s tax-inclusive prices on and off, and says so', async () => {
    const db = await newDatabase();
    const created = await runCli(['account', 'create', '--name', 'Gross', '--json'], db.env);
    expect(created.code, created.stderr).toBe(0);
    const accountId = singleJson(created.stdout).accountID;
    const stored = () =>
      withDatabase(db, async (storage) =>
        Boolean(
          (
            await storage.db
              .selectFrom('accounts')
              .select('is_tax_inclusive')
              .where('id', '=', accountId)
              .executeTakeFirstOrThrow()
          ).is_tax_inclusive,
        ),
      );

    const on = await runCli(['account', 'set', String(accountId), '--tax-inclusive', 'yes'], db.env);
    expect(on.code, on.stderr).toBe(0);
    expect(on.stdout).toContain('Prices include tax: yes\n');
    expect(await stored()).toBe(true);

    const off = await runCli(['account', 'set', String(accountId), '--tax-inclusive', 'no'], db.env);
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toContain('Prices include tax: no\n');
    expect(await stored()).toBe(false);
  });
});
