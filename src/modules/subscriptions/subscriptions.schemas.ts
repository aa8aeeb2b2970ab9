import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateOut, Id, Nullable, NullableWireDate, StringEnum, Text, WireDate } from '../../http/schemas.ts';
import { PauseFieldsOut } from './subscriptionPause.schemas.ts';

const VersionNumber = (description: string) => Type.Integer({ minimum: 1, maximum: 1_000_000, description });

/** Spec, componentUsage NumUnits (Numeric): a JSON number, or a decimal string for clients keeping decimals exact. */
const Units = (description: string) =>
  Type.Unsafe<number | string>({ type: ['number', 'string'], maxLength: 40, description });

const ComponentUsageIn = Type.Object({
  componentID: Id(),
  componentVersionID: Type.Optional(
    Nullable(Id({ description: 'Left out with componentVersionNumber: the default version' })),
  ),
  componentVersionNumber: Type.Optional(Nullable(VersionNumber('VersionNo of the component version'))),
  NumUnits: Type.Optional(
    Units(
      'Units used in the current usage period (the first one before the start), at least 0, at most 4 decimals',
    ),
  ),
  Memo: Type.Optional(Nullable(Text(1000))),
});

const ComponentList = (description: string, minItems = 0) =>
  Type.Array(ComponentUsageIn, { minItems, maxItems: 100, description });

export const CreateSubscriptionBody = Type.Object({
  customerID: Id(),
  packageID: Id(),
  packageVersionID: Type.Optional(
    Nullable(Id({ description: 'Left out with packageVersionNumber: the default version' })),
  ),
  packageVersionNumber: Type.Optional(Nullable(VersionNumber('VersionNo of the package version'))),
  packageRateTermID: Id({ description: "A term of the version's rate in the customer's currency" }),
  StartDate: Type.Optional(
    Nullable(WireDate({ description: 'Default today; a later date makes a Future subscription' })),
  ),
  EndDate: Type.Optional(NullableWireDate()),
  numDaysBeforeToInv: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 365,
      description: 'Days before each renewal that its invoice is made (default 0)',
    }),
  ),
  isProRata: Type.Optional(
    Type.Boolean({
      description:
        "Default false. For a customer with a BillCycleDay (its own or the account's) and a term of months, " +
        'left out: the first period is pro-rated up to that day (docs/pricing.md, "Bill-cycle day"); false: it ' +
        'renews on its start day instead',
    }),
  ),
  firstProrataSyncDate: Type.Optional(
    Nullable(
      WireDate({
        description:
          'Required with isProRata (unless a BillCycleDay gives it): after StartDate and at most one term after it',
      }),
    ),
  ),
  componentUsage: Type.Optional(ComponentList('Components the subscription starts with')),
  CollectionMethod: Type.Optional(
    Nullable(
      Text(20, {
        description:
          "Beyond the spec: how its invoices are collected (cash, credit_card, debit_order, eft or hpp), as on a recurring invoice. Left out or null, they follow the customer's PaymentMethod, PrimaryGatewayID and primary payment method",
      }),
    ),
  ),
  gatewayID: Type.Optional(
    Nullable(
      Id({ description: 'Beyond the spec: required when CollectionMethod is debit_order or credit_card' }),
    ),
  ),
  customerPaymentMethodID: Type.Optional(
    Nullable(Id({ description: 'Beyond the spec: required when gatewayID is set' })),
  ),
  ActivateOnPayment: Type.Optional(
    Type.Boolean({
      description:
        'Beyond the spec (docs/subscriptions.md, "Subscriptions that start when paid"): default false. True: the ' +
        'first invoice is issued at once and the subscription is Incomplete until it is paid, then active; unpaid ' +
        'by IncompleteExpiryDate it becomes IncompleteExpired and the invoice is cancelled',
      examples: [false],
    }),
  ),
});
export type CreateSubscriptionBody = Static<typeof CreateSubscriptionBody>;

export const ModifyComponentsBody = Type.Object({
  componentUsage: ComponentList('The whole set of components: those left out are removed'),
});
export type ModifyComponentsBody = Static<typeof ModifyComponentsBody>;

const UsageRecordIn = Type.Object({
  componentID: Id(),
  NumUnits: Units('Units to set, or to add (negative to lower) when isSetUnits is false; at most 4 decimals'),
  isSetUnits: Type.Optional(
    Type.Unsafe<boolean | 0 | 1>({
      type: ['boolean', 'integer'],
      enum: [true, false, 0, 1],
      description: 'true (or 1) sets the units, false (or 0, the default) adds to them',
    }),
  ),
  Memo: Type.Optional(Nullable(Text(1000))),
});

