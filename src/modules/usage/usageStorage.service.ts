import { ConflictError } from '../../errors.ts';
import type { Db } from '../../storage/database.ts';
import { listUsageStorage } from './usageStorage.repository.ts';
import type { UsageStorage, UsageStorageReport } from './usageStorage.ts';

/**
 * How much of the disk an account's usage events take, and its cap (docs/usage.md, "Limits"). Measured before the
 * cap: four connections sending events with a 9.8 KB property grew an SQLite directory from 81 MB to 317 MB in ten
 * seconds; the rate and the bounds of `properties` slow an account down, the cap stops it.
 */

/** 10 GB: about 2.4 million events with properties at their 4,096-byte bound, 50 million with small ones. */
export const DEFAULT_USAGE_STORAGE_CAP = 10_000_000_000;
let capBytes = DEFAULT_USAGE_STORAGE_CAP;

/**
 * Sets the cap of this process, from the configuration (USAGE_STORAGE_BYTES_PER_ACCOUNT), at start; 0: no cap.
 * NOTE: a module-level setting rather than a field of every context, as the webhook endpoints' cap is: only the
 * insert path and the report read it.
 */
export function configureUsageStorageCap(bytes: number = DEFAULT_USAGE_STORAGE_CAP): void {
  capBytes = bytes;
  knownFull = new WeakMap();
}

/**
 * Per database (its adapter, which its transactions share), the accounts this process found at their cap. NOTE:
 * events are never deleted and the cap changes only with the process's configuration, so an account found full
 * stays full while the process runs: its next calls are refused before anything is read or written. Without it,
 * each refused batch would be stored and rolled back, on SQLite holding the one writer from every other account
 * while it was.
 */
let knownFull = new WeakMap<object, Set<number>>();

const fullOf = (db: Db): Set<number> => {
  const adapter = db.getExecutor().adapter;
  let full = knownFull.get(adapter);
  if (full === undefined) knownFull.set(adapter, (full = new Set()));
  return full;
};

/** The refusal, with the account's stored size when the batch's own upsert read it. */
function storageFull(storedBytes?: number): ConflictError {
  const stored = storedBytes === undefined ? '' : ` (${storedBytes} bytes)`;
  return new ConflictError(
    'usage_storage_full',
    `This account's stored usage events${stored} reached its cap of ${capBytes} bytes ` +
      "(USAGE_STORAGE_BYTES_PER_ACCOUNT): new events are refused until the service's operator raises the cap",
  );
}

/** 409 `usage_storage_full`, before any work, when this process already found the account at its cap. */
export function refuseWhenKnownFull(db: Db, accountId: number): void {
  if (capBytes !== 0 && fullOf(db).has(accountId)) throw storageFull();
}

/**
 * 409 `usage_storage_full` when the account had reached its cap before this batch (docs/spec-decisions.md, "Fairness
 * under load"): thrown in the batch's transaction, so nothing of it is kept. The batch that crosses the
 * cap is kept whole: the cap is passed by at most one transaction's events. `before` holds only what other
 * transactions committed (PostgreSQL's upsert waits for them), so the account is known full from then on.
 */
export function assertRoomForEvents(db: Db, before: UsageStorage): void {
  if (capBytes === 0 || before.bytes < capBytes) return;
  fullOf(db).add(before.accountId);
  throw storageFull(before.bytes);
}

/**
 * Each account's stored events beside a cap (the configuration's, where a command runs: 0 for none), the largest
 * first; of one account when `accountId` is given.
 */
export async function usageStorageReport(
  db: Db,
  cap: number,
  accountId?: number,
): Promise<UsageStorageReport[]> {
  const stored = await listUsageStorage(db, accountId);
  // An account that never stored an event has no row: it has stored nothing.
  if (accountId !== undefined && stored.length === 0) stored.push({ accountId, events: 0, bytes: 0 });
  return stored.map((s) => ({
    ...s,
    capBytes: cap === 0 ? null : cap,
    used: cap === 0 ? null : s.bytes / cap,
  }));
}
