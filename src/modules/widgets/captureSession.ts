/**
 * The rules of a capture session that need no I/O: its types, how ExpiresIn reads, and the state a person sees
 * (docs/design/hosted-pages.md, "Capture widget"; spec part 2, Capture session (hosted widget)).
 */

/** How the captured method is kept (docs/spec-decisions.md, "Capture widget sessions"). */
export const VAULTING_TYPES = ['VaultGateway', 'None'] as const;
export type VaultingType = (typeof VAULTING_TYPES)[number];

/** What the session does with the method (docs/spec-decisions.md, "Capture widget sessions"). */
export const SALE_TYPES = ['VaultOnly', 'VaultSale', 'Sale'] as const;
export type SaleType = (typeof SALE_TYPES)[number];

/**
 * What the session stores: `capturing` is a submit with the gateway, `challenging` a card waiting on the
 * cardholder's 3-D Secure challenge (docs/design/hosted-pages.md, "3-D Secure in the frame"); both shown as open.
 */
export type StoredState = 'open' | 'capturing' | 'challenging' | 'captured' | 'completed' | 'locked';
/** The states on the wire (State, beyond the spec). */
export const CAPTURE_STATES = ['open', 'captured', 'completed', 'locked', 'expired'] as const;
export type CaptureState = (typeof CAPTURE_STATES)[number];

/** docs/design/hosted-pages.md, "Capture widget": ExpiresIn is capped at 24 hours. */
export const EXPIRES_IN_MAX_SECONDS = 24 * 3600;
/** docs/design/hosted-pages.md, "Capture widget": complete is allowed a day after Expires. */
export const COMPLETE_GRACE_MS = 24 * 3600 * 1000;
/** docs/design/hosted-pages.md, "Capture widget": locked after 5 failed submits. */
export const MAX_FAILED_ATTEMPTS = 5;
/**
 * docs/design/hosted-pages.md, "Capture widget": at most 20 failed submits per client address in 10 minutes,
 * whatever the session or account; beyond, the frame's submits from that address are refused (429) until the
 * oldest failure leaves the window.
 */
export const MAX_FAILURES_PER_ADDRESS = 20;
export const ADDRESS_WINDOW_MS = 10 * 60 * 1000;

export const includesSale = (saleType: SaleType): boolean => saleType !== 'VaultOnly';
export const keepsMethod = (vaultingType: VaultingType): boolean => vaultingType === 'VaultGateway';

/**
 * Which types go together: a session that keeps nothing (None) can only sell (Sale), and a Sale keeps nothing.
 * Undefined when they agree, else why not.
 */
export function typesConflict(vaultingType: VaultingType, saleType: SaleType): string | undefined {
  if (vaultingType === 'None' && saleType !== 'Sale') {
    return `VaultingType None keeps no method: SaleType must be Sale, not ${saleType}`;
  }
  if (vaultingType !== 'None' && saleType === 'Sale') {
    return 'SaleType Sale keeps no method: VaultingType must be None (VaultSale sells and keeps it)';
  }
  return undefined;
}

/**
 * Spec: ExpiresIn is a time span of shape hh:mm:ss (a leading `d.` day part, as .NET writes a TimeSpan, is
 * read too). Seconds, or why it cannot be read.
 */
export function parseExpiresIn(text: string): { seconds: number } | { refused: string } {
  const match = /^(?:(\d{1,2})\.)?(\d{1,2}):(\d{2}):(\d{2})$/.exec(text);
  if (!match) return { refused: 'must be a time span hh:mm:ss, such as 00:30:00' };
  const [days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
  ];
  if (hours > 23 && days > 0) return { refused: 'hours must be 0 to 23 after a day part' };
  if (minutes > 59 || seconds > 59) return { refused: 'minutes and seconds must be 00 to 59' };
  const total = days * 86_400 + hours * 3600 + minutes * 60 + seconds;
  if (total === 0) return { refused: 'must be longer than 00:00:00' };
  if (total > EXPIRES_IN_MAX_SECONDS) return { refused: 'must be at most 24:00:00' };
  return { seconds: total };
}

/** The state a reader sees at `now`: an open or locked session past Expires is expired. */
export function stateAt(stored: StoredState, expiresAt: string, now: string): CaptureState {
  const base = stored === 'capturing' || stored === 'challenging' ? 'open' : stored;
  if ((base === 'open' || base === 'locked') && Date.parse(now) >= Date.parse(expiresAt)) return 'expired';
  return base;
}

/** Whether complete may still run: up to a day after Expires (the grace bounds the frame, not the server). */
export const completeGraceOver = (expiresAt: string, now: string): boolean =>
  Date.parse(now) >= Date.parse(expiresAt) + COMPLETE_GRACE_MS;

export type BankRail = 'debit_order' | 'ach' | 'sepa';

/**
 * The bank rail the frame offers for a session's currency: a South African debit order in ZAR, ACH in USD, SEPA
 * in EUR; none in another currency (docs/spec-decisions.md, "Capture widget sessions").
 */
