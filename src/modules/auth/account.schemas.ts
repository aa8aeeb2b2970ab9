import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateOut, Nullable, StringEnum, Text } from '../../http/schemas.ts';
import {
  DUNNING_MAX_ATTEMPTS_MAX,
  DUNNING_RETRY_DAY_MAX,
  DUNNING_RETRY_DAYS_MAX,
  INVOICE_DUE_DAYS_MAX,
  INVOICE_TEXT_MAX,
  PORTAL_SWITCH_PACKAGES_MAX,
} from './account.service.ts';
import { LOGO_MAX_BYTES, LOGO_MAX_SIDE } from './logo.ts';
import { SELLER_TEXT_FIELDS } from './sellerDetails.ts';
import { TOP_UP_LIMITS_MAX } from './topUpLimits.ts';
import { MAX_PAUSE_DAYS_MAX, MAX_PAUSES_PER_YEAR_MAX } from './account.ts';
import { STATEMENT_PERIODS } from '../../core/periods.ts';
import {
  DEFAULT_REMINDER_DAYS,
  REMINDER_DAY_MAX,
  REMINDER_DAY_MIN,
  REMINDER_DAYS_MAX,
  STAFF_EMAIL_MAX,
} from './collectionLoopSettings.ts';

/** Seller details: who issues the invoices, printed on every invoice PDF. Each may be null (not printed). */
function sellerFields() {
  const text = (max: number, description: string) => Nullable(Text(max, { description }));
  return {
    LegalName: text(
      SELLER_TEXT_FIELDS.legalName.max,
      'Registered legal name of the business issuing invoices',
    ),
    AddressLine1: text(SELLER_TEXT_FIELDS.address1.max, 'Street address'),
    AddressLine2: text(SELLER_TEXT_FIELDS.address2.max, 'Further address line'),
    City: text(SELLER_TEXT_FIELDS.city.max, 'City or town'),
    PostalCode: text(SELLER_TEXT_FIELDS.postalCode.max, 'Postal code'),
    countryID: Nullable(
      Type.Integer({ minimum: 1, maximum: 999, description: 'ISO 3166-1 numeric code, as customers have' }),
    ),
    TaxNumber: text(SELLER_TEXT_FIELDS.taxNumber.max, 'Tax (VAT, GST) registration number'),
    CompanyNumber: text(SELLER_TEXT_FIELDS.companyNumber.max, 'Company registration number'),
    ContactEmail: text(SELLER_TEXT_FIELDS.email.max, 'Contact e-mail address printed on invoices'),
    ContactPhone: text(SELLER_TEXT_FIELDS.phone.max, 'Contact telephone number printed on invoices'),
    PaymentInstructions: text(
      SELLER_TEXT_FIELDS.paymentInstructions.max,
      'How to pay (bank details), printed under the totals; several lines',
    ),
    SenderName: text(
      SELLER_TEXT_FIELDS.senderName.max,
      "Beyond the spec: the name every e-mail of the account comes from (its From's display name and the " +
        "name its words give); null: LegalName, else the account's Name",
    ),
    ReplyTo: text(
      SELLER_TEXT_FIELDS.replyTo.max,
      "Beyond the spec: where customers' answers to the account's e-mails go (their Reply-To); null: none",
    ),
  };
}

/** Base64 of at most LOGO_MAX_BYTES bytes (4 characters per 3 bytes), padded. */
const LOGO_BASE64_MAX = Math.ceil(LOGO_MAX_BYTES / 3) * 4;

/** Beyond the spec: how failed card collections are retried (docs/gateways.md); null restores a default. */
function dunningFields() {
  return {
    DunningRetryDays: Type.Union(
      [
        Type.Array(Type.Integer({ minimum: 1, maximum: DUNNING_RETRY_DAY_MAX }), {
          maxItems: DUNNING_RETRY_DAYS_MAX,
        }),
        Type.Null(),
      ],
      {
        description:
          'Days after the first failed charge on which a soft decline is tried again, each later than the one before; null: the default 1, 3, 7, 14',
      },
    ),
    DunningMaxAttempts: Nullable(
      Type.Integer({
        minimum: 1,
        maximum: DUNNING_MAX_ATTEMPTS_MAX,
        description:
          'Charges of one invoice, the first included, after which it is no longer tried; null: the default 5',
      }),
    ),
    DunningSuspendCustomer: Type.Boolean({
      description: 'When retries run out, suspend the customer (off by default)',
    }),
    DunningCancelSubscriptions: Type.Boolean({
      description:
        "When retries run out, cancel the customer's subscriptions at the end of their period (off by default)",
    }),
  };
}

