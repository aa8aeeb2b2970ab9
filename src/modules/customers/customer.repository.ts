import { isPostgres } from '../../storage/columns.ts';
import type { AliasableExpression, Expression, Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { preparedQuery } from '../../storage/prepared.ts';
import type { Page } from '../../core/paging.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { CustomersTable } from './tables.ts';
import type { BillingProfile, Customer, CustomerChanges, NewCustomer } from './customer.ts';
import {
  billingProfileFromRow,
  customerChangesToRow,
  customerFromRow,
  newCustomerToRow,
} from './customer.mapper.ts';

type CustomerRow = Selectable<CustomersTable>;

const CUSTOMER_COLUMNS = [
  'id',
  'account_id',
  'reference',
  'is_company',
  'name',
  'last_name',
  'registration_number',
  'vat_no',
  'company',
  'email',
  'email_cc',
  'cell',
  'tel',
  'fax',
  'address1',
  'address2',
  'city',
  'state',
  'country',
  'zip_code',
  'country_state',
  'country_id',
  'country_state_id',
  'primary_gateway_id',
  'currency_code',
  'is_suspended',
  'suspended_at',
  'is_active',
  'is_waive_taxes',
  'payment_method',
  'auto_send_invoice',
  'auto_send_statement',
  'statement_date',
  'statement_last_sent_at',
  'bill_cycle_day',
  'created_at',
  'updated_at',
] as const;

const customerById = preparedQuery((db, accountId: number, customerId: number) =>
  db
    .selectFrom('customers')
    .select(CUSTOMER_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', customerId),
);

export async function findCustomer(
  db: Db,
  accountId: number,
  customerId: number,
): Promise<Customer | undefined> {
  const row = (await customerById(db, accountId, customerId))[0];
  return row && customerFromRow(row);
}

/**
 * A customer's row as the figures of higher modules see it in a statement that reads customers: its id and
 * currency as expressions to correlate a subquery with, the account every subquery must filter on, and the day
 * the figures are for.
 */
export interface CustomerOfRow {
  accountId: number;
  id: Expression<number>;
  currencyCode: Expression<string>;
  asOf: PlainDate;
}

/** Columns computed for each customer row, by name: scalar subqueries that higher modules build. */
export type CustomerFigureColumns = (customer: CustomerOfRow) => Record<string, AliasableExpression<unknown>>;

export type FigureValues = Readonly<Record<string, unknown>>;

/** A higher module's query of customer ids (its rows' for the keys given, of the account), to read them by. */
export type CustomerPick = (accountId: number, keys: readonly number[]) => Expression<number>;

/**
 * Statements that read customers together with `figureColumns`, built and compiled once (preparedQuery): a
 * customer and its figures in one statement, or the figures of customers already read in one statement for a
 * page. On PostgreSQL every statement is a round trip (docs/benchmarks.md, "HTTP").
 */
export function customerReadsWith(figureColumns: CustomerFigureColumns) {
  const selectFigures =
    (accountId: number, asOf: PlainDate) =>
    (eb: {
      ref(column: 'customers.id'): Expression<number>;
      ref(column: 'customers.currency_code'): Expression<string>;
    }) =>
      Object.entries(
        figureColumns({
          accountId,
          id: eb.ref('customers.id'),
          currencyCode: eb.ref('customers.currency_code'),
          asOf,
        }),
      ).map(([name, column]) => column.as(name));

  const customerWithFigures = preparedQuery((db, accountId: number, customerId: number, asOf: PlainDate) =>
    db
      .selectFrom('customers')
      .select(CUSTOMER_COLUMNS)
      .select(selectFigures(accountId, asOf))
      .where('account_id', '=', accountId)
      .where('id', '=', customerId),
  );
  const figuresOfCustomers = preparedQuery((db, accountId: number, ids: readonly number[], asOf: PlainDate) =>
    db
      .selectFrom('customers')
      .select('id')
      .select(selectFigures(accountId, asOf))
      .where('account_id', '=', accountId)
      .where('id', 'in', ids),
  );

  /**
   * Customers, with their figures, whose ids another module's query picks (`pick`: ids of its table's rows for
   * these keys), in one statement: what reads them beside that module's rows, in the same round trip.
   */
  function customersPickedBy(pick: CustomerPick) {
    const read = preparedQuery((db, accountId: number, keys: readonly number[], asOf: PlainDate) =>
      db
        .selectFrom('customers')
        .select(CUSTOMER_COLUMNS)
        .select(selectFigures(accountId, asOf))
        .where('account_id', '=', accountId)
        .where('id', 'in', pick(accountId, keys)),
    );
    return async (
      db: Db,
      accountId: number,
      keys: readonly number[],
      asOf: PlainDate,
    ): Promise<{ customer: Customer; figures: FigureValues }[]> => {
      if (keys.length === 0) return [];
      const rows = (await read(db, accountId, keys, asOf)) as (CustomerRow & Record<string, unknown>)[];
      return rows.map((row) => ({ customer: customerFromRow(row), figures: row }));
    };
  }

  return {
    customersPickedBy,
    async findCustomerWithFigures(
      db: Db,
      accountId: number,
      customerId: number,
      asOf: PlainDate,
    ): Promise<{ customer: Customer; figures: FigureValues } | undefined> {
      const row = (await customerWithFigures(db, accountId, customerId, asOf))[0] as
        (CustomerRow & Record<string, unknown>) | undefined;
      return row && { customer: customerFromRow(row), figures: row };
    },
    async figuresOf(
      db: Db,
      accountId: number,
      ids: readonly number[],
      asOf: PlainDate,
    ): Promise<Map<number, FigureValues>> {
      if (ids.length === 0) return new Map();
      const rows = (await figuresOfCustomers(db, accountId, ids, asOf)) as ({ id: number } & FigureValues)[];
      return new Map(rows.map((row) => [row.id, row]));
    },
  };
}

export async function customerExists(db: Db, accountId: number, customerId: number): Promise<boolean> {
  const row = await db
    .selectFrom('customers')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', customerId)
    .executeTakeFirst();
  return row !== undefined;
}

export function findCustomerIdByReference(
  db: Db,
  accountId: number,
  reference: string,
): Promise<{ id: number } | undefined> {
  return db
    .selectFrom('customers')
    .select('id')
    .where('account_id', '=', accountId)
    .where('reference', '=', reference)
    .executeTakeFirst();
}

export async function listCustomers(
  db: Db,
  accountId: number,
  page: Page,
  ids?: number[],
): Promise<Customer[]> {
  const rows = await db
    .selectFrom('customers')
    .select(CUSTOMER_COLUMNS)
    .where('account_id', '=', accountId)
    .$if(ids !== undefined, (qb) => qb.where('id', 'in', ids!))
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(customerFromRow);
}

/** The account's customers with these ids (a batch read by key: no paging, no order). */
const customersByIds = preparedQuery((db, accountId: number, ids: readonly number[]) =>
  db
    .selectFrom('customers')
    .select(CUSTOMER_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', ids),
);

export async function findCustomers(db: Db, accountId: number, ids: readonly number[]): Promise<Customer[]> {
  if (ids.length === 0) return [];
  return (await customersByIds(db, accountId, ids)).map(customerFromRow);
}

export async function insertCustomer(db: Db, customer: NewCustomer): Promise<number> {
  const inserted = await db
    .insertInto('customers')
    .values(newCustomerToRow(customer))
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export async function updateCustomer(
  db: Db,
  accountId: number,
  customerId: number,
  changes: CustomerChanges,
): Promise<boolean> {
  const result = await db
    .updateTable('customers')
    .set(customerChangesToRow(changes))
    .where('account_id', '=', accountId)
    .where('id', '=', customerId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteCustomer(db: Db, accountId: number, customerId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('customers')
    .where('account_id', '=', accountId)
    .where('id', '=', customerId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function countCustomersWithCurrency(
  db: Db,
  accountId: number,
  currencyCode: string,
): Promise<number> {
  const row = await db
    .selectFrom('customers')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('currency_code', '=', currencyCode)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** What billing needs of customers: currency and where they are taxed. */
export async function listBillingProfiles(
  db: Db,
  accountId: number,
  customerIds: number[],
): Promise<Map<number, BillingProfile>> {
  if (customerIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('customers')
    .select([
      'id',
      'currency_code',
      'country_id',
      'country_state_id',
      'is_waive_taxes',
      'is_active',
      'is_suspended',
      'auto_send_invoice',
      'email',
    ])
    .where('account_id', '=', accountId)
    .where('id', 'in', customerIds)
    .execute();
  return new Map(rows.map((row) => [row.id, billingProfileFromRow(row)]));
}

/**
 * Holds the customers as lockCustomerRow holds one, taking them in id order so that two transactions locking
 * several never wait on each other crosswise; the ids of those of the account. NOTE: PostgreSQL's FOR NO KEY UPDATE
 * (a foreign key's check is not held back by it), as lockCustomerRow; SQLite knows no row locks, and its
 * transaction holds the database's write lock already (docs/architecture.md, "Locks").
 */
export async function lockCustomerRows(
  db: Db,
  accountId: number,
  customerIds: readonly number[],
): Promise<number[]> {
  if (customerIds.length === 0) return [];
  const query = db
    .selectFrom('customers')
    .select('id')
    .where('account_id', '=', accountId)
    .where(
      'id',
      'in',
      [...new Set(customerIds)].sort((a, b) => a - b),
    )
    .orderBy('id');
  const rows = await (isPostgres(db) ? query.forNoKeyUpdate() : query).execute();
  return rows.map((row) => row.id);
}

/**
 * Holds the customer until the transaction ends: every change to a customer's money (allocations, balances)
 * takes this lock first, so they are made one at a time and in one lock order. NOTE: on PostgreSQL
 * FOR NO KEY UPDATE, the lock a no-op update took, without the new row version the update wrote at every payment;
 * SQLite knows no row locks, and its transaction holds the database's write lock already (docs/architecture.md,
 * "Locks"), so there it is a read, and the customers' page is no longer written to the log with every payment.
 */
export async function lockCustomerRow(
  db: Db,
  accountId: number,
  customerId: number,
): Promise<{ id: number; currencyCode: string } | undefined> {
  const query = db
    .selectFrom('customers')
    .select(['id', 'currency_code'])
    .where('account_id', '=', accountId)
    .where('id', '=', customerId);
  const row = await (isPostgres(db) ? query.forNoKeyUpdate() : query).executeTakeFirst();
  return row && { id: row.id, currencyCode: row.currency_code };
}

/**
 * The active customers with autoSendStatement whose StatementDate is before `before` (an instant: the start of
 * the day after the bill run's day), by id; those without a StatementDate when `unscheduled`.
 */
export async function listStatementCustomers(
  db: Db,
  accountId: number,
  filter: { before: string } | { unscheduled: true },
  limit: number,
): Promise<Customer[]> {
  let query = db
    .selectFrom('customers')
    .select(CUSTOMER_COLUMNS)
    .where('account_id', '=', accountId)
    .where('auto_send_statement', '=', true)
    .where('is_active', '=', true);
  query =
    'before' in filter
      ? query.where('statement_date', '<', filter.before)
      : query.where('statement_date', 'is', null);
  const rows = await query.orderBy('id').limit(limit).execute();
  return rows.map(customerFromRow);
}

/**
 * Moves the customer's StatementDate from `from` to `to` (and sets StatementLastSentDate when given), only while
 * it is still `from`: two runs of one day cannot both send (the second finds the date moved). Whether it moved it.
 */
export async function moveStatementDate(
  db: Db,
  accountId: number,
  customerId: number,
  change: { from: string | null; to: string; sentAt: string | null; updatedAt: string },
): Promise<boolean> {
  const result = await db
    .updateTable('customers')
    .set({
      statement_date: change.to,
      ...(change.sentAt === null ? {} : { statement_last_sent_at: change.sentAt }),
      updated_at: change.updatedAt,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', customerId)
    .where((eb) =>
      change.from === null ? eb('statement_date', 'is', null) : eb('statement_date', '=', change.from),
    )
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
