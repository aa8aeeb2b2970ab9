import type { Account, AccountSettingsInput } from './account.service.ts';
import type { AccountOut, EditAccountBody } from './account.schemas.ts';

export function toAccountDto(account: Account): AccountOut {
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
  };
}

export function accountSettingsFromWire(body: EditAccountBody): AccountSettingsInput {
  return {
    timeZone: body.TimeZone,
    invoiceDueDays: body.InvoiceDueDays,
    invoiceNotes: body.InvoiceNotes,
    invoiceTerms: body.InvoiceTerms,
  };
}
