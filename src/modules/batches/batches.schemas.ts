import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Id, Nullable, Text, WireDate } from '../../http/schemas.ts';
import { WireAmount } from '../ledger/index.ts';

const BatchToken = (description = 'The batch (a GUID)') => Text(64, { minLength: 1, description });
const Notes = Type.Optional(Nullable(Text(1000)));

export const BatchTokenParams = Type.Object({ BatchToken: BatchToken() });
export const LinePaymentParams = Type.Object({ paymentID: Id() });

export const CreateBatchBody = Type.Object({
  CurrencyCode: Text(3, { minLength: 3, description: 'Enabled for the account; every line is in it' }),
  GatewayToken: Text(64, {
    minLength: 1,
    description: 'The gateway (its GatewayToken) that collects the batch: one taking bank debits in batches',
  }),
  ActionDate: WireDate({ description: 'The day the debits should go off; not before today' }),
  Notes,
});
export type CreateBatchBody = Static<typeof CreateBatchBody>;

export const EditBatchBody = Type.Object({ BatchToken: BatchToken(), ...CreateBatchBody.properties });
export type EditBatchBody = Static<typeof EditBatchBody>;

export const SubmitBatchBody = Type.Object({
  BatchToken: BatchToken(),
  ActionDate: Type.Optional(
    WireDate({
      description:
        "At least the rail's lead time ahead: 2 business days for debit_order, 1 for ach and sepa. Left out " +
        "(beyond the spec, which requires it), the batch's own action date, which must leave the same lead time",
    }),
  ),
  Notes,
});
export type SubmitBatchBody = Static<typeof SubmitBatchBody>;

export const CancelBatchBody = Type.Object({ BatchToken: BatchToken() });

const PaymentAppliedIn = Type.Object({
  allocationID: Type.Optional(
    Nullable(
      Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Edits: this allocation' }),
    ),
  ),
  amount: WireAmount('Amount applied to the invoice'),
  invoiceID: Type.Optional(
    Nullable(
      Type.Integer({
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'Takes priority over invoiceNumber',
      }),
    ),
  ),
  invoiceNumber: Type.Optional(
    Type.Unsafe<number | string | null>({ type: ['integer', 'string', 'null'], maxLength: 20 }),
  ),
});
const PaymentAppliedList = Type.Array(PaymentAppliedIn, { maxItems: 1000 });

export const CreateBatchPaymentBody = Type.Object({
  BatchToken: BatchToken(),
  customerID: Id(),
  Amount: WireAmount(),
  paymentMethodID: Id({ description: "The customer's bank account debited" }),
  Ref: Type.Optional(Nullable(Text(255))),
  Memo: Type.Optional(Nullable(Text(1000))),
  isAutoApply: Type.Optional(
    Type.Boolean({ description: 'Apply to the earliest open invoices; PaymentApplied is then not used' }),
  ),
  PaymentApplied: Type.Optional(PaymentAppliedList),
});
export type CreateBatchPaymentBody = Static<typeof CreateBatchPaymentBody>;

export const EditBatchPaymentBody = Type.Object({
  paymentID: Id(),
  BatchToken: BatchToken(),
  customerID: Id(),
  Amount: WireAmount(),
  CurrencyCode: Type.Optional(Text(3, { minLength: 3, description: "When sent, the batch's currency" })),
  Date: Type.Optional(WireDate({ description: "The payment's date; the batch's action date when left out" })),
  Method: Type.Optional(
    Text(40, { description: "When sent, the bank account's method (debit_order, ach, sepa)" }),
  ),
  paymentMethodID: Type.Optional(
    Id({ description: 'Another bank account of the customer; left out, the same' }),
  ),
  Memo: Type.Optional(Nullable(Text(1000))),
  Ref: Type.Optional(Nullable(Text(255))),
  PaymentApplied: PaymentAppliedList,
});
export type EditBatchPaymentBody = Static<typeof EditBatchPaymentBody>;

