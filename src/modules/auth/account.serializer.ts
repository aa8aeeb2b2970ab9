import { findCountry } from '../../core/countries.ts';
import { minorToWireNumber } from '../../core/money.ts';
import type { Account, AccountSettingsInput } from './account.service.ts';
import type { AccountOut, EditAccountBody } from './account.schemas.ts';
import type { SellerDetails } from './sellerDetails.ts';
import { topUpLimitsOut } from './topUpLimits.ts';

export const ACCOUNT_LOGO_PATH = '/v1/account/logo';

/** The portal's address: under `serviceUrl` (PUBLIC_URL or the request's origin) when known, else the path alone. */
export function portalUrlOf(account: Account, serviceUrl?: string): string | null {
  return account.portalSlug === null ? null : `${serviceUrl ?? ''}/portal/${account.portalSlug}/`;
}

export function toAccountDto(account: Account, seller: SellerDetails, serviceUrl?: string): AccountOut {
  return {
    accountID: account.id,
    Name: account.name,
    TimeZone: account.timeZone,
    CurrencyCode: account.currencyCode,
    isTest: account.isTest,
    TestClockDate: account.testClockAt,
    InvoiceDueDays: account.invoiceDueDays,
    InvoiceNotes: account.invoiceNotes,
    InvoiceTerms: account.invoiceTerms,
    DunningRetryDays: account.dunning.retryDays,
    DunningMaxAttempts: account.dunning.maxAttempts,
    DunningSuspendCustomer: account.dunning.suspendCustomer,
    DunningCancelSubscriptions: account.dunning.cancelSubscriptions,
    SendPaymentReceipts: account.collectionLoop.sendReceipts,
    SendPaymentFailedEmails: account.collectionLoop.sendPaymentFailed,
    SendInvoiceReminders: account.collectionLoop.sendReminders,
    InvoiceReminderDays: account.collectionLoop.reminderDays,
    ApplyCreditBeforeCollecting: account.collectionLoop.applyCreditFirst,
    AutoSubmitBatches: account.collectionLoop.autoSubmitBatches,
    LateChargesOnPaidInvoices: account.collectionLoop.lateCharges,
    StaffEmail: account.collectionLoop.staffEmail,
    SmallInvoiceAmount:
      account.collectionLoop.smallInvoiceMinor === null
        ? null
        : minorToWireNumber(account.collectionLoop.smallInvoiceMinor, account.currencyCode),
    StatementPeriod: account.statementPeriod,
    LegalName: seller.legalName,
    AddressLine1: seller.address1,
    AddressLine2: seller.address2,
    City: seller.city,
    PostalCode: seller.postalCode,
    countryID: seller.countryId,
    Country: seller.countryId === null ? null : (findCountry(seller.countryId)?.name ?? null),
    TaxNumber: seller.taxNumber,
    CompanyNumber: seller.companyNumber,
    ContactEmail: seller.email,
    ContactPhone: seller.phone,
    PaymentInstructions: seller.paymentInstructions,
    SenderName: seller.senderName,
    ReplyTo: seller.replyTo,
    LogoURL: seller.logo ? ACCOUNT_LOGO_PATH : null,
    PortalSlug: account.portalSlug,
    PortalURL: portalUrlOf(account, serviceUrl),
    PortalAllowCancel: account.portalSelfService.allowCancel,
    PortalAllowTopUps: account.portalSelfService.allowTopUps,
    PortalTopUpLimits: topUpLimitsOut(account.portalSelfService.topUpLimits),
    PortalSwitchPackageIDs: account.portalSelfService.switchPackageIds,
    PortalPause: account.portalSelfService.pause.allowed,
    MaxPauseDays: account.portalSelfService.pause.maxDays,
    MaxPausesPerYear: account.portalSelfService.pause.maxPerYear,
    // Shown false too: a setting read only when on leaves a reader unsure whether it is off or unknown.
    isTaxInclusive: account.isTaxInclusive,
    // Beyond the spec, shown only when set: an account without one reads as it always did.
    ...(account.billCycleDay === null ? {} : { BillCycleDay: account.billCycleDay }),
    UsageGraceHours: account.usageGraceHours,
    UsageAlertEmails: account.usageAlertEmails,
    PrepaidCreditVat: account.vat.prepaidCredit,
    VatBasis: account.vat.basis,
    SendCreditNotes: account.notices.creditNotes,
    SendRefundNotices: account.notices.refunds,
    SendLowBalanceAlerts: account.notices.lowBalance,
    SendCancellationNotices: account.notices.cancellations,
    SendPauseNotices: account.notices.pauses,
    CopyNoticesToStaff: account.notices.copyStaff,
  };
}

