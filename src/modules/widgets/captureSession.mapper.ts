import type { Insertable, Selectable, Updateable } from 'kysely';
import type { CaptureSessionsTable } from './tables.ts';
import type {
  CaptureSessionChanges,
  CaptureSessionRecord,
  NewCaptureSession,
  SaleType,
  StoredState,
  VaultingType,
} from './captureSession.ts';

/** The one mapping between a capture session's row and its record, used by captureSession.repository.ts. */
export function captureSessionFromRow(row: Selectable<CaptureSessionsTable>): CaptureSessionRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    sessionToken: row.session_token,
    hashTokenSha256: row.hash_token_sha256,
    apiKeyId: row.api_key_id,
    extRef: row.ext_ref,
    currencyCode: row.currency_code,
    vaultingType: row.vaulting_type as VaultingType,
    saleType: row.sale_type as SaleType,
    vaultOnlyOnSuccess: Boolean(row.vault_only_on_success),
    amountMinor: row.amount_minor,
    gatewayId: row.gateway_id,
    authDomain: row.auth_domain,
    description: row.description,
    invoiceId: row.invoice_id,
    upToOwed: Boolean(row.up_to_owed),
    state: row.state as StoredState,
    failedAttempts: row.failed_attempts,
    claimedUntil: row.claimed_until,
    claimId: row.claim_id,
    claimTakeovers: row.claim_takeovers,
    methodType: row.method_type as CaptureSessionRecord['methodType'],
    methodToken: row.method_token,
    methodVaultTokenSealed: row.method_vault_token_sealed,
    cardType: row.card_type,
    lastFour: row.last_four,
    nameOnCard: row.name_on_card,
    lastNameOnCard: row.last_name_on_card,
    expiryMonth: row.expiry_month,
    expiryYear: row.expiry_year,
    bankAccountSealed: row.bank_account_sealed,
    bankName: row.bank_name,
    challengeId: row.challenge_id,
    chargeId: row.charge_id,
    chargeState: row.charge_state as CaptureSessionRecord['chargeState'],
    providerSetupSealed: row.provider_setup_sealed,
    providerRef: row.provider_ref,
    providerStartedAt: row.provider_started_at,
    customerId: row.customer_id,
    paymentMethodId: row.payment_method_id,
    paymentId: row.payment_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    capturedAt: row.captured_at,
    completedAt: row.completed_at,
    updatedAt: row.updated_at,
  };
}

/** Each field of the record and its column. */
const COLUMN_OF = {
  id: 'id',
  accountId: 'account_id',
  sessionToken: 'session_token',
  hashTokenSha256: 'hash_token_sha256',
  apiKeyId: 'api_key_id',
  extRef: 'ext_ref',
  currencyCode: 'currency_code',
  vaultingType: 'vaulting_type',
  saleType: 'sale_type',
  vaultOnlyOnSuccess: 'vault_only_on_success',
  amountMinor: 'amount_minor',
  gatewayId: 'gateway_id',
  authDomain: 'auth_domain',
  description: 'description',
  invoiceId: 'invoice_id',
  upToOwed: 'up_to_owed',
  state: 'state',
  failedAttempts: 'failed_attempts',
  claimedUntil: 'claimed_until',
  claimId: 'claim_id',
  claimTakeovers: 'claim_takeovers',
  methodType: 'method_type',
  methodToken: 'method_token',
  methodVaultTokenSealed: 'method_vault_token_sealed',
  cardType: 'card_type',
  lastFour: 'last_four',
  nameOnCard: 'name_on_card',
  lastNameOnCard: 'last_name_on_card',
  expiryMonth: 'expiry_month',
  expiryYear: 'expiry_year',
  bankAccountSealed: 'bank_account_sealed',
  bankName: 'bank_name',
  challengeId: 'challenge_id',
  chargeId: 'charge_id',
  chargeState: 'charge_state',
  providerSetupSealed: 'provider_setup_sealed',
  providerRef: 'provider_ref',
  providerStartedAt: 'provider_started_at',
  customerId: 'customer_id',
  paymentMethodId: 'payment_method_id',
  paymentId: 'payment_id',
  createdAt: 'created_at',
  expiresAt: 'expires_at',
  capturedAt: 'captured_at',
  completedAt: 'completed_at',
  updatedAt: 'updated_at',
} as const satisfies Record<keyof CaptureSessionRecord, keyof CaptureSessionsTable>;

/** The columns a change sets, in the order its fields were given. */
export function captureSessionChangesToRow(
  changes: CaptureSessionChanges,
): Updateable<
  Omit<CaptureSessionsTable, 'id' | 'account_id' | 'session_token' | 'hash_token_sha256' | 'created_at'>
> {
  const row: Record<string, unknown> = {};
  for (const field in changes) {
    const value = changes[field as keyof CaptureSessionChanges];
    if (value !== undefined) row[COLUMN_OF[field as keyof CaptureSessionChanges]] = value;
  }
  return row;
}

export function newCaptureSessionToRow(session: NewCaptureSession): Insertable<CaptureSessionsTable> {
  return {
    account_id: session.accountId,
    session_token: session.sessionToken,
    hash_token_sha256: session.hashTokenSha256,
    api_key_id: session.apiKeyId,
    ext_ref: session.extRef,
    currency_code: session.currencyCode,
    vaulting_type: session.vaultingType,
    sale_type: session.saleType,
    vault_only_on_success: session.vaultOnlyOnSuccess,
    amount_minor: session.amountMinor,
    gateway_id: session.gatewayId,
    auth_domain: session.authDomain,
    description: session.description,
    invoice_id: session.invoiceId,
    up_to_owed: session.upToOwed,
    state: session.state,
    created_at: session.createdAt,
    expires_at: session.expiresAt,
    updated_at: session.updatedAt,
  };
}
