import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { ACCOUNT_TYPES } from './bankAccounts.ts';
import { DEBIT_FREQUENCIES } from './mandates.ts';
import { Id, Nullable, Text, WireDate } from '../../http/schemas.ts';

// Spec part 2, eMandates: the input fields as the spec spells them (Lastname in requests, LastName in the
// resource). Choices are checked by the use case (any letter case, with messages naming the field), so the
// schemas describe them rather than enumerate them.

const optionalText = (maxLength: number, description?: string) =>
  Type.Optional(Nullable(Text(maxLength, description ? { description } : {})));

const WireAmount = (description: string) =>
  Type.Unsafe<number | string>({ type: ['number', 'string'], maxLength: 40, description });

export const EmandateBody = Type.Object({
  Name: Text(255, { description: "The signee's first name" }),
  Lastname: Text(255, { description: "The signee's last name" }),
  Company: optionalText(255, 'Required when isCompanySignee is true; shown only then'),
  TradingAs: optionalText(255, 'Shown only when isCompanySignee is true'),
  Tel: optionalText(40),
  Email: optionalText(254),
  Address1: optionalText(255),
  Address2: optionalText(255),
  City: optionalText(100),
  State: optionalText(100),
  CountryISOCode: optionalText(3, 'ISO 3166-1 three-letter code (e.g. ZAF)'),
  PostalCode: optionalText(20),
  bank_Name: Text(255, { description: 'The bank' }),
  bank_BranchCode: Text(20, { description: 'The branch (universal branch) code' }),
  bank_AccHolder: Text(255),
  bank_AccNumber: Text(40, {
    description: '4 to 17 digits; sealed at rest, returned masked but for its last four digits',
  }),
  bank_AccountType: Text(40, { description: `One of ${ACCOUNT_TYPES.join(', ')} (any letter case)` }),
  debit_ActionDay: Type.Integer({
    description:
      'The collection day: 1 (Monday) to 7 (Sunday) for Weekly and Fortnightly; otherwise the day of the month, 1 to 31, or 99 for its last day',
  }),
  debit_StartDate: WireDate({
    description: 'The first collection date; not in the past (account time zone)',
  }),
  debit_EndDate: Type.Optional(Nullable(WireDate({ description: 'The last collection date; null: none' }))),
  debit_Frequency: Text(20, {
    description: `One of ${DEBIT_FREQUENCIES.join(', ')} (any letter case; Annually for Yearly). Daily is refused: DebiCheck has no daily collections`,
  }),
  debit_Escalation: Type.Optional(
    Type.Unsafe<number | string | null>({
      type: ['number', 'string', 'null'],
      maxLength: 10,
      description: 'A yearly increase in percent, 0 to 100 with at most 2 decimals; null: none',
    }),
  ),
  debit_Amt: WireAmount("The instalment, in the account's currency"),
  debit_MaxAmt: Type.Optional(
    Type.Unsafe<number | string | null>({
      type: ['number', 'string', 'null'],
      maxLength: 40,
      description: 'The most one collection may take: debit_Amt to 1.5 × debit_Amt; left out: debit_Amt',
    }),
  ),
  debit_NameOnStmt: Text(40, { description: "The name on the debtor's statement: at most 10 characters" }),
  debit_ContractRef: Text(35, {
    description: 'The contract reference: unique among the account’s eMandates',
  }),
  debit_VariableAmts: Type.Optional(
    Nullable(Type.Boolean({ description: 'Collections may vary up to debit_MaxAmt; default false (fixed)' })),
  ),
  isCustomerEditable: Type.Optional(
    Nullable(
      Type.Boolean({ description: 'The signee may correct their contact details and address when signing' }),
    ),
  ),
  isCompanySignee: Type.Optional(
    Nullable(
      Type.Boolean({ description: 'The signee signs for a company: Company and TradingAs are shown' }),
    ),
  ),
  customerID: Type.Optional(
    Nullable(Id({ description: 'Beyond the spec: the customer the mandate is for' })),
  ),
  AuthDomain: optionalText(
    255,
    'Beyond the spec: the one origin (https://shop.example:8443) allowed to frame the embedded signing page',
  ),
  ReturnUrl: optionalText(2000, 'Beyond the spec: where the hosted page sends the signee after signing'),
  CancelUrl: optionalText(2000, 'Beyond the spec: where the hosted page sends the signee after declining'),
  // Beyond the spec: docs/spec-decisions.md, "DebiCheck mandates".
  DebiCheckContractType: optionalText(
    20,
    'Beyond the spec: makes the mandate a DebiCheck mandate: fixed, variable or usage (usage-based). DebiCheck mandates collect Monthly on a day 1 to 31',
  ),
  DebiCheckTrackingDays: Type.Optional(
    Nullable(
      Type.Integer({
        description:
          'Beyond the spec: days (0 to 10) the bank tracks the account for funds after a failed collection; default 0',
      }),
    ),
  ),
  DebiCheckFirstAmt: Type.Optional(
    Type.Unsafe<number | string | null>({
      type: ['number', 'string', 'null'],
      maxLength: 40,
      description:
        'Beyond the spec: the first collection, when it differs from debit_Amt; at most debit_MaxAmt',
    }),
  ),
  DebiCheckIdType: optionalText(20, "Beyond the spec: the debtor's identity document: sa_id or passport"),
  DebiCheckIdNumber: optionalText(
    40,
    "Beyond the spec: the debtor's South-African ID number (checked with its birth date and check digit) or passport number; sealed at rest, shown by its last three characters only",
  ),
});
export type EmandateBody = Static<typeof EmandateBody>;

