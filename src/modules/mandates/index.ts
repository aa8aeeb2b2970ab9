/**
 * eMandates (spec part 2, "eMandate" and "eMandates"; docs/design/mandates.md): a debtor's signed authority to
 * debit a bank account. Routes: emandates.routes.ts (the API) and emandatePages.routes.ts (the hosted signing
 * pages and the embedding script).
 *
 * For other modules:
 * - `getEmandate(ctx, token)`: the mandate, or NotFound (404).
 * - `emandateLinkProblem(ctx, token, account)` and `linkEmandate(ctx, token, paymentMethodId)`: a bank account
 *   added with an EMandateToken is checked against its signed mandate, then linked to it; `unlinkEmandates` when
 *   the method is deleted or given another token.
 * - `expireLapsedEmandates(ctx)`: unsigned mandates past their 24 hours become expired (the bill run's time events).
 * - `emandatesByIds(ctx, ids)` and `toEmandateDto`: how events show a mandate (its Token null).
 * - `emandateTokensOfPaymentMethods(ctx, ids)`: the token a bank account shows as its EMandateToken, derived again
 *   (only its SHA-256 is stored: emandateToken.ts).
 * - `emandatesOfCustomer(ctx, customerId)`: a customer's mandates with their tokens, for the customer portal.
 * - `emandatesOfPaymentMethods(ctx, ids)`: the mandate each bank account is linked to, which a batch's build checks
 *   its lines against (docs/design/mandates.md, "Checks at build time").
 * - `refreshDebiCheckAuthentications(ctx)`: the run asks the gateway about DebiCheck authentications still pending;
 *   `debiCheckCollectionProblem` and `debiCheckAccountReference`: what batches check and write of a DebiCheck mandate.
 * - `MandatePorts` (ports.ts): how payment methods invalidate the bank account of a cancelled mandate.
 * - `renderMandatePdf(ctx, token, 'api')` and `mandatePdfFilename(mandate)`: the signed mandate's PDF as the
 *   merchant's download gives it (the customer portal offers it on a bank account's page).
 * The signed mandate's PDF is mandatePdf.ts, served by the pages' download route.
 */
export type { Emandate, EmandateStatus } from './emandate.ts';
export {
  emandateTokensOfPaymentMethods,
  emandatesByIds,
  emandatesOfCustomer,
  emandatesOfPaymentMethods,
  expireLapsedEmandates,
  getEmandate,
} from './emandate.service.ts';
export { toEmandateDto } from './emandates.serializer.ts';
export { MANDATE_DOCUMENT, drawMandateDocument, mandatePdfFilename, renderMandatePdf } from './mandatePdf.ts';
export type { MandateDocument } from './mandatePdf.ts';
export type { MandateCancelledListener, MandatePorts } from './ports.ts';
export { cancelEmandate } from './emandateCancel.service.ts';
export type { MandatedBankAccount } from './emandateLink.service.ts';
/** DebiCheck mandates (docs/design/mandates.md, "DebiCheck"): the run asks about pending authentications. */
export { debiCheckAccountReference, refreshDebiCheckAuthentications } from './debiCheck.service.ts';
export type { DebiCheckMandate, DebiCheckStatus } from './debiCheck.ts';
export { debiCheckCollectionProblem } from './debiCheck.ts';
export {
  debiCheckDebtorOf,
  emandateLinkProblem,
  linkEmandate,
  unlinkEmandates,
} from './emandateLink.service.ts';

/** Every eMandate event type (docs/event-catalogue.md; the walk triggers each). */
export const EMANDATE_EVENT_TYPES = [
  'emandate.created',
  'emandate.signed',
  'emandate.expired',
  'emandate.updated',
  'emandate.declined',
  'emandate.cancelled',
] as const;
export type { AccountType, DebitMethod } from './bankAccounts.ts';
export {
  ACCOUNT_NUMBER_MAX_DIGITS,
  ACCOUNT_NUMBER_MIN_DIGITS,
  ACCOUNT_TYPES,
  DEBIT_METHODS,
  accountNumberDigits,
  accountTypeOf,
  bicCountryProblem,
  bicProblem,
  debitMethodOf,
  ibanProblem,
  isValidBic,
  isValidBranchCode,
  isValidRoutingNumber,
  lastFour,
  mod97,
  normalizeBic,
  normalizeIban,
} from './bankAccounts.ts';
export type { ActionDatePlan, MandateTerms } from './mandateChecks.ts';
export {
  collectionPeriod,
  collectionTermsProblem,
  instalmentOn,
  mandatedActionDate,
  mayCollectTogether,
  periodOfActionDate,
  plannedActionDate,
  scheduledDateOf,
} from './mandateChecks.ts';
export { SEPA_CHARACTERS, SEPA_MAX_ID, mandateReferenceProblem, sepaIdProblem } from './sepaIdentifiers.ts';
