// What an account has stored of usage events, measured as the service counts it (docs/usage.md, "Limits").

/** What an account has stored of usage events. */
export interface UsageStorage {
  accountId: number;
  events: number;
  /** Their stored size, as storedEventBytes counts it. */
  bytes: number;
}

/** An account's stored events beside the cap, as `billing usage storage` prints them. */
export interface UsageStorageReport extends UsageStorage {
  /** USAGE_STORAGE_BYTES_PER_ACCOUNT; null: no cap. */
  capBytes: number | null;
  /** bytes / capBytes (1 and more: full); null without a cap. */
  used: number | null;
}

/**
 * What each event counts beyond the bytes of its properties (as JSON) and of its transaction id: its other columns
 * (ids, times, value), its row in usage_transactions and its index entries, about 100 bytes on both databases. The
 * figure is the service's measure, not the file's: rollups, free pages and the WAL come on top.
 */
export const EVENT_ROW_BYTES = 100;

/** An event's stored size, from its properties as stored (JSON text) and its transaction id. */
export function storedEventBytes(propertiesJson: string, transactionId: string): number {
  return Buffer.byteLength(propertiesJson) + Buffer.byteLength(transactionId) + EVENT_ROW_BYTES;
}