/** The most a usage event may be late: 30 days (docs/usage.md, "Grace and late events"). */
export const USAGE_GRACE_HOURS_MAX = 720;

/** Beyond the spec: whether a usage alert's firing e-mails the customer. */
const usageAlertEmailsField = () =>
  Type.Boolean({
    description:
      'Beyond the spec (docs/usage.md, "Alerts"): when a usage alert fires, the customer is e-mailed too ' +
      '(false by default: the webhook event alone)',
  });

/** Beyond the spec (docs/tax.md): how prepaid credit is taxed, and the basis of the VAT report. */
const vatFields = () => ({
  PrepaidCreditVat: StringEnum(['when_sold', 'when_used'] as const, {
    description:
      'Beyond the spec (docs/tax.md, "Prepaid credit"): how the prepaid credit the account sells from now on is ' +
      "taxed. when_sold (the default; the VAT Act's section 10(19), as SARS holds): its top-up is a tax invoice " +
      'and the invoices it pays carry no VAT again on the part it pays; when_used (section 10(18), a monetary ' +
      'voucher): its top-up is a receipt, not a supply, and the invoices it pays carry their VAT. Credit sold ' +
      'before keeps how it was sold',
  }),
  VatBasis: StringEnum(['invoice', 'payments'] as const, {
    description:
      'Beyond the spec (docs/tax.md, "The VAT report"): the basis of GET /v1/reports/vat: invoice (the default: ' +
      'documents by their date) or payments (supplies by the date they were paid, for vendors SARS allows)',
  }),
});

/** Beyond the spec (docs/tax.md, "What customers are told"): notices beyond invoices and collections. */
const noticeFields = () => ({
  SendCreditNotes: Type.Boolean({
    description:
      'Beyond the spec: each tax credit note is e-mailed with its PDF to a customer whose invoices are e-mailed ' +
      '(autoSendInvoice); true by default',
  }),
  SendRefundNotices: Type.Boolean({
    description:
      'Beyond the spec: a customer is told of a refund through a gateway (how much, to what, when to expect it); ' +
      'true by default',
  }),
  SendLowBalanceAlerts: Type.Boolean({
    description:
      "Beyond the spec: a customer is e-mailed when a wallet's balance falls below its LowBalanceAlert; true by " +
      'default',
  }),
  SendCancellationNotices: Type.Boolean({
    description:
      'Beyond the spec: a customer is told when a subscription is cancelled (what ends when, any credit); true by default',
  }),
  SendPauseNotices: Type.Boolean({
    description:
      'Beyond the spec: a customer is told when a subscription is paused, three days before a dated resume and ' +
      'when it resumes (docs/subscriptions.md, "Pause and resume"); true by default',
  }),
  CopyNoticesToStaff: Type.Boolean({
    description:
      'Beyond the spec: the staff address (StaffEmail, else ContactEmail) gets a copy of the credit note, refund ' +
      'and cancellation notices; false by default',
  }),
});

/** Beyond the spec: how late a usage event may arrive. */
const usageGraceHoursField = () =>
  Type.Integer({
    minimum: 0,
    maximum: USAGE_GRACE_HOURS_MAX,
    description:
      'Beyond the spec (docs/usage.md, "Grace and late events"): usage events older than this many hours are ' +
      'refused (72 by default)',
    examples: [72],
  });

