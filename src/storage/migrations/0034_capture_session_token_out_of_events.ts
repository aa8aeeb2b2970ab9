import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

const PAGE = 500;

/** `text` (JSON) with every `SessionToken` in it null; the same text when it has none. */
function withoutSessionToken(text: string | null): string | null {
  if (text === null || !text.includes('"SessionToken"')) return text;
  const scrub = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(scrub);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([name, inner]) => [name, name === 'SessionToken' ? null : scrub(inner)]),
    );
  };
  return JSON.stringify(scrub(JSON.parse(text)));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // The events and audit entries of capture sessions written so far show the SessionToken, which reads and
  // completes the session: they are stored and sent on to webhook endpoints, and the capability is not theirs
  // (null from now on, as the HashToken already was). A page of rows at a time, in TypeScript: the JSON is text.
  for (let after = ''; ;) {
    const events: { id: string; payload: string }[] = await db
      .selectFrom('events')
      .select(['id', 'payload'])
      .where('resource_type', '=', 'capture_session')
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute();
    if (events.length === 0) break;
    for (const event of events) {
      const payload = withoutSessionToken(event.payload);
      if (payload !== event.payload) {
        await db.updateTable('events').set({ payload }).where('id', '=', event.id).execute();
      }
    }
    after = events[events.length - 1]!.id;
  }
  for (let after = 0; ;) {
    const entries: { id: number; before: string | null; after: string | null }[] = await db
      .selectFrom('audit_log')
      .select(['id', 'before', 'after'])
      .where('resource_type', '=', 'capture_session')
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute();
    if (entries.length === 0) break;
    for (const entry of entries) {
      const before = withoutSessionToken(entry.before);
      const afterText = withoutSessionToken(entry.after);
      if (before !== entry.before || afterText !== entry.after) {
        await db
          .updateTable('audit_log')
          .set({ before, after: afterText })
          .where('id', '=', entry.id)
          .execute();
      }
    }
    after = Number(entries[entries.length - 1]!.id);
  }
}