export function bankRailFor(currencyCode: string): BankRail | undefined {
  const rails: Record<string, BankRail> = { ZAR: 'debit_order', USD: 'ach', EUR: 'sepa' };
  return Object.hasOwn(rails, currencyCode) ? rails[currencyCode] : undefined;
}

/** A bank account is taken only to keep (a debit is collected later, in a batch, never as the session's sale). */
export const keepsBankAccounts = (vaultingType: VaultingType, saleType: SaleType): boolean =>
  vaultingType === 'VaultGateway' && saleType === 'VaultOnly';

/**
 * A capture session as stored (captureSession.mapper.ts makes it from its row); the use cases answer it as a
 * CaptureSession (captureSession.service.ts), with its HashToken, gateway token and the state a reader sees.
 */
export interface CaptureSessionRecord {
  id: number;
  accountId: number;
  sessionToken: string;
  /** SHA-256 (hex) of the HashToken the browser holds; the token itself is never stored. */
  hashTokenSha256: string;
  apiKeyId: number | null;
  extRef: string | null;
  currencyCode: string;
  vaultingType: VaultingType;
  saleType: SaleType;
  vaultOnlyOnSuccess: boolean;
  amountMinor: number | null;
  gatewayId: number;
  authDomain: string;
  description: string | null;
  invoiceId: number | null;
  /** A sale of the invoice's balance: it charges at most what the invoice owes at submit. */
  upToOwed: boolean;
  state: StoredState;
  failedAttempts: number;
  claimedUntil: string | null;
  /** The random id of the submit's claim while one holds the session. */
  claimId: string | null;
  /** How many times a claim that ran out was taken over by another submit. */
  claimTakeovers: number;
  methodType: 'credit_card' | 'bank_account' | null;
  /** The kept card's token of our own: what paymentMethodToken shows. */
  methodToken: string | null;
  /** The card's vault token, sealed: opened only inside the gateway's call. */
  methodVaultTokenSealed: string | null;
  cardType: string | null;
  lastFour: string | null;
  nameOnCard: string | null;
  lastNameOnCard: string | null;
  expiryMonth: number | null;
  expiryYear: number | null;
  /** SecretBox-sealed JSON of the bank account's details. */
  bankAccountSealed: string | null;
  bankName: string | null;
  /** The pending 3-D Secure challenge's random id while the state is challenging. */
  challengeId: string | null;
  chargeId: string | null;
  chargeState: 'settled' | 'pending' | null;
  /** SecretBox-sealed JSON of the setup started at a hosted-fields provider. */
  providerSetupSealed: string | null;
  /** The provider's reference of the setup or sale started (its webhook names it); kept once started. */
  providerRef: string | null;
  /** When the setup was started at the provider, wall time. */
  providerStartedAt: string | null;
  customerId: number | null;
  paymentMethodId: number | null;
  paymentId: number | null;
  createdAt: string;
  expiresAt: string;
  capturedAt: string | null;
  completedAt: string | null;
  updatedAt: string;
}

/**
 * How a use case names one session: by the SessionToken the merchant's server keeps, or by its id
 * (`iframeCapturePayID`), which events carry (docs/spec-decisions.md, "Capture widget sessions", Tokens).
 */
export type CaptureSessionKey = { sessionToken: string } | { sessionId: number };

/**
 * What a session is for, as events tell it (docs/webhooks.md, "Capture sessions"): keeping a card, paying its
 * invoice, buying prepaid credit (its invoice is a top-up's), or a charge that names no invoice.
 */
export type SessionPurposeKind = 'save_card' | 'pay_invoice' | 'buy_credit' | 'charge';

/** A session as a submit's claim holds it: `claimId` is the claim's identity. */
export type ClaimedCaptureSession = CaptureSessionRecord & { claimId: string };

/** What a new session is made with; the rest starts empty. */
export type NewCaptureSession = Pick<
  CaptureSessionRecord,
  | 'accountId'
  | 'sessionToken'
  | 'hashTokenSha256'
  | 'apiKeyId'
  | 'extRef'
  | 'currencyCode'
  | 'vaultingType'
  | 'saleType'
  | 'vaultOnlyOnSuccess'
  | 'amountMinor'
  | 'gatewayId'
  | 'authDomain'
  | 'description'
  | 'invoiceId'
  | 'upToOwed'
  | 'state'
  | 'createdAt'
  | 'expiresAt'
  | 'updatedAt'
>;

/** What a session's update may set: everything but its identity and when it was made. */
export type CaptureSessionChanges = Partial<
  Omit<CaptureSessionRecord, 'id' | 'accountId' | 'sessionToken' | 'hashTokenSha256' | 'createdAt'>
>;

/** What a session is made for: the fields two sessions must share for one to serve in place of the other. */
export type CaptureSessionPurpose = Pick<
  CaptureSessionRecord,
  | 'extRef'
  | 'currencyCode'
  | 'vaultingType'
  | 'saleType'
  | 'amountMinor'
  | 'gatewayId'
  | 'authDomain'
  | 'description'
  | 'invoiceId'
  | 'vaultOnlyOnSuccess'
  | 'upToOwed'
>;