/** Beyond the spec: what the collection loop does on its own (docs/gateways.md, "The collection loop"). */
function collectionLoopFields() {
  return {
    SendPaymentReceipts: Type.Boolean({
      description: 'E-mail the customer a receipt for every payment collected (on by default)',
    }),
    SendPaymentFailedEmails: Type.Boolean({
      description:
        'E-mail the customer at every failed collection, with what happens next and a link to pay (on by default)',
    }),
    SendInvoiceReminders: Type.Boolean({
      description:
        'E-mail reminders of unpaid invoices the customer pays itself, on InvoiceReminderDays (on by default)',
    }),
    InvoiceReminderDays: Type.Union(
      [
        Type.Array(Type.Integer({ minimum: REMINDER_DAY_MIN, maximum: REMINDER_DAY_MAX }), {
          maxItems: REMINDER_DAYS_MAX,
        }),
        Type.Null(),
      ],
      {
        description: `Days relative to the due date (negative: before it) on which an unpaid invoice is reminded, each later than the one before; null: the default ${DEFAULT_REMINDER_DAYS.join(', ')}`,
      },
    ),
    ApplyCreditBeforeCollecting: Type.Boolean({
      description:
        "Apply the customer's unapplied payments, credit notes and negative adjustments to an invoice before charging or debiting it (on by default)",
    }),
    AutoSubmitBatches: Type.Boolean({
      description:
        'Submit bundled debit-order batches on the last safe business day before their action date, without a person (off by default)',
    }),
    SmallInvoiceAmount: Nullable(
      Type.Number({
        description:
          "Beyond the spec: an invoice past due owing less than this (in the account's currency) is a small leftover " +
          'the staff are told of at once (docs/gateways.md, "Small leftovers"); null: none is (the default)',
      }),
    ),
    LateChargesOnPaidInvoices: StringEnum(['refund', 'credit'] as const, {
      description:
        "A charge taken in a provider's popup that arrives for an invoice already paid another way: refund (the " +
        "default) refunds it through the provider; credit keeps it as the customer's unapplied credit. The " +
        'customer and the staff are told which (docs/hosted-pages.md, "When the browser never comes back")',
    }),
    StaffEmail: Nullable(
      Type.String({
        maxLength: STAFF_EMAIL_MAX,
        description:
          "Where notices to the account's staff go (a batch to submit, a line that cannot be built); null: ContactEmail",
      }),
    ),
  };
}

const TOP_UP_LIMITS_TEXT =
  'Beyond the spec (docs/portal.md, "Prepaid credit"): per currency, the least and the most prepaid credit a ' +
  'customer may buy at once in the portal; a currency not listed: 1 to 10,000 whole units';

const TopUpAmount = (description: string) =>
  Type.Unsafe<number | string>({ type: ['number', 'string'], maxLength: 40, description });

/** Beyond the spec: what customers may change in the portal (docs/portal.md, "What customers may change"). */
function portalSelfServiceFields() {
  return {
    PortalAllowCancel: Type.Boolean({
      description:
        'Whether customers may cancel a subscription at the end of its period in the portal (true by default)',
      examples: [true],
    }),
    PortalAllowTopUps: Type.Boolean({
      description:
        'Whether customers may buy prepaid credit for their wallets in the portal, from 1.00 to 10,000.00 in the ' +
        "wallet's currency unless PortalTopUpLimits says otherwise, as POST /v1/wallets/{walletID}/top-ups sells " +
        'it (true by default)',
      examples: [true],
    }),
    PortalSwitchPackageIDs: Type.Array(Type.Integer({ minimum: 1 }), {
      maxItems: PORTAL_SWITCH_PACKAGES_MAX,
      description:
        "The packages (packageID) customers may move a subscription to in the portal, at the package's default " +
        'version and any of its rate terms in the subscription currency; empty (the default): no changes',
      examples: [[3, 4]],
    }),
    ...portalPauseFields(),
  };
}

/** Beyond the spec: pausing in the portal (docs/portal.md, "Pausing"). */
function portalPauseFields() {
  return {
    PortalPause: Type.Boolean({
      description:
        'Whether customers may pause a subscription in the portal, from the end of its billed period to a resume ' +
        'date they choose within MaxPauseDays, at most MaxPausesPerYear times in 365 days (false by default)',
      examples: [true],
    }),
    MaxPauseDays: Type.Integer({
      minimum: 1,
      maximum: MAX_PAUSE_DAYS_MAX,
      description: `The longest pause, in days from its start, a customer may choose in the portal (1 to ${MAX_PAUSE_DAYS_MAX}; 90 by default)`,
      examples: [90],
    }),
    MaxPausesPerYear: Type.Integer({
      minimum: 1,
      maximum: MAX_PAUSES_PER_YEAR_MAX,
      description: `How many pauses customers may make of one subscription in any 365 days, in the portal and by taking a retention offer (1 to ${MAX_PAUSES_PER_YEAR_MAX}; 1 by default)`,
      examples: [1],
    }),
  };
}

