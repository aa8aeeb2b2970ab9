import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { INVOICE_STATUSES } from './invoiceMath.ts';
import {
  DateOut,
  Id,
  Nullable,
  NullableWireDate,
  PagingQuery,
  StringEnum,
  Text,
  WireDate,
} from '../../http/schemas.ts';
import { CustomerOut } from '../customers/index.ts';
import { taxInclusiveChargeIn, taxInclusiveChargeOut } from './taxInclusiveCharges.ts';

/**
 * Decimals in requests: a JSON number (the spec's Numeric and Decimal) or a string holding a decimal, for
 * clients that keep amounts exact. Precision and range are checked by the service, which names the line.
 */
const WireDecimal = (description: string) =>
  Type.Unsafe<number | string>({ type: ['number', 'string'], maxLength: 40, description });

const ChargeIn = Type.Object({
  Descrip: Text(1000),
  Qty: WireDecimal('Quantity, above 0, at most 4 decimals'),
  UnitCostEx: Type.Optional(
    WireDecimal(
      'Unit price excluding tax, at most 4 decimals; negative for a discount line. Required unless UnitCostInc is sent',
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

const TaxIn = Type.Object({
  Name: Text(100),
  Perc: Type.Number({ description: 'A fraction between 0 and 1 (0.15 for 15%), at most 6 decimals' }),
});

/** Writable invoice fields. On create only customerID is required; on edit every field is optional. */
const invoiceFields = {
  CurrencyCode: Text(3, {
    minLength: 3,
    description: "Default: the customer's currency; enabled for the account",
  }),
  InvoiceDate: NullableWireDate(),
  DueDate: NullableWireDate(),
  Reference: Nullable(Text(100, { description: 'Unique per account' })),
  poNumber: Type.Unsafe<string | number | null>({
    type: ['string', 'number', 'null'],
    maxLength: 100,
    description: 'Listed as Numeric; any text or number is accepted and returned as a string',
  }),
  Notes: Nullable(Text(10_000)),
  Terms: Nullable(Text(10_000)),
  isDraft: Type.Boolean({
    description: 'Default false on create: the invoice is issued and numbered at once',
  }),
  CollectionMethod: Nullable(Text(20, { description: 'cash, credit_card, debit_order, eft or hpp' })),
  gatewayID: Nullable(Id({ description: 'Required when CollectionMethod is debit_order or credit_card' })),
  customerPaymentMethodID: Nullable(Id({ description: 'Required when gatewayID is set' })),
  Charges: Type.Array(ChargeIn, { maxItems: 1000, description: 'Replaces the lines when sent' }),
  Taxes: Type.Array(TaxIn, {
    maxItems: 20,
    description: 'Replaces the taxes when sent; each applies to every line',
  }),
};

export const CreateInvoiceBody = Type.Object({
  customerID: Id(),
  ...Type.Partial(Type.Object(invoiceFields)).properties,
});
export type CreateInvoiceBody = Static<typeof CreateInvoiceBody>;

export const EditInvoiceBody = Type.Partial(Type.Object({ customerID: Id(), ...invoiceFields }));
export type EditInvoiceBody = Static<typeof EditInvoiceBody>;

export const InvoiceIdParams = Type.Object({ invoiceID: Id() });
export const CustomerIdParams = Type.Object({ customerID: Id() });

export const InvoiceListQuery = Type.Object({
  ...PagingQuery.properties,
  startDate: Type.Optional(WireDate({ description: 'Inclusive lower bound on InvoiceDate' })),
  endDate: Type.Optional(WireDate({ description: 'Inclusive upper bound on InvoiceDate' })),
});
export type InvoiceListQuery = Static<typeof InvoiceListQuery>;

/**
 * An invoice as returned; `unsaved` makes the ids nullable, for invoices priced but not stored (previews). The parts
 * are spread in the order the fields are sent.
 */
function invoiceOut(unsaved: boolean) {
  return Type.Object(
    {
      ...invoiceIdentityOut(unsaved),
      ...invoiceDatesOut(),
      ...invoiceStateOut(),
      ...invoiceCollectionOut(),
      Notes: Nullable(Type.String()),
      Terms: Nullable(Type.String()),
      Status: StringEnum(INVOICE_STATUSES),
      customerID: Type.Integer(),
      Name: Type.String(),
      LastName: Nullable(Type.String()),
      ...invoiceAmountsOut(),
      ...invoiceLinesOut(unsaved),
      ...invoiceAllocationsOut(),
    },
    { $id: unsaved ? 'UnsavedInvoice' : 'Invoice' },
  );
}

/** An id the invoice has once stored; null on an unsaved one. */
function storedId(unsaved: boolean) {
  return unsaved ? Nullable(Type.Integer()) : Type.Integer();
}

/** Which invoice: its ids, customer, numbers and currency. */
function invoiceIdentityOut(unsaved: boolean) {
  return {
    invoiceID: storedId(unsaved),
    Customer: CustomerOut,
    invoiceNum: Nullable(Type.Integer({ description: 'Null while a draft' })),
    Reference: Nullable(Type.String()),
    poNumber: Nullable(Type.String()),
    CurrencyCode: Type.String(),
  };
}

/** When it is dated, due, sent and last changed. */
function invoiceDatesOut() {
  return {
    InvoiceDate: Type.String({
      format: 'date-time',
      description: 'The start of the day in the account time zone',
    }),
    DueDate: Type.String({
      format: 'date-time',
      description: 'The start of the day in the account time zone',
    }),
    DateSent: DateOut(),
    LastUpdated: DateOut(),
  };
}

/** Whether it is a draft or cancelled, and who made it. */
function invoiceStateOut() {
  return {
    isDraft: Type.Boolean(),
    isCancelled: Type.Boolean(),
    Source: StringEnum(['App', 'Auto'], {
      description: 'Auto: made by the bill run; App: through the API',
    }),
  };
}

/** How it is collected, where those settings come from, and the attempts so far. */
function invoiceCollectionOut() {
  return {
    CollectionMethod: Nullable(Type.String()),
    gatewayID: Nullable(Type.Integer()),
    customerPaymentMethodID: Nullable(Type.Integer()),
    CollectionSource: StringEnum(['invoice', 'customer'], {
      description:
        "Beyond the spec: `invoice` when it names its own CollectionMethod; `customer` when it has none and follows its customer's PaymentMethod, PrimaryGatewayID and primary payment method, resolved when each attempt is made (the three fields above then show what those settings do now)",
    }),
    CollectionProblem: Nullable(
      Type.String({
        description:
          "Beyond the spec: why the customer's payment settings cannot collect it now (no usable payment method, a gateway that cannot take it); null otherwise",
      }),
    ),
    NumTries: Type.Integer(),
    NextTryDate: DateOut(),
  };
}

/** What it comes to, what is paid and what is left. */
function invoiceAmountsOut() {
  return {
    Total: Type.Number(),
    TotalActualPaid: Type.Number(),
    TotalPendingPaid: Type.Number(),
    TotalNegativeAdjs: Type.Number(),
    Balance: Type.Number(),
    ActualBalance: Type.Number(),
    TotalTax: Type.Number({
      description:
        "Beyond the spec (docs/tax.md): the taxes on the invoice's lines, summed (Σ AmountInc − AmountEx)",
    }),
    CreditedTotal: Type.Number({
      description:
        'Beyond the spec (docs/tax.md, "What an invoice shows"): what tax credit notes and prepaid credit that ' +
        "carries VAT took off the invoice's consideration, taxes included",
    }),
    CreditedTax: Type.Number({
      description:
        'Beyond the spec (docs/tax.md): the VAT in CreditedTotal; the invoice now carries TotalTax − CreditedTax',
    }),
    BalanceTax: Type.Number({
      description: 'Beyond the spec (docs/tax.md): the VAT inside what the invoice still owes (Balance)',
    }),
  };
}

/** Its taxes and charge lines. */
function invoiceLinesOut(unsaved: boolean) {
  return {
    Taxes: Type.Array(
      Type.Object({
        invoiceTaxID: storedId(unsaved),
        invoiceID: storedId(unsaved),
        Name: Type.String(),
        Perc: Type.Number(),
      }),
    ),
    Charges: Type.Array(
      Type.Object({
        chargeID: storedId(unsaved),
        invoiceID: storedId(unsaved),
        Line: Type.Integer(),
        Descrip: Type.String(),
        Qty: Type.Number(),
        UnitCostEx: Type.Number(),
        ...taxInclusiveChargeOut,
        AmountEx: Type.Number(),
        AmountInc: Type.Number(),
        DisplayOrder: Type.Integer(),
        ...meteredChargeOut,
      }),
    ),
  };
}

/**
 * Beyond the spec, only on a line of usage read from events (docs/usage.md, "Reading usage"): what it counted, so
 * that a bill can be explained from the customer's events.
 */
const meteredChargeOut = {
  MetricCode: Type.Optional(Type.String({ description: 'The billable metric whose events the line counts' })),
  UsageGroup: Type.Optional(
    Type.String({ description: "The value of the metric's GroupBy property this line counts ('' for none)" }),
  ),
  Quantity: Type.Optional(
    Type.String({
      description:
        "The metric's quantity over the period, an exact decimal; on a correction, what late events added",
    }),
  ),
  PeriodStart: Type.Optional(
    Type.String({
      format: 'date-time',
      description: "The usage period's first day, as the instant it begins",
    }),
  ),
  PeriodEnd: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'The day after the usage period (exclusive), as the instant it begins',
    }),
  ),
};

/** The payments, negative adjustments and credit notes allocated to it. */
function invoiceAllocationsOut() {
  return {
    PaymentsApplied: Type.Array(
      Type.Object({
        allocationID: Type.Integer(),
        invoiceID: Type.Integer(),
        paymentID: Type.Integer(),
        amountApplied: Type.Number(),
      }),
    ),
    NegativeAdjustmentsApplied: Type.Array(
      Type.Object({
        allocationID: Type.Integer(),
        objectID: Type.Integer({ description: 'The invoice identifier' }),
        NegativeAdjustmentID: Type.Integer({ description: '0 when the allocation is from a credit note' }),
        creditNoteID: Type.Integer({
          description: 'The credit note allocated (0 for a negative adjustment)',
        }),
        amountApplied: Type.Number(),
      }),
    ),
  };
}

/** The invoice response schema. */
export const InvoiceOut = invoiceOut(false);
export type InvoiceOut = Static<typeof InvoiceOut>;

/** The same for an invoice priced but not stored (previewInvoice): invoiceID, chargeID, invoiceTaxID are null. */
export const UnsavedInvoiceOut = invoiceOut(true);
