import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { MAX_PRICE, PRICE_DECIMALS } from '../../core/money.ts';
import { RECURRING_STATUSES } from './recurringBilling.ts';
import { DateOut, Id, Nullable, StringEnum, Text, WireDate } from '../../http/schemas.ts';
import { taxInclusiveChargeIn, taxInclusiveChargeOut } from './taxInclusiveCharges.ts';

const NullableText = (max = 255) => Nullable(Text(max));

export const MAX_RECURRING_CHARGES = 200;
export const MAX_RECURRING_TAXES = 20;

/** A decimal as a JSON number (read through its shortest text) or as a decimal string, kept exact. */
const WireDecimal = (description: string) =>
  Type.Unsafe<number | string>({
    type: ['number', 'string'],
    maxLength: 40,
    description: `${description}; at most ${PRICE_DECIMALS} decimals and ${MAX_PRICE} in size`,
  });

/** As an invoice's charges (same meanings); ids and amounts sent back from a read object are ignored. */
const ChargeBody = Type.Object({
  Descrip: Text(1000, { minLength: 1 }),
  Qty: WireDecimal('Quantity, above 0'),
  UnitCostEx: Type.Optional(
    WireDecimal(
      'Unit price excluding tax (negative for a discount line); required unless UnitCostInc is sent',
    ),
  ),
  ...taxInclusiveChargeIn,
  Line: Type.Optional(
    Nullable(
      Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Default: position in the list, from 1' }),
    ),
  ),
  DisplayOrder: Type.Optional(
    Nullable(
      Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Default: position in the list, from 1' }),
    ),
  ),
});

const ChargesBody = (description: string) =>
  Type.Array(ChargeBody, { minItems: 1, maxItems: MAX_RECURRING_CHARGES, description });

const TaxBody = Type.Object({
  Name: Text(100, { minLength: 1 }),
  Perc: Type.Number({ description: 'A fraction between 0 and 1 with at most 6 decimals (0.15 for 15%)' }),
});

/** Writable fields; on create customerID and StartDate are required, on edit every field is optional. */
const recurringFields = {
  CurrencyCode: Text(3, { minLength: 3, description: "Default: the customer's; must be enabled" }),
  Reference: NullableText(100),
  reference: Nullable(
    Text(100, { description: 'The spelling of Reference in the spec’s sample; accepted as the same field' }),
  ),
  Term: Type.Integer({
    minimum: 1,
    maximum: 1000,
    description: 'Length of a period in TermType units (default 1)',
  }),
  TermType: Text(10, { minLength: 1, description: 'months or days (any letter case)' }),
  EndDate: Nullable(WireDate({ description: 'The first day no longer covered; after StartDate' })),
  numDaysBeforeToInv: Type.Integer({
    minimum: 0,
    maximum: 365,
    description: 'Days before a period starts that its invoice is made (default 0)',
  }),
  CollectionMethod: Nullable(Text(20, { description: 'cash, credit_card, debit_order, eft or hpp' })),
  gatewayID: Nullable(Id({ description: 'Required when CollectionMethod is debit_order or credit_card' })),
  customerPaymentMethodID: Nullable(Id({ description: 'Required when gatewayID is set' })),
  InvoiceTerms: NullableText(10_000),
  InvoiceNotes: NullableText(10_000),
  Taxes: Type.Array(TaxBody, {
    maxItems: MAX_RECURRING_TAXES,
    description: 'Every tax applies to every charge; on edit the list replaces the taxes',
  }),
  RecurInvoiceCharges: ChargesBody('The charges of every invoice; on edit the list replaces them'),
  RecurInvoiceCharge: ChargesBody('The listing’s name for RecurInvoiceCharges; accepted as the same field'),
};

export const CreateRecurringInvoiceBody = Type.Object({
  customerID: Id(),
  StartDate: WireDate({ description: 'The first period starts here' }),
  ...Type.Partial(Type.Object(recurringFields)).properties,
});
export type CreateRecurringInvoiceBody = Static<typeof CreateRecurringInvoiceBody>;

export const EditRecurringInvoiceBody = Type.Partial(
  Type.Object({
    customerID: Id({ description: 'Cannot change; accepted so that a read object can be sent back' }),
    StartDate: WireDate({ description: 'Changes only before the first invoice is made' }),
    ...recurringFields,
  }),
);
export type EditRecurringInvoiceBody = Static<typeof EditRecurringInvoiceBody>;

export const RecurringInvoiceIdParams = Type.Object({ recurInvoiceID: Id() });
export const CustomerIdParams = Type.Object({ customerID: Id() });

const ChargeOut = Type.Object({
  recurInvoiceChargeID: Type.Integer(),
  recurInvoiceID: Type.Integer(),
  Line: Type.Integer(),
  Descrip: Type.String(),
  Qty: Type.Number(),
  UnitCostEx: Type.Number(),
  ...taxInclusiveChargeOut,
  AmountEx: Type.Number({
    description:
      'Qty × UnitCostEx, rounded to the currency’s minor unit (split out of AmountInc when isTaxInclusive)',
  }),
  AmountInc: Type.Number({
    description: 'AmountEx plus every tax, each rounded (Qty × UnitCostInc when isTaxInclusive)',
  }),
  DisplayOrder: Type.Integer(),
});

const TaxOut = Type.Object({
  recurringinvoiceTaxID: Type.Integer(),
  recurringinvoiceID: Type.Integer(),
  Name: Type.String(),
  Perc: Type.Number(),
});

export const RecurringInvoiceOut = Type.Object(
  {
    recurInvoiceID: Type.Integer(),
    customerID: Type.Integer(),
    CurrencyCode: Type.String(),
    Reference: NullableText(),
    Term: Type.Integer(),
    TermType: StringEnum(['months', 'days']),
    StartDate: Type.String({ format: 'date-time' }),
    EndDate: DateOut(),
    lastInvDate: DateOut(),
    lastRenewDate: DateOut(),
    nextRenewDate: DateOut(),
    isExpired: Type.Boolean(),
    isCancelled: Type.Boolean(),
    numDaysBeforeToInv: Type.Integer(),
    LastModified: Type.String({ format: 'date-time' }),
    SuspendedDate: DateOut(),
    comp_Status: StringEnum(RECURRING_STATUSES),
    isParked: Type.Boolean({
      description: 'Beyond the spec: not billed because its record broke an invariant',
    }),
    ParkedReason: Nullable(Type.String()),
    CollectionMethod: NullableText(),
    gatewayID: Nullable(Type.Integer()),
    customerPaymentMethodID: Nullable(Type.Integer()),
    InvoiceTerms: NullableText(),
    InvoiceNotes: NullableText(),
    Taxes: Type.Array(TaxOut),
    RecurInvoiceCharges: Type.Array(ChargeOut),
    RecurInvoiceCharge: Type.Array(ChargeOut, { description: 'The same list, under the listing’s name' }),
  },
  { $id: 'RecurringInvoice' },
);
export type RecurringInvoiceOut = Static<typeof RecurringInvoiceOut>;
