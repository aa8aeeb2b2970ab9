import type { Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { TestGatewayChargesTable, TestGatewayVaultTable } from './tables.ts';

export type TestChargeRow = Selectable<TestGatewayChargesTable>;

// The simulated provider's own tables: scoped by gateway (each account's test gateway is a provider account).

export async function insertVaultEntry(db: Db, row: Selectable<TestGatewayVaultTable>): Promise<void> {
  await db.insertInto('test_gateway_vault').values(row).execute();
}

export function findVaultEntry(
  db: Db,
  gatewayId: number,
  token: string,
): Promise<Selectable<TestGatewayVaultTable> | undefined> {
  return db
    .selectFrom('test_gateway_vault')
    .selectAll()
    .where('gateway_id', '=', gatewayId)
    .where('token', '=', token)
    .executeTakeFirst();
}

export function findCharge(
  db: Db,
  gatewayId: number,
  idempotencyKey: string,
): Promise<TestChargeRow | undefined> {
  return db
    .selectFrom('test_gateway_charges')
    .selectAll()
    .where('gateway_id', '=', gatewayId)
    .where('idempotency_key', '=', idempotencyKey)
    .executeTakeFirst();
}

/** NOTE: two calls with one key at once: the second insert conflicts and keeps the first charge, as a provider does. */
export async function insertCharge(db: Db, row: TestChargeRow): Promise<void> {
  await db
    .insertInto('test_gateway_charges')
    .values(row)
    .onConflict((oc) => oc.columns(['gateway_id', 'idempotency_key']).doNothing())
    .execute();
}

/** A charge by the provider's id (its refunds are rows of their own). */
export function findChargeById(
  db: Db,
  gatewayId: number,
  chargeId: string,
): Promise<TestChargeRow | undefined> {
  return db
    .selectFrom('test_gateway_charges')
    .selectAll()
    .where('gateway_id', '=', gatewayId)
    .where('charge_id', '=', chargeId)
    .executeTakeFirst();
}

/** What has been refunded of a charge so far, in minor units. */
export async function refundedOf(db: Db, gatewayId: number, chargeId: string): Promise<number> {
  const row = await db
    .selectFrom('test_gateway_charges')
    .select((eb) => eb.fn.sum<number | string>('amount_minor').as('total'))
    .where('gateway_id', '=', gatewayId)
    .where('refunds_charge_id', '=', chargeId)
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

/** The succeeded charges of the cards stored with this scenario (a masked number). */
export function chargesOfScenario(db: Db, gatewayId: number, scenario: string): Promise<TestChargeRow[]> {
  return db
    .selectFrom('test_gateway_charges')
    .innerJoin('test_gateway_vault', 'test_gateway_vault.token', 'test_gateway_charges.token')
    .selectAll('test_gateway_charges')
    .where('test_gateway_charges.gateway_id', '=', gatewayId)
    .where('test_gateway_charges.outcome', '=', 'succeeded')
    .where('test_gateway_vault.scenario', '=', scenario)
    .orderBy('test_gateway_charges.created_at')
    .execute();
}
