import type { Selectable, Updateable } from 'kysely';
import type { Account, TopUpLimit } from '../../context.ts';
import { DEFAULT_STATEMENT_PERIOD, isStatementPeriod } from '../../core/periods.ts';
import type { AccountsTable, ApiKeysTable } from './tables.ts';
import type { AccountChanges, ApiKeyInfo } from './account.ts';

// The accounts' and API keys' columns become the domain's names here, and nowhere else.

/** The columns an account is read with (account.repository.ts ACCOUNT_COLUMNS); SQLite's booleans are 1 and 0. */
export interface AccountRow {
  id: number;
  name: string;
  time_zone: string;
  currency_code: string;
  is_test: boolean | number;
  test_clock_at: string | null;
  invoice_due_days: number;
  invoice_notes: string | null;
  invoice_terms: string | null;
  dunning_retry_days: string | null;
  dunning_max_attempts: number | null;
  dunning_suspend_customer: boolean | number;
  dunning_cancel_subscriptions: boolean | number;
  statement_period: string;
  portal_slug: string | null;
  portal_allow_cancel: boolean | number;
  portal_allow_top_ups: boolean | number;
  portal_pause: boolean | number;
  max_pause_days: number;
  max_pauses_per_year: number;
  portal_top_up_limits: string | null;
  portal_switch_package_ids: string;
  portal_epoch: number;
  is_tax_inclusive: boolean | number;
  bill_cycle_day: number | null;
  send_payment_receipts: boolean | number;
  send_payment_failed_emails: boolean | number;
  send_invoice_reminders: boolean | number;
  invoice_reminder_days: string | null;
  apply_credit_first: boolean | number;
  auto_submit_batches: boolean | number;
  late_charges_on_paid_invoices: string;
  staff_email: string | null;
  small_invoice_minor: number | string | null;
  usage_grace_hours: number;
  usage_alert_emails: boolean | number;
  prepaid_credit_vat: string;
  vat_basis: string;
  send_credit_notes: boolean | number;
  send_refund_notices: boolean | number;
  send_low_balance_alerts: boolean | number;
  send_cancellation_notices: boolean | number;
  send_pause_notices: boolean | number;
  copy_notices_to_staff: boolean | number;
}

export function accountFromRow(row: AccountRow): Account {
  return {
    id: row.id,
    name: row.name,
    timeZone: row.time_zone,
    currencyCode: row.currency_code,
    isTest: Boolean(row.is_test),
    testClockAt: row.test_clock_at,
    invoiceDueDays: row.invoice_due_days,
    invoiceNotes: row.invoice_notes,
    invoiceTerms: row.invoice_terms,
    dunning: {
      retryDays: row.dunning_retry_days === null ? null : (JSON.parse(row.dunning_retry_days) as number[]),
      maxAttempts: row.dunning_max_attempts,
      suspendCustomer: Boolean(row.dunning_suspend_customer),
      cancelSubscriptions: Boolean(row.dunning_cancel_subscriptions),
    },
    statementPeriod: isStatementPeriod(row.statement_period)
      ? row.statement_period
      : DEFAULT_STATEMENT_PERIOD,
    portalSlug: row.portal_slug,
    portalSelfService: {
      allowCancel: Boolean(row.portal_allow_cancel),
      allowTopUps: Boolean(row.portal_allow_top_ups),
      topUpLimits:
        row.portal_top_up_limits === null ? [] : (JSON.parse(row.portal_top_up_limits) as TopUpLimit[]),
      switchPackageIds: JSON.parse(row.portal_switch_package_ids) as number[],
      pause: {
        allowed: Boolean(row.portal_pause),
        maxDays: Number(row.max_pause_days),
        maxPerYear: Number(row.max_pauses_per_year),
      },
    },
    portalEpoch: Number(row.portal_epoch),
    isTaxInclusive: Boolean(row.is_tax_inclusive),
    billCycleDay: row.bill_cycle_day,
    collectionLoop: {
      sendReceipts: Boolean(row.send_payment_receipts),
      sendPaymentFailed: Boolean(row.send_payment_failed_emails),
      sendReminders: Boolean(row.send_invoice_reminders),
      reminderDays:
        row.invoice_reminder_days === null ? null : (JSON.parse(row.invoice_reminder_days) as number[]),
      applyCreditFirst: Boolean(row.apply_credit_first),
      autoSubmitBatches: Boolean(row.auto_submit_batches),
      lateCharges: row.late_charges_on_paid_invoices === 'credit' ? 'credit' : 'refund',
      staffEmail: row.staff_email,
      smallInvoiceMinor: row.small_invoice_minor === null ? null : Number(row.small_invoice_minor),
    },
    usageGraceHours: Number(row.usage_grace_hours),
    usageAlertEmails: Boolean(row.usage_alert_emails),
    vat: {
      prepaidCredit: row.prepaid_credit_vat === 'when_used' ? 'when_used' : 'when_sold',
      basis: row.vat_basis === 'payments' ? 'payments' : 'invoice',
    },
    notices: {
      creditNotes: Boolean(row.send_credit_notes),
      refunds: Boolean(row.send_refund_notices),
      lowBalance: Boolean(row.send_low_balance_alerts),
      cancellations: Boolean(row.send_cancellation_notices),
      pauses: Boolean(row.send_pause_notices),
      copyStaff: Boolean(row.copy_notices_to_staff),
    },
  };
}

