import { Type } from '@sinclair/typebox';
import { DateOut, Id, StringEnum } from '../../http/schemas.ts';
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
  Amount: Type.Number({ description: 'Charged for the period, before taxes' }),
  invoiceID: Type.Union([Type.Integer(), Type.Null()]),
});
