import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { MONTHS_FOUND, prepareMonthPartitions } from '../../src/modules/usage/index.ts';
import { dialect } from '../helpers/service.ts';
import type { TestService } from '../helpers/service.ts';
import { startFresh, useTestService } from '../helpers/testService.ts';

// The events' monthly partitions are made ahead, outside any request's transaction (src/modules/usage/
// usagePartitions.ts), so that an insert never has to lock the events table to make one.

const t = useTestService();

async function partitionsMade(months: string[]): Promise<string[]> {
  const { rows } = await sql<{ month: string }>`
    select m as month from unnest(${months}::text[]) as m where to_regclass('usage_events_' || m) is not null
    order by m`.execute(t.service.storage.db);
  return rows.map((r) => r.month);
}

describe('usage events partitions made ahead', () => {
  it('makes the month before, the month of and the month after now, twice without harm', async () => {
    const db = t.service.storage.db;
    const now = new Date('2031-03-05T10:00:00Z');
    await prepareMonthPartitions(db, t.service.memory, now);
    await prepareMonthPartitions(db, t.service.memory, now);
    if (dialect === 'sqlite') {
      // One table, nothing to make: no table of a month appears.
      const { rows } = await sql<{ name: string }>`
        select name from sqlite_master where type = 'table' and name like 'usage_events%' order by name`.execute(
        db,
      );
      expect(rows.map((r) => r.name)).toEqual(['usage_events']);
      return;
    }
    expect(await partitionsMade(['2031_01', '2031_02', '2031_03', '2031_04', '2031_05'])).toEqual([
      '2031_02',
      '2031_03',
      '2031_04',
    ]);
  });

  it("keeps the months it found made in its service's memory, which another service in the process does not share", async () => {
    const other = await startFresh();
    const db = t.service.storage.db;
    const otherDb = other.service.storage.db;
    // Made by the first, found made by the second: only then are they kept (one made may still roll back).
    await prepareMonthPartitions(db, t.service.memory, new Date('2032-07-05T10:00:00Z'));
    await prepareMonthPartitions(db, t.service.memory, new Date('2032-07-05T10:00:00Z'));
    const monthsOf = (service: TestService, adapter: object) =>
      [...(service.service.memory.part(MONTHS_FOUND).get(adapter) ?? [])]
        .filter((m) => m.startsWith('2032'))
        .sort();
    // SQLite keeps one table and looks for no partition.
    expect(monthsOf(t, db.getExecutor().adapter)).toEqual(
      dialect === 'sqlite' ? [] : ['2032_06', '2032_07', '2032_08'],
    );
    // The other service's memory knows only what it found itself: the months of its own start, not these.
    expect(monthsOf(other, otherDb.getExecutor().adapter)).toEqual([]);
    expect(other.service.memory.part(MONTHS_FOUND)).not.toBe(t.service.memory.part(MONTHS_FOUND));
  });
});