export function apiKeyInfoFromRow(
  row: Pick<Selectable<ApiKeysTable>, 'id' | 'key_prefix' | 'created_at' | 'revoked_at'>,
): ApiKeyInfo {
  return { id: row.id, keyPrefix: row.key_prefix, createdAt: row.created_at, revokedAt: row.revoked_at };
}

/** Each setting and its column. */
const COLUMN_OF = {
  timeZone: 'time_zone',
  invoiceDueDays: 'invoice_due_days',
  invoiceNotes: 'invoice_notes',
  invoiceTerms: 'invoice_terms',
  statementPeriod: 'statement_period',
  portalSlug: 'portal_slug',
  portalAllowCancel: 'portal_allow_cancel',
  portalAllowTopUps: 'portal_allow_top_ups',
  portalPause: 'portal_pause',
  maxPauseDays: 'max_pause_days',
  maxPausesPerYear: 'max_pauses_per_year',
  portalTopUpLimits: 'portal_top_up_limits',
  isTaxInclusive: 'is_tax_inclusive',
  portalSwitchPackageIds: 'portal_switch_package_ids',
  billCycleDay: 'bill_cycle_day',
  sellerLegalName: 'seller_legal_name',
  sellerAddress1: 'seller_address1',
  sellerAddress2: 'seller_address2',
  sellerCity: 'seller_city',
  sellerPostalCode: 'seller_postal_code',
  sellerCountryCode: 'seller_country_code',
  sellerTaxNumber: 'seller_tax_number',
  sellerCompanyNumber: 'seller_company_number',
  sellerEmail: 'seller_email',
  sellerPhone: 'seller_phone',
  paymentInstructions: 'payment_instructions',
  senderName: 'sender_name',
  replyTo: 'reply_to',
  dunningRetryDays: 'dunning_retry_days',
  dunningMaxAttempts: 'dunning_max_attempts',
  dunningSuspendCustomer: 'dunning_suspend_customer',
  dunningCancelSubscriptions: 'dunning_cancel_subscriptions',
  sendPaymentReceipts: 'send_payment_receipts',
  sendPaymentFailedEmails: 'send_payment_failed_emails',
  sendInvoiceReminders: 'send_invoice_reminders',
  invoiceReminderDays: 'invoice_reminder_days',
  applyCreditFirst: 'apply_credit_first',
  prepaidCreditVat: 'prepaid_credit_vat',
  vatBasis: 'vat_basis',
  sendCreditNotes: 'send_credit_notes',
  sendRefundNotices: 'send_refund_notices',
  sendLowBalanceAlerts: 'send_low_balance_alerts',
  sendCancellationNotices: 'send_cancellation_notices',
  sendPauseNotices: 'send_pause_notices',
  copyNoticesToStaff: 'copy_notices_to_staff',
  autoSubmitBatches: 'auto_submit_batches',
  lateChargesOnPaidInvoices: 'late_charges_on_paid_invoices',
  staffEmail: 'staff_email',
  smallInvoiceMinor: 'small_invoice_minor',
  usageGraceHours: 'usage_grace_hours',
  usageAlertEmails: 'usage_alert_emails',
} as const satisfies Record<keyof AccountChanges, keyof AccountsTable>;

/** The lists stored as JSON text. */
const JSON_FIELDS: ReadonlySet<keyof AccountChanges> = new Set([
  'portalSwitchPackageIds',
  'portalTopUpLimits',
  'dunningRetryDays',
  'invoiceReminderDays',
]);

/** The columns a change sets, in the order its settings were given. */
export function accountChangesToRow(changes: AccountChanges): Updateable<AccountsTable> {
  const row: Record<string, unknown> = {};
  for (const field in changes) {
    const value = changes[field as keyof AccountChanges];
    if (value === undefined) continue;
    const stored =
      JSON_FIELDS.has(field as keyof AccountChanges) && value !== null ? JSON.stringify(value) : value;
    row[COLUMN_OF[field as keyof AccountChanges]] = stored;
  }
  return row;
}
