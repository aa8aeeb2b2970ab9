import crypto from 'node:crypto';
import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

const sha256Hex = (text: string) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/** Rows changed per statement batch: every table here is read a page at a time, by id. */
const PAGE = 500;

/** A JSON text with the values of `key` (at any depth) made null; the text itself when it has none. */
function withoutKey(text: string | null, key: string): string | null {
  if (text === null || !text.includes(`"${key}"`)) return text;
  const scrub = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(scrub);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([name, inner]) => [name, name === key ? null : scrub(inner)]),
    );
  };
  return JSON.stringify(scrub(JSON.parse(text)));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // docs/spec-decisions.md, "eMandate tokens at rest": the token is a bearer capability, so only its SHA-256 is
  // kept, and the pages and the API find a mandate by the digest of the token they are given. A mandate made from
  // now on also keeps a random seed, from which the service derives its token again with its own key (to show it
  // on the bank account linked to it); one made before has none, and its token cannot be shown again.
  // NOTE: SQLite has no SHA-256 function and PostgreSQL's needs bytea conversions, so the digests are computed
  // here, a page of rows at a time; the column is renamed, not dropped, so that its unique constraint stays.
  await db.schema.alterTable('emandates').renameColumn('token', 'token_sha256').execute();
  await db.schema.alterTable('emandates').addColumn('token_seed', 'text').execute();
  for (let after = 0; ;) {
    const rows: { id: number; token_sha256: string }[] = await db
      .selectFrom('emandates')
      .select(['id', 'token_sha256'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute();
    if (rows.length === 0) break;
    for (const row of rows) {
      await db
        .updateTable('emandates')
        .set({ token_sha256: sha256Hex(row.token_sha256) })
        .where('id', '=', row.id)
        .execute();
    }
    after = Number(rows[rows.length - 1]!.id);
  }

  // The events and audit entries written so far show the mandate with its Token, and bank accounts with their
  // EMandateToken: they are stored and sent on, and the capability is not theirs (null from now on).
  for (const [resourceType, key] of [
    ['emandate', 'Token'],
    ['payment_method', 'EMandateToken'],
  ] as const) {
    for (let after = ''; ;) {
      const events: { id: string; payload: string }[] = await db
        .selectFrom('events')
        .select(['id', 'payload'])
        .where('resource_type', '=', resourceType)
        .where('id', '>', after)
        .orderBy('id')
        .limit(PAGE)
        .execute();
      if (events.length === 0) break;
      for (const event of events) {
        const payload = withoutKey(event.payload, key);
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
        .where('resource_type', '=', resourceType)
        .where('id', '>', after)
        .orderBy('id')
        .limit(PAGE)
        .execute();
      if (entries.length === 0) break;
      for (const entry of entries) {
        const before = withoutKey(entry.before, key);
        const afterText = withoutKey(entry.after, key);
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

  // A bank account is linked to its mandate by the mandate's payment_method_id; it keeps no token of its own.
  // Before tokens had to name a signed mandate, a SEPA account's EMandateToken was free text, and its pain.008
  // lines were collected under it as the mandate reference (docs/gateways.md, "The bankfile gateway"): it moves
  // to the account's own mandate reference, so that the same mandate is named.
  await db
    .updateTable('payment_methods')
    .set((eb) => ({ mandate_reference: eb.ref('emandate_token') }))
    .where('debit_method', '=', 'sepa')
    .where('mandate_reference', 'is', null)
    .where('emandate_token', 'is not', null)
    .execute();
  await db.schema.alterTable('payment_methods').dropColumn('emandate_token').execute();
}
