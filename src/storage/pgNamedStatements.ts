import type Pg from 'pg';
import { loadPg } from './pgModule.ts';

/**
 * PostgreSQL plans an unnamed statement every time it runs; a named one is parsed once per connection and, once its
 * plan settles, reused (docs/benchmarks.md, "Named statements on PostgreSQL": the customer read went from about
 * 1 000 to 1 750 a second). Kysely sends every statement unnamed, so the pool's clients name the ones that come
 * back: a text is named the second time it is seen, each text keeps one name for the process's life (names are
 * per connection in PostgreSQL, the same text on every connection), and only so many texts are named, so that the
 * statements made of a varying number of rows (a bill run's inserts) do not grow every connection's cache without
 * bound. Behind PgBouncer in transaction mode this needs its `max_prepared_statements` (docs/operations.md).
 */
const MAX_NAMED = 2_000;
/** Longer texts are the multi-row statements, which rarely come back with the same number of rows. */
const MAX_NAMED_LENGTH = 8_000;
/** Texts seen once and not named yet; cleared when full, which only delays the naming of a text seen again. */
const MAX_SEEN = 20_000;
/** Statements PostgreSQL can prepare; the rest (DDL, SET, BEGIN) pass unnamed. */
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;
/**
 * `select *`, `"table".*`, `returning *`: their columns are the table's as it was when they were prepared, and
 * PostgreSQL refuses to run a named statement whose columns a migration changed ("cached plan must not change
 * result type"), so a process still running during a migration would fail them until restarted. Unnamed, they are
 * planned as the table now is.
 */
const ALL_COLUMNS = /(?:^|[\s,])(?:"[^"]+"\.)?\*(?=[\s,]|$)/;

const names = new Map<string, string>();
const seenOnce = new Set<string>();

/** The name for `text`, or undefined while it stays unnamed. */
export function statementName(text: string): string | undefined {
  const named = names.get(text);
  if (named !== undefined) return named;
  if (names.size >= MAX_NAMED || text.length > MAX_NAMED_LENGTH) return undefined;
  if (!PREPARABLE.test(text) || ALL_COLUMNS.test(text)) return undefined;
  if (!seenOnce.has(text)) {
    if (seenOnce.size >= MAX_SEEN) seenOnce.clear();
    seenOnce.add(text);
    return undefined;
  }
  seenOnce.delete(text);
  const name = `billing_${names.size}`;
  names.set(text, name);
  return name;
}

let namedStatementClient: typeof Pg.Client | undefined;

/**
 * The class of pool clients that run a statement Kysely sends (text and values) under its name once it has one;
 * made when first asked for, as pg is loaded (loadPg).
 */
export function namedStatementClientClass(): typeof Pg.Client {
  return (namedStatementClient ??= class NamedStatementClient extends loadPg().Client {
    // pg's query() is overloaded many ways; only the (text, values) form Kysely uses is named, the rest pass as they are.
    override query(...args: unknown[]): never {
      const [text, values] = args;
      const name = typeof text === 'string' && Array.isArray(values) ? statementName(text) : undefined;
      const call = super.query as (...forwarded: unknown[]) => never;
      return name === undefined ? call.apply(this, args) : call.call(this, { name, text, values });
    }
  });
}