export const RecordUsageBody = Type.Object({
  componentUsage: Type.Array(UsageRecordIn, { minItems: 1, maxItems: 100 }),
});
export type RecordUsageBody = Static<typeof RecordUsageBody>;

export const ChangeStartDateBody = Type.Object({ StartDate: WireDate() });
export const ChangeEndDateBody = Type.Object({
  EndDate: Type.Unsafe<string | null>({ ...NullableWireDate(), description: 'null clears the EndDate' }),
});

export const SubscriptionIdParams = Type.Object({ subscriptionID: Id() });
export const CustomerIdParams = Type.Object({ customerID: Id() });

const ComponentUsageOut = Type.Object({
  componentID: Type.Integer(),
  componentVersionID: Type.Integer(),
  componentVersionNumber: Type.Integer(),
  Memo: Nullable(Type.String()),
  NumUnits: Type.Number({ description: "The current usage period's units (0 when none are recorded)" }),
  isSetUnits: Type.Boolean(),
});

export const SubscriptionOut = Type.Object(
  {
    subscriptionID: Type.Integer(),
    customerID: Type.Integer(),
    packageID: Type.Integer(),
    packageVersionID: Type.Integer(),
    packageVersionNumber: Type.Integer(),
    packageRateTermID: Type.Integer(),
    CustomerName: Type.String(),
    PackageName: Type.String(),
    Term: Type.Integer(),
    TermType: Type.String(),
    StartDate: Type.String({ format: 'date-time' }),
    EndDate: DateOut(),
    TrialEndDate: DateOut(),
    firstProrataSyncDate: DateOut(),
    isProRata: Type.Boolean(),
    isFutureChange: Type.Boolean(),
    isCancelled: Type.Boolean(),
    isExpired: Type.Boolean(),
    lastInvDate: DateOut(),
    lastRenewDate: DateOut(),
    nextRenewDate: DateOut(),
    numDaysBeforeToInv: Type.Integer(),
    comp_nextInvDate: DateOut(),
    comp_Status: StringEnum([
      'Future',
      'Trial',
      'Active',
      'Cancelled',
      'Expired',
      'Paused',
      // Started when paid (docs/subscriptions.md, "Subscriptions that start when paid").
      'Incomplete',
      'IncompleteExpired',
    ]),
    LastModified: Type.String({ format: 'date-time' }),
    componentUsage: Type.Array(ComponentUsageOut),
    CurrencyCode: Type.String(),
    ChargePrice: Type.Number(),
    CancelType: Nullable(Type.String()),
    CancelDate: DateOut(),
    CancelReason: Nullable(
      Type.String({
        description:
          "Why it was cancelled, when the customer said in the portal: a reason Code of the account's retention " +
          'rules (GET /v1/account/retention); null otherwise',
      }),
    ),
    isParked: Type.Boolean({
      description: 'The bill run stopped billing it: its record breaks an invariant',
    }),
    ParkedReason: Nullable(Type.String()),
    CollectionMethod: Nullable(
      Type.String({
        description: "Beyond the spec: its own collection; null when its invoices follow the customer's",
      }),
    ),
    gatewayID: Nullable(Type.Integer()),
    customerPaymentMethodID: Nullable(Type.Integer()),
    BillCycleDay: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 31,
        description:
          'Beyond the spec (docs/pricing.md, "Bill-cycle day"): the day of the month it renews on, taken from the customer\'s ' +
          "or the account's BillCycleDay when it was created, or set by PUT .../changebillcycleday; left out when none",
        examples: [5],
      }),
    ),
    IncompleteExpiryDate: Type.Optional(
      Nullable(
        Type.String({
          format: 'date-time',
          description:
            'Beyond the spec: created with ActivateOnPayment, the day it expires if its first invoice is still unpaid ' +
            '(docs/subscriptions.md, "Subscriptions that start when paid"); left out otherwise',
          examples: ['2026-03-06T00:00:00.000Z'],
        }),
      ),
    ),
    ActivationDate: Type.Optional(
      Nullable(
        Type.String({
          format: 'date-time',
          description: 'Beyond the spec: created with ActivateOnPayment, the day its first invoice was paid',
          examples: ['2026-03-05T00:00:00.000Z'],
        }),
      ),
    ),
    ...PauseFieldsOut,
  },
  { $id: 'Subscription' },
);
export type SubscriptionOut = Static<typeof SubscriptionOut>;
