import type { ColumnType } from 'kysely';
import type { Instant } from './columnTypes.ts';
import type { MailTables } from '../modules/mail/tables.ts';
import type { EventsTables } from '../modules/events/tables.ts';
import type { GatewaysTables } from '../modules/gateways/tables.ts';
import type { CatalogueTables } from '../modules/catalogue/tables.ts';
import type { AuthTables } from '../modules/auth/tables.ts';
import type { CustomersTables } from '../modules/customers/tables.ts';
import type { MandatesTables } from '../modules/mandates/tables.ts';
import type { PaymentMethodsTables } from '../modules/paymentMethods/tables.ts';
import type { InvoicingTables } from '../modules/invoicing/tables.ts';
import type { LedgerTables } from '../modules/ledger/tables.ts';
import type { SubscriptionsTables } from '../modules/subscriptions/tables.ts';
import type { EntitlementsTables } from '../modules/entitlements/tables.ts';
import type { UsageAlertsTables } from '../modules/usageAlerts/tables.ts';
import type { CouponsTables } from '../modules/coupons/tables.ts';
import type { CollectionsTables } from '../modules/collections/tables.ts';
import type { BatchesTables } from '../modules/batches/tables.ts';
import type { WidgetsTables } from '../modules/widgets/tables.ts';
import type { PortalTables } from '../modules/portal/tables.ts';
import type { UsageTables } from '../modules/usage/tables.ts';
import type { CreditsTables } from '../modules/credits/tables.ts';
import type { RetentionTables } from '../modules/retention/tables.ts';

// Each module declares the tables it owns in its tables.ts (docs/architecture.md, "Tables and their owners"); the
// storage layer only assembles them into the one Database type Kysely is typed with. Only the HTTP layer's own table
// is declared here.

export type * from './columnTypes.ts';
export type * from '../modules/mail/tables.ts';
export type * from '../modules/events/tables.ts';
export type * from '../modules/gateways/tables.ts';
export type * from '../modules/catalogue/tables.ts';
export type * from '../modules/auth/tables.ts';
export type * from '../modules/customers/tables.ts';
export type * from '../modules/mandates/tables.ts';
export type * from '../modules/paymentMethods/tables.ts';
export type * from '../modules/invoicing/tables.ts';
export type * from '../modules/ledger/tables.ts';
export type * from '../modules/subscriptions/tables.ts';
export type * from '../modules/entitlements/tables.ts';
export type * from '../modules/usageAlerts/tables.ts';
export type * from '../modules/coupons/tables.ts';
export type * from '../modules/collections/tables.ts';
export type * from '../modules/batches/tables.ts';
export type * from '../modules/widgets/tables.ts';
export type * from '../modules/portal/tables.ts';
export type * from '../modules/usage/tables.ts';
export type * from '../modules/credits/tables.ts';
export type * from '../modules/retention/tables.ts';

/** Idempotency-Key answers, kept by the HTTP layer (src/http/idempotency.ts) for every module's POST. */
export interface IdempotencyKeysTable {
  account_id: number;
  idempotency_key: string;
  request_hash: string;
  response_status: number | null;
  response_type: string | null;
  response_body: string | null;
  created_at: Instant;
  /** The process holding the key while its response is not recorded (0007); see idempotencyLease.ts. */
  lease: string | null;
  /** The operation records its response inside its own transaction (0007): a dead lease committed nothing. */
  records_in_transaction: ColumnType<boolean | number, boolean | undefined, boolean>;
}

/** Every table, as Kysely is typed with: the modules' own, and the HTTP layer's. */
export interface Database
  extends
    MailTables,
    EventsTables,
    GatewaysTables,
    CatalogueTables,
    AuthTables,
    CustomersTables,
    MandatesTables,
    PaymentMethodsTables,
    InvoicingTables,
    LedgerTables,
    CreditsTables,
    SubscriptionsTables,
    EntitlementsTables,
    UsageAlertsTables,
    CouponsTables,
    CollectionsTables,
    BatchesTables,
    WidgetsTables,
    PortalTables,
    UsageTables,
    RetentionTables {
  idempotency_keys: IdempotencyKeysTable;
}
