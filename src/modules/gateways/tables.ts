import type { SqlBool, Instant, Id, PlainDateColumn } from '../../storage/columnTypes.ts';

// The tables the gateways module owns (docs/architecture.md, "Tables and their owners"): only its own queries name them.

/** The tables of gateway calls, the test gateway's simulated provider and collection attempts (see schema.ts). */
export interface GatewayCallsTable {
  id: Id;
  account_id: number;
  gateway_id: number;
  /** vault_card, charge, refund, validate_bank_account. */
  operation: string;
  idempotency_key: string | null;
  /** What was asked, as JSON, masked: never a card number or a clear account number. */
  request: string;
  /** ok, declined, error or timeout. */
  outcome: string;
  result: string | null;
  /** The operation that undoes this one, where there is one (a charge is undone by a refund). */
  undo_operation: string | null;
  /** The day a read of the provider's daily report was for (charge_events, 0040); null for other calls. */
  report_date: PlainDateColumn | null;
  /** Wall-clock time. */
  started_at: Instant;
  duration_ms: number;
}

export interface TestGatewayVaultTable {
  token: string;
  gateway_id: number;
  /** What the simulated card does (docs/gateways.md), chosen from its number when it was vaulted. */
  scenario: string;
  created_at: Instant;
}

export interface TestGatewayChargesTable {
  gateway_id: number;
  idempotency_key: string;
  charge_id: string;
  token: string;
  amount_minor: number;
  currency_code: string;
  outcome: string;
  reason: string | null;
  raw_code: string | null;
  created_at: Instant;
  /** A refund's row: the charge it refunds (its outcome is `refunded`). */
  refunds_charge_id: string | null;
}

export interface TestGatewayBatchesTable {
  gateway_id: number;
  idempotency_key: string;
  provider_ref: string;
  /** JSON: each line's outcome and the day the simulated provider reports it. */
  results: string;
  created_at: Instant;
  cancelled_at: Instant | null;
}

export interface GatewaysTable {
  id: Id;
  account_id: number;
  gateway_token: string;
  gateway_name: string;
  friendly_name: string;
  gateway_type: string;
  is_active: SqlBool;
  is_test_mode: SqlBool;
  is_accept_cc: SqlBool;
  is_accept_bank_dd: SqlBool;
  is_enabled: SqlBool;
  is_primary: SqlBool;
  is_manual_recon: SqlBool;
  settings_sealed: string | null;
  created_at: Instant;
}

/** The gateways module's tables, as Kysely's Database type holds them. */
export interface GatewaysTables {
  gateway_calls: GatewayCallsTable;
  test_gateway_vault: TestGatewayVaultTable;
  test_gateway_charges: TestGatewayChargesTable;
  test_gateway_batches: TestGatewayBatchesTable;
  gateways: GatewaysTable;
}
