import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateOut, Id, Nullable, NullableObject, Text, WireDate } from '../../http/schemas.ts';
import { WireAmount } from '../ledger/index.ts';

const Money = (description: string) => Type.Number({ description });

const NullableWireAmount = (description: string) =>
  Type.Unsafe<number | string | null>({ type: ['number', 'string', 'null'], maxLength: 40, description });

/** docs/credits.md, "Automatic top-ups" and "Low-balance alerts": each off while null or left out. */
const WalletSettingsBody = {
  AutoTopUpThreshold: Type.Optional(
    NullableWireAmount(
      'When a consumption or expiry leaves the balance below this, the wallet buys AutoTopUpAmount, charged ' +
        'to the customer’s primary card; set with AutoTopUpAmount',
    ),
  ),
  AutoTopUpAmount: Type.Optional(
    NullableWireAmount('Credit each automatic top-up buys (the invoice adds the customer’s taxes)'),
  ),
  LowBalanceAlertThreshold: Type.Optional(
    NullableWireAmount(
      'The balance falling below this fires wallet.balance_low (and an e-mail) once a crossing',
    ),
  ),
};

export const WalletBody = Type.Object({
  CurrencyCode: Text(3, {
    minLength: 3,
    description: 'One of the account’s enabled currencies; one wallet each',
  }),
  Name: Type.Optional(Nullable(Text(255, { description: 'What the wallet is called in lists' }))),
  ...WalletSettingsBody,
});
export type WalletBody = Static<typeof WalletBody>;

export const WalletPutBody = Type.Object({
  Name: Nullable(Text(255, { description: 'What the wallet is called in lists' })),
  ...WalletSettingsBody,
});
export type WalletPutBody = Static<typeof WalletPutBody>;

export const WalletOut = Type.Object(
  {
    walletID: Type.Integer(),
    customerID: Type.Integer(),
    CurrencyCode: Type.String(),
    Name: Nullable(Type.String()),
    Balance: Money('What its grants still hold, expired ones not counted: the sum of their journals'),
    PaidBalance: Money('The part of Balance bought with paid top-ups'),
    GrantedBalance: Money('The part of Balance granted free'),
    AutoTopUpThreshold: Nullable(Money('The balance below which it tops itself up; null: off')),
    AutoTopUpAmount: Nullable(Money('Credit each automatic top-up buys; null: off')),
    AutoTopUpProblem: Nullable(
      Type.String({
        description: 'Why the last automatic top-up could not be made (code: reason); null once one is',
      }),
    ),
    LowBalanceAlertThreshold: Nullable(Money('The balance below which wallet.balance_low fires; null: off')),
    LowBalanceAlerted: Type.Boolean({
      description: 'The alert fired and the balance has not yet been back at or above its threshold',
    }),
    CreatedAt: DateOut(),
    UpdatedAt: DateOut(),
  },
  { $id: 'Wallet' },
);

export const GrantBody = Type.Object({
  Amount: WireAmount('Credit granted, in the wallet’s currency, at most its decimals'),
  Priority: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 50,
      description: 'Grants with priority 1 are used first; 1 if left out',
    }),
  ),
  ExpiresAt: Type.Optional(
    Nullable(
      WireDate({
        description: 'The instant it expires; a date means its midnight in the account’s time zone',
      }),
    ),
  ),
  AppliesTo: Type.Optional(
    NullableObject({
      MetricCodes: Type.Optional(
        Type.Unsafe<string[] | null>({
          type: ['array', 'null'],
          items: Text(100),
          minItems: 1,
          maxItems: 50,
          description: 'It pays the usage lines of these metrics (with their tax); null: none named',
        }),
      ),
      ComponentIDs: Type.Optional(
        Type.Unsafe<number[] | null>({
          type: ['array', 'null'],
          items: Id(),
          minItems: 1,
          maxItems: 50,
          description:
            'It pays the usage lines of these components, recorded or read from events (with their tax); null: ' +
            'none named',
        }),
      ),
    }),
  ),
  Note: Type.Optional(Nullable(Text(1000, { description: 'Why it was granted' }))),
});
export type GrantBody = Static<typeof GrantBody>;

export const GrantOut = Type.Object(
  {
    creditGrantID: Type.Integer(),
    walletID: Type.Integer(),
    customerID: Type.Integer(),
    CurrencyCode: Type.String(),
    Kind: Type.String({ description: 'paid (a paid top-up) or granted (free)' }),
    Status: Type.String({ description: 'active, used (nothing left), expired or voided' }),
    Amount: Money('What was granted'),
    Remaining: Money('What it may still pay: 0 once expired or voided'),
    Consumed: Money('What it pays on invoices now (consumed less released)'),
    Expired: Money('What expired unused'),
    Voided: Money('What a void wrote off'),
    Refunded: Money(
      'What left a paid grant because the money that bought it went back: refunded through the gateway or its ' +
        'top-up invoice credited (refund entries less those undone; net of tax, docs/credits.md "Crediting a top-up")',
    ),
    Priority: Type.Integer(),
    ExpiresAt: DateOut(),
    AppliesTo: NullableObject({
      MetricCodes: Type.Unsafe<string[] | null>({ type: ['array', 'null'], items: { type: 'string' } }),
      ComponentIDs: Type.Unsafe<number[] | null>({ type: ['array', 'null'], items: { type: 'integer' } }),
    }),
    Note: Nullable(Type.String()),
    TopUpInvoiceID: Nullable(Type.Integer({ description: 'The paid top-up’s invoice' })),
    VoidedAt: DateOut(),
    CreatedAt: DateOut(),
    Invoices: Type.Optional(
      Type.Array(
        Type.Object({ invoiceID: Type.Integer(), Amount: Money('What the grant pays on the invoice') }),
        { description: 'Every invoice its credit pays (GET of one grant)' },
      ),
    ),
  },
  { $id: 'CreditGrant' },
);

export const EntryOut = Type.Object(
  {
    creditEntryID: Type.Integer(),
    creditGrantID: Type.Integer(),
    walletID: Type.Integer(),
    Kind: Type.String({
      description:
        'grant, consume, release, expire, void, refund (credit that left with the money that bought it) or ' +
        'refund_undone (that credit given back when the money did not go: the gateway refused, the credit note went)',
    }),
    Amount: Money('Always positive: Kind says which way it moves the grant'),
    invoiceID: Nullable(
      Type.Integer({
        description:
          'The invoice a consume or release concerns; for refund and refund_undone, the top-up invoice',
      }),
    ),
    allocationID: Nullable(
      Type.Integer({ description: 'The ledger allocation a consume made or a release took back' }),
    ),
    CreatedAt: DateOut(),
  },
  { $id: 'CreditEntry' },
);

export const TopUpBody = Type.Object({
  Amount: WireAmount('Credit to buy, in the wallet’s currency; the invoice adds the customer’s taxes'),
});
export type TopUpBody = Static<typeof TopUpBody>;

export const TopUpOut = Type.Object(
  {
    walletID: Type.Integer(),
    invoiceID: Type.Integer({
      description: 'The invoice that sells the credit: paid in full, it makes the grant',
    }),
    Amount: Money('Credit bought'),
  },
  { $id: 'WalletTopUp' },
);

export const CustomerParams = Type.Object({ customerID: Id() });
export const WalletParams = Type.Object({ walletID: Id() });
export const GrantParams = Type.Object({ creditGrantID: Id() });
