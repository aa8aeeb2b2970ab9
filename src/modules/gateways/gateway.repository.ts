import type { Selectable } from 'kysely';
import { isPostgres } from '../../storage/columns.ts';
import type { Db } from '../../storage/database.ts';
import type { Page } from '../../core/paging.ts';
import type { GatewaysTable } from './tables.ts';

/** A gateway without its settings: credentials are read only by the code that talks to the provider. */
type GatewayRow = Omit<Selectable<GatewaysTable>, 'settings_sealed' | 'account_id'>;

export interface Gateway {
  id: number;
  token: string;
  gatewayName: string;
  friendlyName: string;
  type: string;
  /** False once a gateway is retired; it stays for the invoices and payments that name it. */
  isActive: boolean;
  isTestMode: boolean;
  acceptsCreditCard: boolean;
  acceptsBankAccount: boolean;
  /** The account's own switch: a disabled gateway is kept but not used. */
  isEnabled: boolean;
  isPrimary: boolean;
  isManualRecon: boolean;
  createdAt: string;
}

/** A gateway to add: everything but its id, which the database gives. */
export type NewGateway = Omit<Gateway, 'id'>;

function gatewayFromRow(row: GatewayRow): Gateway {
  return {
    id: row.id,
    token: row.gateway_token,
    gatewayName: row.gateway_name,
    friendlyName: row.friendly_name,
    type: row.gateway_type,
    isActive: Boolean(row.is_active),
    isTestMode: Boolean(row.is_test_mode),
    acceptsCreditCard: Boolean(row.is_accept_cc),
    acceptsBankAccount: Boolean(row.is_accept_bank_dd),
    isEnabled: Boolean(row.is_enabled),
    isPrimary: Boolean(row.is_primary),
    isManualRecon: Boolean(row.is_manual_recon),
    createdAt: row.created_at,
  };
}

const GATEWAY_COLUMNS = [
  'id',
  'gateway_token',
  'gateway_name',
  'friendly_name',
  'gateway_type',
  'is_active',
  'is_test_mode',
  'is_accept_cc',
  'is_accept_bank_dd',
  'is_enabled',
  'is_primary',
  'is_manual_recon',
  'created_at',
] as const;

