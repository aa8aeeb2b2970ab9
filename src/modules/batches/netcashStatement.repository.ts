import type { Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { NetcashStatementsTable } from './tables.ts';

/** A day's Netcash statement of a gateway: asked for under its polling id, not asked before `nextAskAt`, applied. */
export interface NetcashStatementRecord {
  id: number;
  gatewayId: number;
  statementDate: PlainDate;
  pollingId: string | null;
  nextAskAt: string | null;
  appliedAt: string | null;
}

export interface NetcashStatementChanges {
  pollingId?: string | null;
  nextAskAt?: string | null;
  appliedAt?: string | null;
}

function statementFromRow(row: Selectable<NetcashStatementsTable>): NetcashStatementRecord {
  return {
    id: row.id,
    gatewayId: row.gateway_id,
    statementDate: row.statement_date,
    pollingId: row.polling_id,
    nextAskAt: row.next_ask_at,
    appliedAt: row.applied_at,
  };
}

const COLUMNS = [
  'id',
  'account_id',
  'gateway_id',
  'statement_date',
  'polling_id',
  'next_ask_at',
  'applied_at',
  'created_at',
] as const;

/** The gateway's statements of these days, by day; a day never asked for is missing. */
export async function statementsOn(
  db: Db,
  accountId: number,
  gatewayId: number,
  days: readonly PlainDate[],
): Promise<Map<PlainDate, NetcashStatementRecord>> {
  if (days.length === 0) return new Map();
  const rows = await db
    .selectFrom('netcash_statements')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('gateway_id', '=', gatewayId)
    .where('statement_date', 'in', days)
    .execute();
  return new Map(rows.map((row) => [row.statement_date, statementFromRow(row)]));
}

/** The gateway's statement of the day, made when it is first needed (another process may have made it first). */
export async function addStatement(
  db: Db,
  statement: { accountId: number; gatewayId: number; statementDate: PlainDate; createdAt: string },
): Promise<NetcashStatementRecord> {
  await db
    .insertInto('netcash_statements')
    .values({
      account_id: statement.accountId,
      gateway_id: statement.gatewayId,
      statement_date: statement.statementDate,
      created_at: statement.createdAt,
    })
    .onConflict((oc) => oc.columns(['account_id', 'gateway_id', 'statement_date']).doNothing())
    .execute();
  const found = await statementsOn(db, statement.accountId, statement.gatewayId, [statement.statementDate]);
  return found.get(statement.statementDate)!;
}

export async function updateStatement(
  db: Db,
  accountId: number,
  id: number,
  changes: NetcashStatementChanges,
): Promise<void> {
  await db
    .updateTable('netcash_statements')
    .set({
      ...(changes.pollingId === undefined ? {} : { polling_id: changes.pollingId }),
      ...(changes.nextAskAt === undefined ? {} : { next_ask_at: changes.nextAskAt }),
      ...(changes.appliedAt === undefined ? {} : { applied_at: changes.appliedAt }),
    })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}
