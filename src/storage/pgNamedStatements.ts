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

/** What PostgreSQL described of a named statement's rows on one connection, with their parsers built once. */
interface RowDescription {
  fields: Pg.FieldDef[];
  parsers: ((text: string) => unknown)[];
  /** A row of the statement's columns in order, all null: each row is a copy of it, filled in. */
  emptyRow: Record<string, unknown>;
}

/** The parts of pg's Query (pg 8, lib/query.js) a described query builds on: its submittable's handlers. */
interface PgQuery {
  name?: string;
  text?: string;
  values?: unknown[];
  callback?: (error: Error | null, result: unknown) => void;
  portal: string;
  _result: Pg.QueryResult & { addRow(row: unknown): void };
  _accumulateRows: boolean;
  _canceledDueToError: unknown;
  hasBeenParsed(connection: PgConnection): boolean;
  prepare(connection: PgConnection): void;
  handleRowDescription(message: { fields: Pg.FieldDef[] }): void;
  handleDataRow(message: { fields: (string | null)[] }): void;
  handleError(error: Error, connection: PgConnection): void;
}

/** The messages of the extended query protocol, as pg's Connection writes them, and the statements it parsed. */
interface PgConnection {
  parsedStatements: Record<string, string>;
  bind(config: { portal: string; statement?: string; values?: unknown[]; valueMapper: unknown }): void;
  execute(config: { portal: string }): void;
  sync(): void;
  close(config: { type: 'S'; name?: string }): void;
  stream: { cork?: () => void; uncork?: () => void };
}

type PgQueryClass = new (text: string) => PgQuery;

/** A statement to run under its name, and what to call with its result. */
interface NamedRun {
  name: string;
  text: string;
  values: unknown[];
  callback: (error: Error | null, result: unknown) => void;
}

let describedQuery: ReturnType<typeof describedQueryClass> | undefined;

/**
 * pg asks PostgreSQL to describe the rows of every statement it runs, even of one prepared under a name, and parses
 * the description and builds a parser per column each time: for the customer's read of 44 columns that was about
 * 15 µs of CPU a run (docs/benchmarks.md, "Key lookups kept on SQLite"; kept, the read costs a quarter less CPU:
 * "Descriptions kept per connection"). A named statement's rows keep the shape they had when it was prepared
 * (PostgreSQL refuses to run it otherwise: "cached plan must not change result type"), so the description of its
 * first run on a connection serves every later run there; the query sends Bind, Execute and Sync only, and reads
 * the rows with the parsers built then. A run that fails forgets the description, and the next one asks again; one
 * PostgreSQL refused because its columns changed (a migration that altered a column's type) also drops the
 * statement, and the next one prepares it anew. NOTE: behind PgBouncer the pooler may prepare it anew on another
 * server connection without a refusal, hence the restart after such a migration (docs/operations.md, "PostgreSQL").
 */
function describedQueryClass() {
  const pg = loadPg();
  const { prepareValue } = (pg as unknown as { utils: { prepareValue: unknown } }).utils;
  return class DescribedQuery extends (pg.Query as unknown as PgQueryClass) {
    #described: RowDescription | undefined;

    constructor(
      run: NamedRun,
      private readonly descriptions: Map<string, RowDescription>,
      /** Names whose statement PostgreSQL refused to run with the columns it was prepared with. */
      private readonly replanned: Set<string>,
      private readonly typeParser: (oid: number, format: string) => (text: string) => unknown,
    ) {
      // Given its text alone: pg copies a config object through its property descriptors (about 1 µs a query).
      super(run.text);
      this.name = run.name;
      this.values = run.values;
      this.callback = run.callback;
    }

    override prepare(connection: PgConnection): void {
      if (this.replanned.delete(this.name!)) {
        // Close (not an error if absent) then Parse again in the same round trip, under the same name.
        connection.close({ type: 'S', name: this.name });
        delete connection.parsedStatements[this.name!];
      }
      const described = this.descriptions.get(this.name!);
      if (described === undefined || !this.hasBeenParsed(connection)) return super.prepare(connection);
      try {
        connection.bind({
          portal: this.portal,
          statement: this.name,
          values: this.values,
          valueMapper: prepareValue,
        });
      } catch (error) {
        // As pg's own prepare: a value that cannot be sent fails the query, not the connection.
        connection.sync();
        this.handleError(error as Error, connection);
        return;
      }
      this.#described = described;
      this._result.fields = described.fields;
      this._accumulateRows = true;
      connection.execute({ portal: this.portal });
      connection.sync();
    }

    override handleRowDescription(message: { fields: Pg.FieldDef[] }): void {
      super.handleRowDescription(message);
      this.descriptions.set(this.name!, this.describe(message.fields));
    }

    override handleDataRow(message: { fields: (string | null)[] }): void {
      const described = this.#described;
      if (described === undefined) return super.handleDataRow(message);
      if (this._canceledDueToError) return;
      try {
        this._result.addRow(rowOf(described, message.fields));
      } catch (error) {
        this._canceledDueToError = error;
      }
    }

    override handleError(error: Error, connection: PgConnection): void {
      this.descriptions.delete(this.name!);
      if (isResultTypeChanged(error)) this.replanned.add(this.name!);
      super.handleError(error, connection);
    }

    private describe(fields: Pg.FieldDef[]): RowDescription {
      const emptyRow: Record<string, unknown> = {};
      for (const field of fields) emptyRow[field.name] = null;
      const parsers = fields.map((field) => this.typeParser(field.dataTypeID, field.format || 'text'));
      return { fields, parsers, emptyRow };
    }
  };
}

/** PostgreSQL's refusal to run a statement prepared before its columns' types changed (feature_not_supported). */
function isResultTypeChanged(error: Error): boolean {
  return (
    (error as { code?: unknown }).code === '0A000' && error.message.startsWith('cached plan must not change')
  );
}

/** A row as pg's Result.parseRow makes it (text format): the columns in order, a later one of a name winning. */
function rowOf(described: RowDescription, values: (string | null)[]): Record<string, unknown> {
  const row = { ...described.emptyRow };
  const { fields, parsers } = described;
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    row[fields[i]!.name] = value === null ? null : parsers[i]!(value);
  }
  return row;
}

let namedStatementClient: typeof Pg.Client | undefined;

/**
 * The class of pool clients that run a statement Kysely sends (text and values) under its name once it has one,
 * describing its rows once per connection (describedQueryClass); made when first asked for, as pg is loaded
 * (loadPg).
 */
export function namedStatementClientClass(): typeof Pg.Client {
  return (namedStatementClient ??= class NamedStatementClient extends loadPg().Client {
    readonly #descriptions = new Map<string, RowDescription>();
    readonly #replanned = new Set<string>();

    // pg's query() is overloaded many ways; only the (text, values) form Kysely uses is named, the rest pass as they are.
    override query(...args: unknown[]): never {
      const [text, values] = args;
      const name = typeof text === 'string' && Array.isArray(values) ? statementName(text) : undefined;
      const call = super.query as (...forwarded: unknown[]) => never;
      if (name === undefined) return call.apply(this, args);
      const DescribedQuery = (describedQuery ??= describedQueryClass());
      return new Promise((resolve, reject) => {
        const callback = (error: Error | null, result: unknown) =>
          error === null ? resolve(result) : reject(error);
        const typeParser = (oid: number, format: string) => this.getTypeParser(oid, format as 'text');
        const run = { name, text: text as string, values: values as unknown[], callback };
        call.call(this, new DescribedQuery(run, this.#descriptions, this.#replanned, typeParser));
      }) as never;
    }
  });
}
