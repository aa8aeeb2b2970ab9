import { Type } from '@sinclair/typebox';
import type { TSchema } from '@sinclair/typebox';
import { DateOut, Id, StringEnum } from '../../http/schemas.ts';
import { UnsavedInvoiceOut } from '../invoicing/index.ts';
import { CANCEL_TYPES } from './subscriptionChanges.service.ts';

export const CancelParams = Type.Object({
  subscriptionID: Id(),
  type: StringEnum(CANCEL_TYPES, {
    description:
      'renewal: at the end of the billed term; norefund: now, no credit; prorata: now, credit for the unused part; fullcredit: now, credit for the current term',
  }),
});

export const PreviewQuery = Type.Object({
  preview: Type.Optional(
    Type.Boolean({
      description: 'true: answer 200 with the credits and invoices the change would make, and change nothing',
    }),
  ),
});

const whenField = {
  isFutureChange: Type.Optional(
    Type.Boolean({
      description: 'true: at the next renewal; false (default): now, with a pro-rated credit and charge',
    }),
  ),
  resetBillingAnchor: Type.Optional(
    Type.Boolean({
      description:
        'For a change made now. false (default): the renewal date stays; the unused part of the billed term is ' +
        'credited pro rata and the new price charged pro rata up to the renewal date (10.00 to 20.00 a month ' +
        'half-way: credit 5.00, charge 10.00). A change to a term of another length always starts a new term ' +
        'today: left out, it does; false sent with it is refused (422). true: a new term starts today (the unused part credited, a whole term of the new price ' +
        'invoiced) and renewals follow from today. Not allowed with isFutureChange: true (422).',
    }),
  ),
};

export const ChangePackageBody = Type.Object(
  {
    packageID: Id(),
    packageVersionID: Type.Optional(Id()),
    packageVersionNumber: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    packageRateTermID: Id(),
    ...whenField,
  },
  { additionalProperties: false },
);

export const ChangeTermBody = Type.Object(
  { packageRateTermID: Id(), ...whenField },
  { additionalProperties: false },
);

export const ChangeBillCycleDayBody = Type.Object(
  {
    BillCycleDay: Type.Integer({
      minimum: 1,
      maximum: 31,
      description:
        'The day of the month (1–31) to renew on; a shorter month renews on its last day and the next returns to the day',
      examples: [15],
    }),
  },
  { additionalProperties: false, examples: [{ BillCycleDay: 15 }] },
);

export const CreditOut = Type.Object({
  Descrip: Type.String(),
  Amount: Type.Number({ description: 'Including the taxes charged on the credited part' }),
  CurrencyCode: Type.String(),
  PeriodStart: DateOut(),
  PeriodEnd: DateOut(),
});

export const StoredCreditOut = Type.Object({
  subscriptionCreditID: Type.Integer(),
  ...CreditOut.properties,
  adjustmentID: Type.Union([Type.Integer(), Type.Null()]),
  CreatedDate: DateOut(),
});

export const PeriodOut = Type.Object({
  PeriodNo: Type.Integer(),
  PeriodStart: DateOut(),
  PeriodEnd: DateOut(),
  Kind: StringEnum(['trial', 'stub', 'term'] as const),
  Amount: Type.Number({
    description:
      'Charged for the period: before taxes, or including them when the price is tax-inclusive (docs/pricing.md)',
  }),
  invoiceID: Type.Union([Type.Integer(), Type.Null()]),
});

/**
 * A copy of a shared schema without its `$id`s, to embed beside another use of the same shared schemas (an invoice
 * and an unsaved invoice both embed the Customer schema, which one response may name only once).
 */
export function inlined<T extends TSchema>(schema: T): T {
  return JSON.parse(JSON.stringify(schema), (key, value: unknown) =>
    key === '$id' ? undefined : value,
  ) as T;
}

/** GET /v1/subscriptions/{id}/usage (docs/usage.md, "Reading usage"). */
export const SubscriptionUsageOut = Type.Object({
  subscriptionID: Id(),
  CurrencyCode: Type.String(),
  PeriodStart: DateOut(),
  PeriodEnd: DateOut(),
  Usage: Type.Array(
    Type.Object({
      componentID: Id(),
      MetricCode: Type.String({ description: 'The billable metric whose events the line counts' }),
      UsageGroup: Type.String({ description: "The value of the metric's GroupBy property ('' for none)" }),
      Quantity: Type.String({ description: 'The quantity so far this period, an exact decimal' }),
      Amount: Type.Number({
        description: 'What the quantity so far costs, as its invoice line would price it',
      }),
    }),
  ),
});

/**
 * GET /v1/subscriptions/{id}/upcoming-invoice: the unsaved invoice, and what prepaid credit the bill run will apply
 * to it when it is issued (docs/credits.md, "The upcoming invoice").
 */
export const UpcomingInvoiceOut = Type.Object(
  {
    ...UnsavedInvoiceOut.properties,
    PrepaidCreditApplied: Type.Number({
      description:
        'Beyond the spec: the prepaid credit the bill run will apply when it issues the invoice, from the grants ' +
        'spendable at its date after the customer’s own unapplied money; nothing is consumed by the preview',
    }),
    AmountDueAfterCredit: Type.Number({
      description: 'Beyond the spec: Total less PrepaidCreditApplied',
    }),
  },
  { $id: 'UpcomingInvoice' },
);
