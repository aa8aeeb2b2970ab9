import { describe, expect, it } from 'vitest';
import { statementName } from './pgNamedStatements.ts';

describe('which statements are named on PostgreSQL', () => {
  it('names a statement the second time it is seen, with the same name from then on', () => {
    const text = 'select "id" from "customers" where "account_id" = $1 and "id" = $2 -- named test 1';
    expect(statementName(text)).toBeUndefined();
    const name = statementName(text);
    expect(name).toMatch(/^billing_\d+$/);
    expect(statementName(text)).toBe(name);
    const other = 'update "customers" set "name" = $1 where "id" = $2 -- named test 1';
    statementName(other);
    expect(statementName(other)).not.toBe(name);
  });

  it('leaves unnamed what cannot be prepared, or whose columns a migration could change', () => {
    for (const text of [
      'begin',
      'create table "t" ("id" integer)',
      'select * from "batches" where "id" = $1',
      'select "batches".* from "batches" where "id" = $1',
      'insert into "t" ("a") values ($1) returning *',
      `select "id" from "t" where "a" in (${'$1, '.repeat(3000)}$2)`,
    ]) {
      statementName(text);
      expect(statementName(text), text.slice(0, 60)).toBeUndefined();
    }
  });

  it('names a count(*)', () => {
    const text = 'select count(*) as "n" from "subscriptions" where "account_id" = $1 -- named test 2';
    statementName(text);
    expect(statementName(text)).toMatch(/^billing_\d+$/);
  });
});
