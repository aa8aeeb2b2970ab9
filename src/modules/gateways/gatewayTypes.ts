/**
 * The gateway types the service knows, and what each can do. A gateway row copies its type's capabilities when
 * it is added (isAcceptCC, isAcceptBankDD, isManualRecon), so a later change here does not silently change what
 * an existing gateway accepts.
 */
export interface GatewayTypeInfo {
  /** GatewayType on the wire. */
  type: string;
  /** GatewayName on the wire: the provider behind the gateway. */
  gatewayName: string;
  acceptsCreditCard: boolean;
  acceptsBankAccount: boolean;
  /** Payments through it are recorded and reconciled by hand; the service collects nothing through it. */
  manualRecon: boolean;
  /** A simulator never moves real money, so its gateways are always in test mode. */
  alwaysTestMode: boolean;
  /** Whether the gateway keeps settings (credentials, or the simulator's behaviour), sealed at rest. */
  takesSettings: boolean;
  /** Whether the gateway keeps card numbers in its vault and hands back a token (we never keep a number). */
  vaultsCards: boolean;
  /** Its batches become files the business uploads to its bank (SEPA pain.008, NACHA), and returns come back as files. */
  makesBankFiles: boolean;
  /** Its driver charges stored cards off session (and refunds them). */
  chargesCards: boolean;
  /** Its driver takes batches of debits (submitBatch). */
  takesBatches: boolean;
  /**
   * Cards are entered in the provider's own hosted fields (its script in our capture frame) and saved from the
   * provider's token: the number never reaches the service (docs/hosted-pages.md, "With a real provider").
   */
  hostedFields: boolean;
}

export const GATEWAY_TYPES = {
  // The built-in simulator every account starts with: it accepts both kinds of payment method so that
  // integrations can be exercised end to end before a real provider is connected. Its settings are the
  // simulator's knobs (which charges to decline), defined with collection.
  test: {
    type: 'test',
    gatewayName: 'TestGateway',
    acceptsCreditCard: true,
    acceptsBankAccount: true,
    manualRecon: false,
    alwaysTestMode: true,
    takesSettings: true,
    vaultsCards: true,
    makesBankFiles: false,
    chargesCards: true,
    takesBatches: true,
    hostedFields: false,
  },
  // Money that arrives outside the service (EFT, cash, cheque) and is recorded by hand: nothing is collected
  // automatically and there is nothing to connect to, hence no settings.
  manual: {
    type: 'manual',
    gatewayName: 'ManualGateway',
    acceptsCreditCard: false,
    acceptsBankAccount: false,
    manualRecon: true,
    alwaysTestMode: false,
    takesSettings: false,
    vaultsCards: false,
    makesBankFiles: false,
    chargesCards: false,
    takesBatches: false,
    hostedFields: false,
  },
  // Debits collected by files: a submitted batch becomes a SEPA or NACHA file the business downloads and uploads to
  // its bank, whose returns are uploaded back (docs/bank-files.md). Its settings are the creditor's details.
  bankfile: {
    type: 'bankfile',
    gatewayName: 'BankFileGateway',
    acceptsCreditCard: false,
    acceptsBankAccount: true,
    manualRecon: false,
    alwaysTestMode: false,
    takesSettings: true,
    vaultsCards: false,
    makesBankFiles: true,
    chargesCards: false,
    takesBatches: false,
    hostedFields: false,
  },
  // South African debit orders through Netcash (docs/gateways/netcash.md): a built debit-order batch becomes
  // Netcash's NIF file, which its driver uploads through Netcash's web service (unless the settings say a person
  // does), and Netcash's statement brings the unpaids back, like a bank file's returns. Its settings are the
  // debit-order and account service keys, the software vendor key and the upload's choice (netcashSettings.ts).
  netcash: {
    type: 'netcash',
    gatewayName: 'Netcash',
    acceptsCreditCard: false,
    acceptsBankAccount: true,
    manualRecon: false,
    alwaysTestMode: false,
    takesSettings: true,
    vaultsCards: false,
    makesBankFiles: true,
    chargesCards: false,
    takesBatches: true,
    hostedFields: false,
  },
  // Cards worldwide through Stripe (docs/gateways/stripe.md): entered in Stripe's Payment Element, kept by Stripe
  // (a customer and a PaymentMethod; we keep a token naming them), charged off session. Its settings are its keys.
  stripe: {
    type: 'stripe',
    gatewayName: 'Stripe',
    acceptsCreditCard: true,
    acceptsBankAccount: false,
    manualRecon: false,
    alwaysTestMode: false,
    takesSettings: true,
    vaultsCards: false,
    makesBankFiles: false,
    chargesCards: true,
    takesBatches: false,
    hostedFields: true,
  },
  // Paystack (docs/gateways/paystack.md): cards in Paystack's Inline JS popup (hosted fields), kept by Paystack as
  // reusable authorizations and charged off session; no bank debits, no batches. Its settings are its keys.
  paystack: {
    type: 'paystack',
    gatewayName: 'Paystack',
    acceptsCreditCard: true,
    acceptsBankAccount: false,
    manualRecon: false,
    alwaysTestMode: false,
    takesSettings: true,
    vaultsCards: false,
    makesBankFiles: false,
    chargesCards: true,
    takesBatches: false,
    hostedFields: true,
  },
} as const satisfies Record<string, GatewayTypeInfo>;

export type GatewayType = keyof typeof GATEWAY_TYPES;

export const GATEWAY_TYPE_NAMES = Object.keys(GATEWAY_TYPES) as GatewayType[];

export function gatewayTypeInfo(type: string): GatewayTypeInfo | undefined {
  return Object.hasOwn(GATEWAY_TYPES, type) ? GATEWAY_TYPES[type as GatewayType] : undefined;
}