export function accountSettingsFromWire(body: EditAccountBody): AccountSettingsInput {
  return {
    timeZone: body.TimeZone,
    invoiceDueDays: body.InvoiceDueDays,
    invoiceNotes: body.InvoiceNotes,
    invoiceTerms: body.InvoiceTerms,
    dunningRetryDays: body.DunningRetryDays,
    dunningMaxAttempts: body.DunningMaxAttempts,
    dunningSuspendCustomer: body.DunningSuspendCustomer,
    dunningCancelSubscriptions: body.DunningCancelSubscriptions,
    sendPaymentReceipts: body.SendPaymentReceipts,
    sendPaymentFailedEmails: body.SendPaymentFailedEmails,
    sendInvoiceReminders: body.SendInvoiceReminders,
    invoiceReminderDays: body.InvoiceReminderDays,
    applyCreditFirst: body.ApplyCreditBeforeCollecting,
    autoSubmitBatches: body.AutoSubmitBatches,
    lateChargesOnPaidInvoices: body.LateChargesOnPaidInvoices,
    staffEmail: body.StaffEmail,
    smallInvoiceAmount: body.SmallInvoiceAmount,
    statementPeriod: body.StatementPeriod,
    portalSlug: body.PortalSlug,
    portalAllowCancel: body.PortalAllowCancel,
    portalAllowTopUps: body.PortalAllowTopUps,
    portalTopUpLimits:
      body.PortalTopUpLimits === undefined
        ? undefined
        : (body.PortalTopUpLimits?.map((limit) => ({
            currencyCode: limit.CurrencyCode,
            min: limit.Min,
            max: limit.Max,
          })) ?? null),
    portalSwitchPackageIds: body.PortalSwitchPackageIDs,
    portalPause: body.PortalPause,
    maxPauseDays: body.MaxPauseDays,
    maxPausesPerYear: body.MaxPausesPerYear,
    isTaxInclusive: body.isTaxInclusive,
    billCycleDay: body.BillCycleDay,
    usageGraceHours: body.UsageGraceHours,
    usageAlertEmails: body.UsageAlertEmails,
    prepaidCreditVat: body.PrepaidCreditVat,
    vatBasis: body.VatBasis,
    sendCreditNotes: body.SendCreditNotes,
    sendRefundNotices: body.SendRefundNotices,
    sendLowBalanceAlerts: body.SendLowBalanceAlerts,
    sendCancellationNotices: body.SendCancellationNotices,
    sendPauseNotices: body.SendPauseNotices,
    copyNoticesToStaff: body.CopyNoticesToStaff,
    seller: {
      legalName: body.LegalName,
      address1: body.AddressLine1,
      address2: body.AddressLine2,
      city: body.City,
      postalCode: body.PostalCode,
      countryId: body.countryID,
      taxNumber: body.TaxNumber,
      companyNumber: body.CompanyNumber,
      email: body.ContactEmail,
      phone: body.ContactPhone,
      paymentInstructions: body.PaymentInstructions,
      senderName: body.SenderName,
      replyTo: body.ReplyTo,
      // The schema admits only padded base64, so decoding cannot lose characters.
      logo: typeof body.Logo === 'string' ? Buffer.from(body.Logo, 'base64') : body.Logo,
    },
  };
}
