import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { expect } from 'vitest';
import { dialect } from './service.ts';
import type { TestService } from './service.ts';

/**
 * Every table's rows as text (PostgreSQL), or the database files' bytes (SQLite): what a copy of the database
 * shows, for the tests of secrets at rest. `known` is a value the caller stored, found in the text to prove the scan
 * read the rows.
 */
export async function storedText(s: TestService, known: string): Promise<string> {
  let text: string;
  if (dialect === 'postgres') {
    const tables = await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(s.service.storage.db);
    const parts: string[] = [];
    for (const { name } of tables.rows) {
      const rows = await sql<{
        row: string;
      }>`select row_to_json(x)::text as row from ${sql.table(name)} x`.execute(s.service.storage.db);
      parts.push(...rows.rows.map((r) => r.row));
    }
    text = parts.join('\n');
  } else {
    const files = fs.readdirSync(s.dataDir).filter((f) => f.startsWith('test.sqlite'));
    expect(files).toContain('test.sqlite');
    text = files.map((f) => fs.readFileSync(path.join(s.dataDir, f)).toString('latin1')).join('\n');
  }
  expect(text).toContain(known);
  return text;
}

/** The rows of every table but those `except` names, as JSON text: what a copy of the service's own tables shows. */
export async function tableRowsText(s: TestService, except: RegExp): Promise<string> {
  const db = s.service.storage.db;
  const tables =
    dialect === 'postgres'
      ? await sql<{ name: string }>`
          select table_name as name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
      : await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db);
  const parts: string[] = [];
  for (const { name } of tables.rows) {
    if (except.test(name)) continue;
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db);
    parts.push(`${name}: ${JSON.stringify(rows.rows)}`);
  }
  return parts.join('\n');
}