/** Beyond the spec: whether the account's prices include tax (docs/pricing.md, "Tax-inclusive prices"). */
function taxInclusiveField(note: string) {
  return Type.Boolean({
    description:
      'Whether the prices of packages and components include tax, unless a rate or currency says otherwise ' +
      `(false by default${note}). Invoice lines of such prices split the price into AmountEx and taxes; the ` +
      'customer pays the price as listed.',
    examples: [true],
  });
}

/** Beyond the spec: how often autoSendStatement customers get their statement (docs/spec-decisions.md, "Statements"). */
function statementPeriodField() {
  return Type.Union(
    STATEMENT_PERIODS.map((period) => Type.Literal(period)),
    { description: 'How far StatementDate moves on after an automatic statement; monthly by default' },
  );
}

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
    ...dunningFields(),
    ...collectionLoopFields(),
    StatementPeriod: statementPeriodField(),
    ...sellerFields(),
    Country: Nullable(Type.String({ description: "The name of countryID's country" })),
    LogoURL: Nullable(
      Type.String({ description: 'Where GET fetches the logo (the image itself is never inlined here)' }),
    ),
    PortalSlug: Nullable(
      Type.String({ description: "The customer portal's name in its address", examples: ['acme'] }),
    ),
    PortalURL: Nullable(
      Type.String({
        description:
          'Where customers sign in to the portal: PUBLIC_URL (or the address of the request) with /portal/{PortalSlug}/; ' +
          'null without a PortalSlug. Events, which have no request, show the path alone when PUBLIC_URL is not set.',
        examples: ['https://billing.example.com/portal/acme/'],
      }),
    ),
    ...portalSelfServiceFields(),
    PortalTopUpLimits: Type.Array(
      Type.Object({ CurrencyCode: Type.String(), Min: Type.Number(), Max: Type.Number() }),
      { description: TOP_UP_LIMITS_TEXT },
    ),
    isTaxInclusive: taxInclusiveField(''),
    BillCycleDay: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 31,
        description: 'The default BillCycleDay of the customers; left out when none is set',
        examples: [5],
      }),
    ),
    UsageGraceHours: usageGraceHoursField(),
    UsageAlertEmails: usageAlertEmailsField(),
    ...vatFields(),
    ...noticeFields(),
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
    ...dunningFields(),
    ...collectionLoopFields(),
    StatementPeriod: statementPeriodField(),
    ...sellerFields(),
    PortalSlug: Nullable(
      Type.String({
        maxLength: 200,
        description:
          "The customer portal's name in its address (/portal/{PortalSlug}/): lowercase letters, digits and hyphens, " +
          'unique among accounts; null clears it and closes the portal',
        examples: ['acme'],
      }),
    ),
    ...portalSelfServiceFields(),
    PortalTopUpLimits: Type.Union(
      [
        Type.Array(
          Type.Object({
            CurrencyCode: Text(3, { minLength: 3 }),
            Min: TopUpAmount('The least credit bought at once, in CurrencyCode'),
            Max: TopUpAmount('The most credit bought at once, in CurrencyCode; at least Min'),
          }),
          { maxItems: TOP_UP_LIMITS_MAX },
        ),
        Type.Null(),
      ],
      { description: `${TOP_UP_LIMITS_TEXT}; null clears them all` },
    ),
    isTaxInclusive: taxInclusiveField(''),
    UsageGraceHours: usageGraceHoursField(),
    UsageAlertEmails: usageAlertEmailsField(),
    ...vatFields(),
    ...noticeFields(),
    BillCycleDay: Nullable(
      Type.Integer({
        minimum: 1,
        maximum: 31,
        description:
          "Beyond the spec (docs/pricing.md): the day of the month (1–31) on which customers' new monthly and " +
          'multi-month subscriptions renew, unless a customer sets its own BillCycleDay; null (the default) clears it',
        examples: [5],
      }),
    ),
    Logo: Nullable(
      Type.String({
        maxLength: LOGO_BASE64_MAX,
        pattern: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
        description: `The invoice logo, a PNG or JPEG of at most ${LOGO_MAX_BYTES / 1024} KB and ${LOGO_MAX_SIDE} pixels a side, in base64; null removes it`,
      }),
    ),
  }),
);
export type EditAccountBody = Static<typeof EditAccountBody>;
