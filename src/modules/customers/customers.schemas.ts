import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import {
  DateOut,
  Id,
  Nullable,
  NullableObject,
  NullableWireDate,
  PAGE_SIZE_MAX,
  StringEnum,
  Text,
} from '../../http/schemas.ts';

const NullableText = (max = 255) => Nullable(Text(max));

/** Beyond the spec (docs/pricing.md, "Bill-cycle day"). */
const BillCycleDayField = () =>
  Nullable(
    Type.Integer({
      minimum: 1,
      maximum: 31,
      description:
        "The day of the month (1–31) on which the customer's new monthly and multi-month subscriptions renew, " +
        "the first period pro-rated up to it; a shorter month renews on its last day. null (the default): the account's BillCycleDay",
      examples: [5],
    }),
  );

const CustomFieldValues = Type.Array(
  Type.Object({ Key: Text(100, { minLength: 1 }), Value: NullableText(2000) }),
  { maxItems: 200, description: "Values of the account's custom fields, by Key" },
);

/** Writable customer fields. On create only Name is required; on edit every field is optional. */
const customerFields = {
  Reference: NullableText(100),
  isCompany: Type.Boolean(),
  LastName: NullableText(),
  RegistrationNumber: NullableText(100),
  VatNo: Type.Unsafe<string | number | null>({
    type: ['string', 'integer', 'null'],
    maxLength: 50,
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'Listed as Numeric (a whole number is accepted); returned as a string',
  }),
  Company: NullableText(),
  Email: NullableText(254),
  EmailCC: NullableText(254),
  Cell: NullableText(50),
  Tel: NullableText(50),
  Fax: NullableText(50),
  Address1: NullableText(),
  Address2: NullableText(),
  City: NullableText(100),
  State: NullableText(100),
  Country: NullableText(100),
  ZipCode: NullableText(20),
  CountryState: NullableText(100),
  countryID: Nullable(Id()),
  countryStateID: Type.Unsafe<number | string | null>({
    type: ['integer', 'string', 'null'],
    pattern: '^[1-9]\\d{0,14}$',
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
  }),
  PrimaryGatewayID: Nullable(Id()),
  CurrencyCode: Text(3, { minLength: 3 }),
  isActive: Type.Boolean(),
  isSuspended: Type.Unsafe<boolean | 0 | 1>({ type: ['boolean', 'integer'], enum: [true, false, 0, 1] }),
  isWaiveTaxes: Type.Boolean(),
  PaymentMethod: Nullable(Text(20)),
  autoSendInvoice: Type.Boolean(),
  autoSendStatement: Type.Boolean(),
  StatementDate: NullableWireDate(),
  BillCycleDay: BillCycleDayField(),
  CustomFields: CustomFieldValues,
};

export const CreateCustomerBody = Type.Object({
  Name: Text(255, { minLength: 1 }),
  ...Type.Partial(Type.Object(customerFields)).properties,
});
export type CreateCustomerBody = Static<typeof CreateCustomerBody>;

export const EditCustomerBody = Type.Partial(
  Type.Object({ Name: Text(255, { minLength: 1 }), ...customerFields }),
);
export type EditCustomerBody = Static<typeof EditCustomerBody>;

export const CustomerIdParams = Type.Object({ customerID: Id() });

export const ByCustomerIdsBody = Type.Object({
  ids: Type.Array(Id(), { minItems: 1, maxItems: 1000, description: 'customerID values' }),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX })),
});

const customerOutFields = {
  customerID: Type.Integer(),
  Reference: NullableText(),
  isCompany: Type.Boolean(),
  Name: Type.String(),
  LastName: NullableText(),
  RegistrationNumber: NullableText(),
  VatNo: NullableText(),
  Company: NullableText(),
  Email: NullableText(),
  EmailCC: NullableText(),
  Cell: NullableText(),
  Tel: NullableText(),
  Fax: NullableText(),
  Address1: NullableText(),
  Address2: NullableText(),
  City: NullableText(),
  State: NullableText(),
  Country: NullableText(),
  ZipCode: NullableText(),
  CountryState: NullableText(),
  countryID: Nullable(Type.Integer()),
  countryStateID: Nullable(
    Type.String({ description: 'Returned as a string, as the original service does' }),
  ),
  PrimaryGatewayID: Nullable(Type.Integer()),
  CurrencyCode: Type.String(),
  CreatedDate: Type.String({ format: 'date-time' }),
  isSuspended: Type.Boolean(),
  SuspendedDate: DateOut(),
  isActive: Type.Boolean(),
  comp_status: StringEnum(['Active', 'Suspended', 'Archived']),
  isWaiveTaxes: Type.Boolean(),
  PaymentMethod: NullableText(),
  ActiveSubs: Type.Integer(),
  Balance: Type.Number(),
  autoSendInvoice: Type.Boolean(),
  autoSendStatement: Type.Boolean(),
  StatementDate: DateOut(),
  StatementLastSentDate: DateOut(),
  BillCycleDay: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 31,
      description: "The customer's own BillCycleDay; left out when it has none (the account's applies)",
      examples: [5],
    }),
  ),
  PrimaryPaymentMethodInfo: NullableObject({
    paymentMethodID: Type.Integer(),
    Token: Type.String({ description: "The method's token of our own (pm_…); never the gateway vault's" }),
  }),
};

export const CustomerOut = Type.Object(customerOutFields, { $id: 'Customer' });
export type CustomerOut = Static<typeof CustomerOut>;

export const CustomerWithPrimaryOut = Type.Object(
  { ...customerOutFields, PrimaryPaymentMethod: Type.Boolean() },
  { $id: 'CustomerByIds' },
);

export const CustomerWithCustomFieldsOut = Type.Object(
  {
    ...customerOutFields,
    CustomFields: Type.Array(Type.Object({ Key: Type.String(), Value: NullableText() })),
  },
  { $id: 'CustomerWithCustomFields' },
);

export const CustomFieldOut = Type.Object(
  { customFieldID: Type.Integer(), Key: Type.String() },
  { $id: 'CustomField' },
);
export const CreateCustomFieldBody = Type.Object({ Key: Text(100, { minLength: 1 }) });
export const CustomFieldIdParams = Type.Object({ customFieldID: Id() });
