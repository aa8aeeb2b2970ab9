import type { Defaulted, Id, Instant } from '../../storage/columnTypes.ts';

// The tables the credits module owns (docs/architecture.md, "Tables and their owners"): only its own queries name them.

/** A customer's prepaid credit in one currency (docs/credits.md, "Wallets"); its balance is summed from entries. */
export interface WalletsTable {
  id: Id;
  account_id: number;
  customer_id: number;
  currency_code: string;
  name: string | null;
  created_at: Instant;
  updated_at: Instant;
  /** docs/credits.md, "Automatic top-ups": both null when off. */
  auto_top_up_threshold_minor: number | null;
  auto_top_up_amount_minor: number | null;
  /** Why the last automatic top-up could not be made; null once one is. */
  auto_top_up_problem: string | null;
  /** docs/credits.md, "Low-balance alerts": null when off; alerted is set below it, cleared at or above it. */
  low_balance_alert_minor: number | null;
  low_balance_alerted: Defaulted<boolean | number>;
}

/** Credit put in a wallet: granted, or paid by a top-up invoice (unique on it). */
export interface CreditGrantsTable {
  id: Id;
  account_id: number;
  wallet_id: number;
  customer_id: number;
  currency_code: string;
  /** paid | granted */
  kind: string;
  amount_minor: number;
  priority: number;
  expires_at: Instant | null;
  /** JSON arrays of the metrics (and components) whose lines it may pay; null: any line. */
  metric_codes: string | null;
  component_ids: string | null;
  note: string | null;
  top_up_invoice_id: number | null;
  voided_at: Instant | null;
  /** docs/tax.md, "Prepaid credit": when_sold, when_used (paid) or discount (granted) (0055). */
  vat_treatment: Defaulted<string>;
  created_at: Instant;
}

/** The append-only journal of a grant's remaining amount: grant, consume, release, expire, void, refund. */
export interface CreditEntriesTable {
  id: Id;
  account_id: number;
  grant_id: number;
  wallet_id: number;
  kind: string;
  /** Positive; the kind says which way it moves the remaining amount. */
  amount_minor: number;
  invoice_id: number | null;
  allocation_id: number | null;
  created_at: Instant;
}

/** A paid top-up's invoice: its grant is made when it is paid in full. */
export interface WalletTopUpsTable {
  id: Id;
  account_id: number;
  wallet_id: number;
  invoice_id: number;
  amount_minor: number;
  /** Made by the wallet itself (docs/credits.md, "Automatic top-ups"). */
  automatic: Defaulted<boolean | number>;
  /** How the credit was sold (docs/tax.md, "Prepaid credit"): when_sold or when_used (0055). */
  vat_treatment: Defaulted<string>;
  created_at: Instant;
}

/** The credits module's tables, as Kysely's Database type holds them. */
export interface CreditsTables {
  wallets: WalletsTable;
  credit_grants: CreditGrantsTable;
  credit_entries: CreditEntriesTable;
  wallet_top_ups: WalletTopUpsTable;
}
