import { describe, expect, it } from 'vitest';
import { distributionStatements, shardProblems } from './shardReadiness.ts';
import type { Catalogue } from './shardReadiness.ts';

const declared = {
  accounts: { placement: 'reference' as const, reason: 'every table points at it' },
  throttle: { placement: 'local' as const, reason: 'counts across accounts' },
};

/** Accounts, customers and invoices keyed as `npm run shards` wants them, and a local table. */
function keyedCatalogue(): Catalogue {
  return {
    tables: new Map([
      ['accounts', { accountIdNotNull: undefined }],
      ['customers', { accountIdNotNull: true }],
      ['invoices', { accountIdNotNull: true }],
      ['throttle', { accountIdNotNull: undefined }],
    ]),
    uniqueKeys: [
      { table: 'accounts', name: 'accounts_pkey', columns: ['id'] },
      { table: 'customers', name: 'customers_pkey', columns: ['id', 'account_id'] },
      { table: 'invoices', name: 'invoices_pkey', columns: ['id', 'account_id'] },
      { table: 'throttle', name: 'throttle_pkey', columns: ['address'] },
    ],
    foreignKeys: [
      {
        table: 'customers',
        name: 'customers_account',
        columns: ['account_id'],
        referencedTable: 'accounts',
        referencedColumns: ['id'],
      },
      {
        table: 'invoices',
        name: 'invoices_customer',
        columns: ['customer_id', 'account_id'],
        referencedTable: 'customers',
        referencedColumns: ['id', 'account_id'],
      },
    ],
  };
}

describe('the shard readiness check', () => {
  it('passes tables keyed by account, a reference table they point at and a local table', () => {
    expect(shardProblems(keyedCatalogue(), declared)).toEqual([]);
  });

  it('names each key that leaves account_id out, and each table without a non-null account_id', () => {
    const catalogue = keyedCatalogue();
    catalogue.tables.set('notes', { accountIdNotNull: undefined });
    catalogue.tables.set('invoices', { accountIdNotNull: false });
    catalogue.uniqueKeys.push({ table: 'invoices', name: 'invoices_token', columns: ['token'] });
    catalogue.foreignKeys[1] = {
      ...catalogue.foreignKeys[1]!,
      columns: ['customer_id'],
      referencedColumns: ['id'],
    };
    catalogue.foreignKeys.push({
      table: 'customers',
      name: 'customers_crossed',
      columns: ['account_id', 'customer_id'],
      referencedTable: 'invoices',
      referencedColumns: ['id', 'account_id'],
    });
    expect(shardProblems(catalogue, declared)).toEqual([
      'customers: foreign key customers_crossed to invoices does not map account_id to account_id',
      'invoices: account_id may be null',
      'invoices: foreign key invoices_customer to customers does not map account_id to account_id',
      'invoices: unique key invoices_token (token) leaves account_id out',
      'notes: no account_id column',
    ]);
  });

  it('refuses a reference table pointing at a distributed one, a distributed one at a local one, and a stale declaration', () => {
    const catalogue = keyedCatalogue();
    catalogue.tables.delete('throttle');
    catalogue.tables.set('limits', { accountIdNotNull: undefined });
    catalogue.foreignKeys.push(
      {
        table: 'accounts',
        name: 'accounts_owner',
        columns: ['owner_id'],
        referencedTable: 'customers',
        referencedColumns: ['id'],
      },
      {
        table: 'customers',
        name: 'customers_limit',
        columns: ['limit_id'],
        referencedTable: 'limits',
        referencedColumns: ['id'],
      },
    );
    expect(shardProblems(catalogue, { ...declared, limits: { placement: 'local', reason: 'test' } })).toEqual(
      [
        'accounts: foreign key accounts_owner to customers: a reference table may point only at reference tables',
        'customers: foreign key customers_limit to limits: a distributed table may not point at a local table',
        'throttle: declared local but not found',
      ],
    );
  });

  it('places reference and local tables first, then each table after those its keys point at, co-located', () => {
    expect(distributionStatements(keyedCatalogue(), 'billing', declared)).toEqual([
      "select create_reference_table('billing.accounts');",
      "select citus_add_local_table_to_metadata('billing.throttle');",
      "select create_distributed_table('billing.customers', 'account_id', colocate_with => 'none');",
      "select create_distributed_table('billing.invoices', 'account_id', colocate_with => 'billing.customers');",
    ]);
  });
});