export const LineResultBody = Type.Object({
  Status: Type.Union([Type.Literal('paid'), Type.Literal('unpaid')], {
    description: 'paid settles a pending line; unpaid fails it (also after the batch was processed)',
  }),
  ReasonCode: Type.Optional(
    Text(8, {
      minLength: 1,
      description: "Unpaid only: the rail's code, such as 02 (SA), R01 (ACH) or AM04 (SEPA)",
    }),
  ),
});

export const ReturnsBody = Type.Object({
  document: Type.String({
    minLength: 1,
    maxLength: 5_000_000,
    description: 'A SEPA pain.002.001.03 status report (XML) or a NACHA return file, as the bank sent it',
  }),
});

export type ReturnsBody = Static<typeof ReturnsBody>;

/** The media types the bank's file is taken in as it is, beside JSON. */
export const RETURNS_FILE_TYPES = ['application/xml', 'text/xml', 'text/plain'] as const;

const PAIN_002_FILE = Type.String({
  description: 'A SEPA pain.002.001.03 status report, as the bank sent it',
});

/** The returns upload: the file wrapped in JSON, or the file itself under its own media type. */
export const ReturnsUpload = {
  content: {
    'application/json': { schema: ReturnsBody },
    'application/xml': { schema: PAIN_002_FILE },
    'text/xml': { schema: PAIN_002_FILE },
    'text/plain': {
      schema: Type.String({ description: 'A NACHA return file, as the bank sent it' }),
    },
  },
} satisfies { content: Record<(typeof RETURNS_FILE_TYPES)[number] | 'application/json', unknown> };

export const ReturnsOut = Type.Object({
  Returned: Type.Integer({ description: 'Lines failed by the file' }),
  Settled: Type.Integer({
    description: "Lines settled by the file (pain.002 ACSC, a Netcash statement's collection)",
  }),
  Unchanged: Type.Integer({
    description: 'Entries that changed nothing (accepted statuses, notifications of change)',
  }),
  Mismatched: Type.Array(
    Type.Object({
      Line: Type.Integer({ description: "The entry's line in the file" }),
      paymentID: Type.Integer({ description: 'The line of the batch it names' }),
      Reason: Type.String({ description: 'How it differs from the line' }),
    }),
    {
      description:
        "A Netcash statement's entries about a line whose amount or sign is not the line's: each changed nothing",
    },
  ),
});

export const BatchOut = Type.Object(
  {
    BatchToken: Type.String(),
    CurrencyCode: Type.String(),
    GatewayToken: Type.String(),
    CreatedDate: Type.String({ format: 'date-time' }),
    SubmitDate: Nullable(Type.String({ format: 'date-time', description: 'Null until submitted' })),
    ActionDate: Type.String({ format: 'date-time' }),
    State: Type.String({ description: 'open, build, submitted, processing, processed or cancelled' }),
    BuildError: Nullable(Type.String({ description: 'Why the last build failed, naming each bad payment' })),
    NumberOfPayments: Type.Integer(),
    PaymentsTotal: Type.String({
      description: "The lines' total, in the currency's decimals (two for most)",
    }),
    Notes: Nullable(Type.String()),
    Payments: Type.Optional(
      Type.Array(Type.Object({ paymentID: Type.Integer(), Amount: Type.Number() }), {
        description: 'The single read only',
      }),
    ),
  },
  { $id: 'Batch' },
);
export type BatchOut = Static<typeof BatchOut>;

export const BatchPaymentOut = Type.Object(
  {
    paymentID: Type.Integer(),
    customerID: Type.Integer(),
    Status: Type.String({
      description: 'Pending until the bank answers, then Allocated (or Partial) or Failed',
    }),
    Date: Type.String({ format: 'date-time' }),
    CurrencyCode: Type.String(),
    Amount: Type.Number(),
    Method: Type.String({ description: 'debit_order, ach or sepa' }),
    Ref: Nullable(Type.String()),
    Memo: Nullable(Type.String()),
    PaymentApplied: Type.Array(
      Type.Object({
        allocationID: Type.Integer(),
        invoiceID: Type.Integer(),
        paymentID: Type.Integer(),
        amount: Type.Number(),
      }),
    ),
  },
  { $id: 'BatchPayment' },
);
export type BatchPaymentOut = Static<typeof BatchPaymentOut>;
