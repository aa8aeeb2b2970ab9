import type { AccountType } from './bankAccounts.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { DebitFrequency } from './mandates.ts';
import type { DebiCheckAuthentication, DebiCheckMandate, DebiCheckTerms } from './debiCheck.ts';

/** Where an eMandate is (docs/design/mandates.md, "Lifecycle"): the states this service reaches so far. */
export type EmandateStatus = 'pending_signature' | 'signed' | 'expired' | 'rejected' | 'cancelled';

/** How the mandate is signed: in a frame on the merchant's page, or on our page the signee is sent to. */
export type EmandateFlow = 'embedded' | 'redirect';

export interface Signee {
  name: string;
  lastName: string;
  company: string | null;
  tradingAs: string | null;
  tel: string | null;
  email: string | null;
  address1: string | null;
  address2: string | null;
  city: string | null;
  state: string | null;
  /** ISO 3166-1 alpha-3 (spec part 2, eMandate: three-letter). */
  countryIsoCode: string | null;
  postalCode: string | null;
}

/** The bank account, as everything but the signing itself sees it: only the last four digits of its number. */
export interface MandateBankAccount {
  debitMethod: 'debit_order';
  bankName: string;
  branchCode: string;
  accountHolder: string;
  lastFour: string;
  accountType: AccountType;
}

export interface DebitTerms {
  currencyCode: string;
  frequency: DebitFrequency;
  actionDay: number;
  startDate: PlainDate;
  endDate: PlainDate | null;
  amountMinor: number;
  maxAmountMinor: number;
  /** A yearly rate in percent, exact decimal text; null: never. */
  escalation: string | null;
  nameOnStatement: string;
  contractRef: string;
  variableAmounts: boolean;
}

/** The evidence of signing (docs/design/hosted-pages.md, "eMandate pages"). */
export interface SigningEvidence {
  signedAt: string;
  typedName: string;
  clientAddress: string;
  userAgent: string;
  consentText: string;
  consentSha256: string;
  documentSha256: string;
}

/** The creditor, from the account's seller details (spec part 2, eMandate: Beneficiary*). */
export interface Beneficiary {
  name: string;
  contactNumber: string | null;
  webPage: string | null;
  email: string | null;
}

/** A mandate as the service knows it: never with its token, which is stored only as a digest (emandateToken.ts). */
export interface Emandate {
  id: number;
  customerId: number | null;
  paymentMethodId: number | null;
  flow: EmandateFlow;
  /** As of the clock it was read by: an unsigned mandate past its expiry reads as expired before the sweep. */
  status: EmandateStatus;
  signee: Signee;
  bankAccount: MandateBankAccount;
  debit: DebitTerms;
  isCustomerEditable: boolean;
  isCompanySignee: boolean;
  authDomain: string | null;
  returnUrl: string | null;
  cancelUrl: string | null;
  expiresAt: string;
  /** When the signee declined (status rejected). */
  declinedAt: string | null;
  /** When the merchant cancelled it (status cancelled): docs/spec-decisions.md, "Cancelling an eMandate". */
  cancelledAt: string | null;
  createdAt: string;
  signing: SigningEvidence | null;
  beneficiary: Beneficiary;
  /** A DebiCheck mandate's terms and its bank authentication (docs/design/mandates.md, "DebiCheck"); null: ordinary. */
  debiCheck: DebiCheckMandate | null;
}

/**
 * A mandate as stored (emandate.mapper.ts makes it from its row): its status as written, with what only the service
 * reads, the sealed account number and the seed its token is derived from again (null before migration 0022).
 */
export interface EmandateRecord extends Omit<Emandate, 'beneficiary'> {
  accountNumberSealed: string;
  tokenSeed: string | null;
  /** The debtor's identity number of a DebiCheck mandate, sealed. */
  debiCheckIdSealed: string | null;
}

/** The mandate as of `now`: an unsigned mandate past its expiry reads as expired before the sweep moves it. */
export function emandateAsOf(record: EmandateRecord, now: string, beneficiary: Beneficiary): Emandate {
  const { accountNumberSealed: _sealed, tokenSeed: _seed, debiCheckIdSealed: _id, ...mandate } = record;
  const lapsed = record.status === 'pending_signature' && record.expiresAt <= now;
  return { ...mandate, status: lapsed ? 'expired' : record.status, beneficiary };
}

/** A mandate to store: created unsigned, its token kept only as a digest and a seed (emandateToken.ts). */
export interface NewEmandate {
  accountId: number;
  customerId: number | null;
  tokenSha256: string;
  tokenSeed: string;
  flow: EmandateFlow;
  status: EmandateStatus;
  signee: Signee;
  isCompanySignee: boolean;
  bankAccount: MandateBankAccount;
  accountNumberSealed: string;
  debit: DebitTerms;
  isCustomerEditable: boolean;
  authDomain: string | null;
  returnUrl: string | null;
  cancelUrl: string | null;
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
  debiCheck: DebiCheckTerms | null;
  debiCheckIdSealed: string | null;
}

/** The basic information a signee may correct while signing (isCustomerEditable). */
export type SigneeEdits = Partial<
  Pick<Signee, 'tel' | 'email' | 'address1' | 'address2' | 'city' | 'state' | 'postalCode'>
>;

/** What a step of the lifecycle changes; fields left out stay as they are. */
export interface EmandateChanges {
  signee?: SigneeEdits;
  status: EmandateStatus;
  signing?: SigningEvidence;
  declinedAt?: string;
  cancelledAt?: string;
  /** The bank's authentication of a DebiCheck mandate, as far as it changed. */
  debiCheck?: Partial<DebiCheckAuthentication>;
  /** An amendment's new instalment and maximum (docs/design/mandates.md, "DebiCheck"). */
  amounts?: { amountMinor: number; maxAmountMinor: number };
  updatedAt: string;
}