export const EmandateCreatedOut = Type.Object(
  { Token: Type.String({ description: 'The eMandate; valid 24 hours while unsigned' }) },
  { $id: 'EmandateToken' },
);

export const EmandateQuery = Type.Object({ Token: Text(128, { minLength: 1 }) });

/** Beyond the spec: PUT /v1/emandate/cancel (docs/spec-decisions.md, "Cancelling an eMandate"). */
export const EmandateCancelBody = Type.Object(
  {
    Token: Text(128, { minLength: 1 }),
    DebiCheckReasonCode: optionalText(
      4,
      "Beyond the spec: why a DebiCheck mandate's authentication is cancelled, as the bank's codes say (CUST by default: requested by the customer; AGMT, CURR, CUTA, DUPL, FRAD, UPAY, FRTR)",
    ),
  },
  { additionalProperties: false },
);

/** Beyond the spec: POST /v1/emandate/debicheck (docs/spec-decisions.md, "DebiCheck mandates"). */
export const EmandateDebiCheckBody = Type.Object(
  {
    Token: Text(128, { minLength: 1 }),
    GatewayToken: Text(128, {
      minLength: 1,
      description: 'The netcash gateway the bank authentication goes through',
    }),
  },
  { additionalProperties: false },
);

/** Beyond the spec: PUT /v1/emandate/debicheck/amend. */
export const EmandateAmendBody = Type.Object(
  {
    Token: Text(128, { minLength: 1 }),
    debit_Amt: WireAmount('The new instalment'),
    debit_MaxAmt: Type.Optional(
      Type.Unsafe<number | string | null>({
        type: ['number', 'string', 'null'],
        maxLength: 40,
        description: 'The new maximum: debit_Amt to 1.5 × debit_Amt; left out: debit_Amt',
      }),
    ),
  },
  { additionalProperties: false },
);

const nullableText = (description?: string) => Nullable(Type.String(description ? { description } : {}));

