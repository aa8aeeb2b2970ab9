import { sql } from 'kysely';
import { isPostgres } from '../../storage/columns.ts';
import type { Db } from '../../storage/database.ts';
import type { MemoryPart, ServiceMemory } from '../../context.ts';

/**
 * PostgreSQL keeps usage events in one partition per month of their time (docs/design/usage.md, "Storage: summed
 * fast, exact"). The service makes them ahead, at start and every hour (`prepareMonthPartitions`), so that the
 * insert finds them made; it makes the months it needs only when they are missing (a test clock moved ahead). SQLite
 * keeps one table and needs nothing.
 */

/** The UTC month of an instant, as a partition's suffix: 2026_11. */
function monthOf(isoInstant: string): string {
  return `${isoInstant.slice(0, 4)}_${isoInstant.slice(5, 7)}`;
}

function nextMonth(month: string): string {
  const year = Number(month.slice(0, 4));
  const m = Number(month.slice(5, 7));
  return m === 12 ? `${year + 1}_01` : `${year}_${String(m + 1).padStart(2, '0')}`;
}

const startOf = (month: string): string => `${month.slice(0, 4)}-${month.slice(5, 7)}-01T00:00:00Z`;

// Any fixed number: the key of the advisory lock that makes partitions one at a time.
const PARTITION_LOCK = 4_300_042;

/**
 * In the service's memory, per database (its adapter, which its transactions share), the months whose partitions a
 * probe found made. NOTE: partitions are never dropped, so a month found once needs no probe again: a round trip
 * less for every insert. One made by the caller's transaction is not kept: that transaction may still roll back.
 */
export const MONTHS_FOUND: MemoryPart<WeakMap<object, Set<string>>> = {
  name: 'usage events partitions found made',
  make: () => new WeakMap(),
};

export async function ensureMonthPartitions(
  db: Db,
  memory: ServiceMemory,
  occurredAts: readonly string[],
): Promise<void> {
  if (!isPostgres(db)) return;
  const adapter = db.getExecutor().adapter;
  const monthsFound = memory.part(MONTHS_FOUND);
  let found = monthsFound.get(adapter);
  if (found === undefined) monthsFound.set(adapter, (found = new Set()));
  const months = [...new Set(occurredAts.map(monthOf))];
  const wanted = [...new Set(months.flatMap((m) => [m, nextMonth(m)]))].filter((m) => !found.has(m));
  if (wanted.length === 0) return;
  const { rows } = await sql<{ month: string }>`
    select m as month from unnest(${wanted}::text[]) as m where to_regclass('usage_events_' || m) is null`.execute(
    db,
  );
  const missing = new Set(rows.map((row) => row.month));
  for (const month of wanted) if (!missing.has(month)) found.add(month);
  if (rows.length === 0) return;
  // NOTE: two transactions making the same partition would fail one of them; the lock (held to the transaction's
  // end) makes the second wait, and then its IF NOT EXISTS finds the first's.
  await sql`select pg_advisory_xact_lock(${PARTITION_LOCK})`.execute(db);
  for (const { month } of rows) {
    await sql
      .raw(
        `create table if not exists usage_events_${month} partition of usage_events ` +
          `for values from ('${startOf(month)}') to ('${startOf(nextMonth(month))}')`,
      )
      .execute(db);
  }
}

const DAY_MS = 86_400_000;
/** How long making a partition ahead waits for the events table's lock before it tries again in an hour. */
const AHEAD_LOCK_TIMEOUT = '1s';

/**
 * Makes every month an event sent now may fall in (the grace window is at most 30 days, an event at most a day
 * ahead) and the month after, in a transaction of its own. NOTE: making a partition locks the whole events table
 * until its transaction ends; made inside a request's insert, that lock would last the batch and could deadlock with
 * another request's read, so it is done here, briefly, and given up (till the next hour) rather than waited for.
 */
export async function prepareMonthPartitions(db: Db, memory: ServiceMemory, now: Date): Promise<void> {
  if (!isPostgres(db)) return;
  const instants = [-31, 0, 2].map((days) => new Date(now.getTime() + days * DAY_MS).toISOString());
  await db.transaction().execute(async (trx) => {
    await sql`select set_config('lock_timeout', ${AHEAD_LOCK_TIMEOUT}, true)`.execute(trx);
    await ensureMonthPartitions(trx, memory, instants);
  });
}
