import { createRequire } from 'node:module';
import type Pg from 'pg';

let pg: typeof Pg | undefined;

/**
 * pg, loaded when a PostgreSQL database is first opened rather than with the storage: a process on SQLite does not
 * carry its 16 MB (docs/benchmarks.md, "Bill run"). NOTE: required, not imported, so that opening storage stays
 * synchronous; pg's ES module entry wraps this same CommonJS module, so both give one instance.
 */
export function loadPg(): typeof Pg {
  return (pg ??= createRequire(import.meta.url)('pg') as typeof Pg);
}
