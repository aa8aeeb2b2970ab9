import type { LateChargeHandling, TopUpLimit, VatSettings } from '../../context.ts';

/**
 * The settings an account may change after its creation, as PUT /v1/account checks them: undefined keeps a value.
 * Lists are numbers here; account.mapper.ts stores them as JSON text.
 */
export interface AccountChanges {
  timeZone?: string;
  invoiceDueDays?: number;
  invoiceNotes?: string | null;
  invoiceTerms?: string | null;
  statementPeriod?: string;
  portalSlug?: string | null;
  portalAllowCancel?: boolean;
  portalAllowTopUps?: boolean;
  /** Pausing in the portal (docs/portal.md, "Pausing"). */
  portalPause?: boolean;
  maxPauseDays?: number;
  maxPausesPerYear?: number;
  /** Stored as JSON text; [] for none. */
  portalTopUpLimits?: TopUpLimit[];
  isTaxInclusive?: boolean;
  portalSwitchPackageIds?: number[];
  billCycleDay?: number | null;
  /** The name the account's e-mails come from, and their Reply-To (docs/operations.md, "E-mail"). */
  senderName?: string | null;
  replyTo?: string | null;
  sellerLegalName?: string | null;
  sellerAddress1?: string | null;
  sellerAddress2?: string | null;
  sellerCity?: string | null;
  sellerPostalCode?: string | null;
  /** ISO 3166-1 alpha-2. */
  sellerCountryCode?: string | null;
  sellerTaxNumber?: string | null;
  sellerCompanyNumber?: string | null;
  sellerEmail?: string | null;
  sellerPhone?: string | null;
  paymentInstructions?: string | null;
  dunningRetryDays?: number[] | null;
  dunningMaxAttempts?: number | null;
  dunningSuspendCustomer?: boolean;
  dunningCancelSubscriptions?: boolean;
  sendPaymentReceipts?: boolean;
  sendPaymentFailedEmails?: boolean;
  sendInvoiceReminders?: boolean;
  invoiceReminderDays?: number[] | null;
  applyCreditFirst?: boolean;
  autoSubmitBatches?: boolean;
  lateChargesOnPaidInvoices?: LateChargeHandling;
  staffEmail?: string | null;
  smallInvoiceMinor?: number | null;
  usageGraceHours?: number;
  usageAlertEmails?: boolean;
  prepaidCreditVat?: VatSettings['prepaidCredit'];
  vatBasis?: VatSettings['basis'];
  sendCreditNotes?: boolean;
  sendRefundNotices?: boolean;
  sendLowBalanceAlerts?: boolean;
  sendCancellationNotices?: boolean;
  sendPauseNotices?: boolean;
  copyNoticesToStaff?: boolean;
}

/** The seller details' part of the changes (sellerDetails.ts). */
export type SellerChanges = Pick<
  AccountChanges,
  | 'sellerLegalName'
  | 'sellerAddress1'
  | 'sellerAddress2'
  | 'sellerCity'
  | 'sellerPostalCode'
  | 'sellerCountryCode'
  | 'sellerTaxNumber'
  | 'sellerCompanyNumber'
  | 'sellerEmail'
  | 'sellerPhone'
  | 'paymentInstructions'
  | 'senderName'
  | 'replyTo'
>;

/** An API key as events show it: never the key, which is shown once, at its creation. */
export interface ApiKeyInfo {
  id: number;
  keyPrefix: string;
  createdAt: string;
  revokedAt: string | null;
}

/** The bounds of the portal's pause limits (docs/portal.md, "Pausing"). */
export const MAX_PAUSE_DAYS_MAX = 365;
export const MAX_PAUSES_PER_YEAR_MAX = 12;