/** Spec part 2, eMandate: the resource. */
export const EmandateOut = Type.Object(
  {
    Token: Nullable(
      Type.String({
        description:
          'The token the request named; null in events (only its SHA-256 is stored, and the capability is not theirs)',
      }),
    ),
    customerPaymentMethodID: Nullable(
      Type.Integer({ description: 'The bank account linked to the mandate' }),
    ),
    customerID: Nullable(Type.Integer({ description: 'Beyond the spec: the customer named at creation' })),
    Status: Type.String({
      description:
        'Beyond the spec: pending_signature, signed, expired, rejected (the signee declined) or cancelled',
    }),
    Name: Type.String(),
    LastName: Type.String(),
    Company: nullableText('Only when isCompanySignee'),
    TradingAs: nullableText('Only when isCompanySignee'),
    Tel: nullableText(),
    Email: nullableText(),
    Address1: nullableText(),
    Address2: nullableText(),
    City: nullableText(),
    State: nullableText(),
    PostalCode: nullableText(),
    CountryISOCode: nullableText(),
    bank_DebitMethod: Type.String({ description: 'debit_order' }),
    bank_Name: Type.String(),
    bank_BranchCode: Type.String(),
    bank_AccHolder: Type.String(),
    bank_AccNumber: Type.String({ description: 'Masked but for the last four digits' }),
    bank_AccountType: Type.String(),
    debit_Frequency: Type.String(),
    debit_NameOnStmt: Type.String(),
    debit_ContractRef: Type.String(),
    debit_StartDate: Type.String({ format: 'date-time' }),
    debit_ActionDay: Type.Integer(),
    debit_EndDate: Nullable(Type.String({ format: 'date-time' })),
    debit_Amt: Type.Number(),
    debit_MaxAmt: Type.Number(),
    debit_Escalation: Nullable(Type.Number({ description: 'A yearly increase in percent' })),
    debit_VariableAmts: Type.Boolean(),
    CurrencyCode: Type.String({
      description: "Beyond the spec: the currency of the amounts (the account's)",
    }),
    isCustomerEditable: Type.Boolean(),
    isCompanySignee: Type.Boolean(),
    DateCreated: Type.String({ format: 'date-time' }),
    DateSigned: Nullable(Type.String({ format: 'date-time' })),
    DateDeclined: Nullable(
      Type.String({ format: 'date-time', description: 'Beyond the spec: when the signee declined' }),
    ),
    DateCancelled: Nullable(
      Type.String({ format: 'date-time', description: 'Beyond the spec: when the mandate was cancelled' }),
    ),
    Expires: Type.String({
      format: 'date-time',
      description: 'Beyond the spec: when the unsigned token lapses',
    }),
    BeneficiaryName: Type.String(),
    BeneficiaryContactNumber: nullableText(),
    BeneficiaryWebPage: nullableText(),
    BeneficiaryEmail: nullableText(),
    DebiCheckContractType: nullableText(
      'Beyond the spec: fixed, variable or usage; null: not a DebiCheck mandate',
    ),
    DebiCheckTrackingDays: Nullable(Type.Integer()),
    DebiCheckFirstAmt: Nullable(Type.Number({ description: 'The first collection' })),
    DebiCheckFirstCollectionDate: Nullable(
      Type.String({
        format: 'date-time',
        description: 'The first collection date: the first debit_ActionDay on or after debit_StartDate',
      }),
    ),
    DebiCheckIdType: nullableText('sa_id or passport'),
    DebiCheckIdNumber: nullableText('Masked but for its last three characters'),
    DebiCheckStatus: nullableText(
      'Where the bank authentication is: pending (the debtor is to approve it with their bank, until DebiCheckExpires), authenticated, declined, expired or cancelled; null until registered',
    ),
    DebiCheckContractReference: nullableText("The gateway's reference of the authentication (Netcash's NC…)"),
    DebiCheckRequested: Nullable(Type.String({ format: 'date-time' })),
    DebiCheckExpires: Nullable(
      Type.String({ format: 'date-time', description: 'While pending: when the wait for the debtor ends' }),
    ),
    DebiCheckAnswered: Nullable(Type.String({ format: 'date-time' })),
    DebiCheckReason: nullableText("The gateway's or bank's words on its last answer"),
  },
  { $id: 'EMandate' },
);
export type EmandateOut = Static<typeof EmandateOut>;
