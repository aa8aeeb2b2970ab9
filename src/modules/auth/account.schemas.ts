import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateOut, Nullable, Text } from '../../http/schemas.ts';
import { INVOICE_DUE_DAYS_MAX, INVOICE_TEXT_MAX } from './account.service.ts';

export const AccountOut = Type.Object(
  {
    accountID: Type.Integer(),
    Name: Type.String(),
    TimeZone: Type.String({ description: 'IANA time zone in which billing dates are computed' }),
    CurrencyCode: Type.String({ description: 'Default currency of new customers' }),
    isTest: Type.Boolean({
      description: 'A test account: it bills on its own clock and never moves real money',
    }),
    TestClockDate: DateOut(),
    InvoiceDueDays: Type.Integer({ description: "Days from an invoice's date to its due date" }),
    InvoiceNotes: Nullable(Type.String()),
    InvoiceTerms: Nullable(Type.String()),
  },
  { $id: 'Account' },
);
export type AccountOut = Static<typeof AccountOut>;

export const EditAccountBody = Type.Partial(
  Type.Object({
    TimeZone: Text(64, { minLength: 1, description: 'IANA time zone, e.g. Africa/Johannesburg' }),
    InvoiceDueDays: Type.Integer({ minimum: 0, maximum: INVOICE_DUE_DAYS_MAX }),
    InvoiceNotes: Nullable(
      Text(INVOICE_TEXT_MAX, { description: 'Default Notes of new invoices; null clears' }),
    ),
    InvoiceTerms: Nullable(
      Text(INVOICE_TEXT_MAX, { description: 'Default Terms of new invoices; null clears' }),
    ),
  }),
);
export type EditAccountBody = Static<typeof EditAccountBody>;
