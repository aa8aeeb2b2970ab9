import { ConflictError } from '../../errors.ts';
import type { ServiceContext, UsageStorageCap } from '../../context.ts';
import type { Db } from '../../storage/database.ts';
import { listUsageStorage } from './usageStorage.repository.ts';
import type { UsageStorageReport } from './usageStorage.ts';

/**
 * How much of the disk an account's usage events take, and its cap (docs/usage.md, "Limits"). Measured before the
 * cap: four connections sending events with a 9.8 KB property grew an SQLite directory from 81 MB to 317 MB in ten
 * seconds; the rate and the bounds of `properties` slow an account down, the cap stops it.
 */

/** 10 GB: about 2.4 million events with properties at their 4,096-byte bound, 50 million with small ones. */
export const DEFAULT_USAGE_STORAGE_CAP = 10_000_000_000;

/**
 * The service's cap (from the configuration's USAGE_STORAGE_BYTES_PER_ACCOUNT; 0: none), made where the service is
 * built and carried by its contexts (ServiceContext.usageStorage). It keeps the accounts it found at their cap. NOTE:
 * events are never deleted and the cap changes only with the configuration, so an account found full stays full
 * while the service runs: its next calls are refused before anything is read or written. Without it, each refused
 * batch would be stored and rolled back, on SQLite holding the one writer from every other account while it was.
 */
export function usageStorageCap(capBytes: number = DEFAULT_USAGE_STORAGE_CAP): UsageStorageCap {
  const full = new Set<number>();
  return {
    capBytes,
    refuseWhenKnownFull(accountId) {
      if (capBytes !== 0 && full.has(accountId)) throw storageFull(capBytes);
    },
    // Thrown in the batch's transaction, so nothing of it is kept (docs/spec-decisions.md, "Fairness under load").
    // The batch that crosses the cap is kept whole: the cap is passed by at most one transaction's events. `before`
    // holds only what other transactions committed (PostgreSQL's upsert waits for them).
    assertRoomForEvents(before) {
      if (capBytes === 0 || before.bytes < capBytes) return;
      full.add(before.accountId);
      throw storageFull(capBytes, before.bytes);
    },
  };
}

/** The context's cap; a context of a process that records no usage events (the CLI) has none, and fails loudly. */
export function storageCapOf(ctx: Pick<ServiceContext, 'usageStorage'>): UsageStorageCap {
  if (!ctx.usageStorage)
    throw new Error('this process records no usage events: no usage storage cap was given');
  return ctx.usageStorage;
}

/** The refusal, with the account's stored size when the batch's own upsert read it. */
function storageFull(capBytes: number, storedBytes?: number): ConflictError {
  const stored = storedBytes === undefined ? '' : ` (${storedBytes} bytes)`;
  return new ConflictError(
    'usage_storage_full',
    `This account's stored usage events${stored} reached its cap of ${capBytes} bytes ` +
      "(USAGE_STORAGE_BYTES_PER_ACCOUNT): new events are refused until the service's operator raises the cap",
  );
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
