import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseDatabaseUrl } from '../../src/config.ts';
import { systemClock } from '../../src/clock.ts';
import { createAccount } from '../../src/modules/auth/index.ts';
import { openStorage } from '../../src/storage/database.ts';
import type { Storage } from '../../src/storage/database.ts';
import { freshDatabase, STAGING } from '../helpers/service.ts';
import type { TestService } from '../helpers/service.ts';
import { modulePorts } from '../../src/modulePorts.ts';

/** A database of the suite's dialect for a `billing serve` child, with one account made beforehand. */
export interface ServedDatabase {
  dataDir: string;
  url: string;
  /** DATABASE_URL and DATA_DIR for the CLI. */
  env: Record<string, string>;
  account: { accountId: number; apiKey: string };
  /** Opens the database directly, to look at or lock what the server uses. */
  open(): Storage;
  drop(): Promise<void>;
}

export async function servedDatabase(): Promise<ServedDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-hardening-'));
  // Migrated already (a copy of the run's migrated database): the server finds nothing to do.
  const database = await freshDatabase(dataDir, { migrated: true });
  const open = () => openStorage(parseDatabaseUrl(database.url, dataDir));
  const storage = open();
  try {
    // Account creation announces itself with events, which render through the ports the entry points connect.
    const created = await createAccount(
      storage.db,
      { ports: modulePorts(), clock: systemClock, wallClock: systemClock },
      { name: 'Hardening' },
      STAGING,
    );
    return {
      dataDir,
      url: database.url,
      env: { DATABASE_URL: database.url, DATA_DIR: dataDir },
      account: { accountId: created.account.id, apiKey: created.apiKey },
      open,
      async drop() {
        await database.drop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } finally {
    await storage.close();
  }
}

/** The database of a running test service, and its main account, seen as a served database (dropped with it). */
export function servedDatabaseOf(t: TestService): ServedDatabase {
  const url = t.env.DATABASE_URL!;
  return {
    dataDir: t.dataDir,
    url,
    env: { DATABASE_URL: url, DATA_DIR: t.dataDir },
    account: { accountId: t.accountId, apiKey: t.apiKey },
    open: () => openStorage(parseDatabaseUrl(url, t.dataDir)),
    drop: async () => {},
  };
}