export async function findGateway(
  db: Db,
  accountId: number,
  gatewayId: number,
): Promise<Gateway | undefined> {
  const row = await db
    .selectFrom('gateways')
    .select(GATEWAY_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', gatewayId)
    .executeTakeFirst();
  return row && gatewayFromRow(row);
}

/** The account's active gateways of a type with this friendly name (a gateway being added again), in id order. */
export async function findGatewaysNamed(
  db: Db,
  accountId: number,
  type: string,
  friendlyName: string,
): Promise<Gateway[]> {
  const rows = await db
    .selectFrom('gateways')
    .select(GATEWAY_COLUMNS)
    .where('account_id', '=', accountId)
    .where('gateway_type', '=', type)
    .where('friendly_name', '=', friendlyName)
    .where('is_active', '=', true)
    .orderBy('id')
    .execute();
  return rows.map(gatewayFromRow);
}

export async function findGatewayByToken(
  db: Db,
  accountId: number,
  token: string,
): Promise<Gateway | undefined> {
  const row = await db
    .selectFrom('gateways')
    .select(GATEWAY_COLUMNS)
    .where('account_id', '=', accountId)
    .where('gateway_token', '=', token)
    .executeTakeFirst();
  return row && gatewayFromRow(row);
}

export async function listGateways(db: Db, accountId: number, page: Page): Promise<Gateway[]> {
  const rows = await db
    .selectFrom('gateways')
    .select(GATEWAY_COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(gatewayFromRow);
}

export async function findGateways(
  db: Db,
  accountId: number,
  gatewayIds: readonly number[],
): Promise<Gateway[]> {
  if (gatewayIds.length === 0) return [];
  const rows = await db
    .selectFrom('gateways')
    .select(GATEWAY_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', [...gatewayIds])
    .orderBy('id')
    .execute();
  return rows.map(gatewayFromRow);
}

/** Every gateway of the account flagged primary (one, unless a race ever left two). */
export async function primaryGatewayIds(db: Db, accountId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('gateways')
    .select('id')
    .where('account_id', '=', accountId)
    .where('is_primary', '=', true)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

/** The account's primary gateway, whatever its state (the lowest id, should a race ever have left two). */
export async function findPrimaryGateway(db: Db, accountId: number): Promise<Gateway | undefined> {
  const row = await db
    .selectFrom('gateways')
    .select(GATEWAY_COLUMNS)
    .where('account_id', '=', accountId)
    .where('is_primary', '=', true)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row && gatewayFromRow(row);
}

/** Adds the account's gateway with its sealed settings (null when it has none); its id. */
export async function insertGateway(
  db: Db,
  accountId: number,
  gateway: NewGateway,
  settingsSealed: string | null,
): Promise<number> {
  const inserted = await db
    .insertInto('gateways')
    .values({
      account_id: accountId,
      gateway_token: gateway.token,
      gateway_name: gateway.gatewayName,
      friendly_name: gateway.friendlyName,
      gateway_type: gateway.type,
      is_active: gateway.isActive,
      is_test_mode: gateway.isTestMode,
      is_accept_cc: gateway.acceptsCreditCard,
      is_accept_bank_dd: gateway.acceptsBankAccount,
      is_enabled: gateway.isEnabled,
      is_primary: gateway.isPrimary,
      is_manual_recon: gateway.isManualRecon,
      settings_sealed: settingsSealed,
      created_at: gateway.createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export async function updateGatewayEnabled(
  db: Db,
  accountId: number,
  gatewayId: number,
  isEnabled: boolean,
): Promise<boolean> {
  const result = await db
    .updateTable('gateways')
    .set({ is_enabled: isEnabled })
    .where('account_id', '=', accountId)
    .where('id', '=', gatewayId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Locks the account's gateways until the transaction ends, so that changes to which one is primary are made one
 * at a time per account. A transaction that waited here sees, in its next statements, the gateways the other one
 * added; a statement that was already running would not.
 * NOTE: on PostgreSQL, SELECT ... FOR UPDATE in id order: an UPDATE locks rows in the order it finds them, which
 * changes as rows get new versions, and two of them could deadlock. An SQLite transaction holds the database's
 * write lock already (docs/architecture.md, "Locks").
 */
export async function lockAccountGateways(db: Db, accountId: number): Promise<void> {
  if (!isPostgres(db)) return;
  await db
    .selectFrom('gateways')
    .select('id')
    .where('account_id', '=', accountId)
    .orderBy('id')
    .forUpdate()
    .execute();
}

/**
 * Makes one gateway the account's primary and every other one not, provided that gateway is enabled and active;
 * false when it is not (or is not the account's), and then nothing changed.
 * Run it after lockAccountGateways in the same transaction.
 */
export async function setPrimaryGateway(db: Db, accountId: number, gatewayId: number): Promise<boolean> {
  const result = await db
    .updateTable('gateways')
    .set((eb) => ({ is_primary: eb.case().when('id', '=', gatewayId).then(true).else(false).end() }))
    .where('account_id', '=', accountId)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('gateways as target')
          .select('target.id')
          .where('target.account_id', '=', accountId)
          .where('target.id', '=', gatewayId)
          .where('target.is_enabled', '=', true)
          .where('target.is_active', '=', true),
      ),
    )
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Operator commands (the CLI) name a gateway by id alone; this finds whose it is, so that the use case can then
 * run scoped to that account like any other.
 */
export async function findGatewayAccountId(db: Db, gatewayId: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('gateways')
    .select('account_id')
    .where('id', '=', gatewayId)
    .executeTakeFirst();
  return row?.account_id;
}

/** The gateway's sealed settings (credentials, a creditor's details), for the code that uses them. */
export async function findGatewaySettings(
  db: Db,
  accountId: number,
  gatewayId: number,
): Promise<string | null> {
  const row = await db
    .selectFrom('gateways')
    .select('settings_sealed')
    .where('account_id', '=', accountId)
    .where('id', '=', gatewayId)
    .executeTakeFirst();
  return row?.settings_sealed ?? null;
}

/** The account and id of the gateway with this GatewayToken, of any account (a provider's webhook names it). */
export async function findGatewayOwnerByToken(
  db: Db,
  gatewayToken: string,
): Promise<{ accountId: number; gatewayId: number } | undefined> {
  const row = await db
    .selectFrom('gateways')
    .select(['account_id', 'id'])
    .where('gateway_token', '=', gatewayToken)
    .executeTakeFirst();
  return row && { accountId: row.account_id, gatewayId: row.id };
}

/** Replaces the gateway's sealed settings; whether the account has that gateway. */
export async function updateGatewaySettings(
  db: Db,
  accountId: number,
  gatewayId: number,
  settingsSealed: string,
): Promise<boolean> {
  const result = await db
    .updateTable('gateways')
    .set({ settings_sealed: settingsSealed })
    .where('account_id', '=', accountId)
    .where('id', '=', gatewayId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
