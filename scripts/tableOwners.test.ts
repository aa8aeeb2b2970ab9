import { describe, expect, it } from 'vitest';
import { crossModuleQueries, foreignTablesIn, tableOwners } from './tableOwners.ts';

const owners = tableOwners();

describe('table owners', () => {
  it('knows every table of the Database type from the modules that declare them', () => {
    expect(owners.get('payments')).toBe('ledger');
    expect(owners.get('batch_lines')).toBe('batches');
    expect(owners.size).toBe(95);
  });

  it("finds a query that names another module's table, in Kysely's calls and in raw SQL", () => {
    const text = [
      "db.selectFrom('batches').innerJoin('payments as p', 'p.id', 'batches.id');",
      "db.selectFrom(['batch_lines', 'payment_methods']);",
      'sql`select id from invoices where id = ${id}`;',
      "db.updateTable('batches');",
    ].join('\n');
    expect(foreignTablesIn('src/modules/batches/batch.repository.ts', text, owners)).toEqual([
      {
        file: 'src/modules/batches/batch.repository.ts',
        line: 1,
        table: 'payments',
        owner: 'ledger',
        module: 'batches',
      },
      {
        file: 'src/modules/batches/batch.repository.ts',
        line: 2,
        table: 'payment_methods',
        owner: 'paymentMethods',
        module: 'batches',
      },
      {
        file: 'src/modules/batches/batch.repository.ts',
        line: 3,
        table: 'invoices',
        owner: 'invoicing',
        module: 'batches',
      },
    ]);
  });

  it("leaves a module's queries of its own tables alone", () => {
    expect(
      foreignTablesIn('src/modules/ledger/payment.repository.ts', "db.selectFrom('payments')", owners),
    ).toEqual([]);
  });

  it("finds no module's query naming another module's table", () => {
    expect(crossModuleQueries().map((q) => `${q.file}:${q.line} ${q.table}`)).toEqual([]);
  });
});
