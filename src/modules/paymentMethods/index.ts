/**
 * Customers' stored payment methods: cards (kept in the gateway's vault) and bank accounts (sealed at rest).
 * Routes: paymentMethods.routes.ts.
 *
 * For other modules:
 * - `assertPaymentMethodUsable(ctx, { customerId, paymentMethodId, gateway?, kind? }, field)`: the check of an
 *   invoice's or recurring invoice's customerPaymentMethodID (422 naming `field`).
 * - `primaryPaymentMethodsOf(ctx, customerIds)`: each customer's primary method id and token, in one statement;
 *   `primaryPaymentMethodFigure`, the same as a customer's PrimaryPaymentMethodInfo, read with the customer.
 * - `deletePaymentMethodsOfCustomer(ctx, customerId)`: inside the transaction that deletes the customer (the flow
 *   src/flows/deleteCustomer.ts).
 * - `getPaymentMethod(ctx, id)`: the full method, or NotFound (404).
 * - `bankAccountProblems(details)`, `addBankAccount(ctx, input)`: a bank account checked before its customer is
 *   known (the capture widget), then added for the customer (in the caller's transaction).
 * - `followBankAccountVerifications(ctx)`: the run's step that asks the gateway again about bank accounts whose
 *   verification with the debtor's bank is pending, and records its answers.
 * - `addVaultedCard(ctx, card)`: a card the hosted widget vaulted before its customer was known, kept for the
 *   customer (in the caller's transaction), under the token of our own the session showed
 *   (`newPaymentMethodToken`); the vault's token stays sealed (docs/gateways.md, "Provider tokens are sealed").
 * - `listPaymentMethods(ctx, page, customerId)`, `setPrimaryPaymentMethod(ctx, id)`: the API's list and make-primary
 *   (which retries failed invoices through the new-primary port), for the customer portal's page of payment methods.
 * - `deletePaymentMethodRecord(ctx, id, records)`: the delete, given what higher modules keep that names the method,
 *   in the transaction of the flow that counted it (src/flows/deletePaymentMethod.ts).
 * - `PaymentMethodPorts` (ports.ts): who retries failed invoices with a new primary method.
 */
/** Payment methods' mandate references, joined by other modules' statements (docs/architecture.md, "Tables and their owners"). */
export { paymentMethodMandates } from './paymentMethodMandates.ts';
export type { PaymentMethod } from './paymentMethod.ts';
export { newPaymentMethodToken } from './paymentMethod.ts';
export {
  assertPaymentMethodUsable,
  deletePaymentMethodRecord,
  deletePaymentMethodsOfCustomer,
  getPaymentMethod,
  invalidatePaymentMethod,
  listPaymentMethods,
  openedPaymentMethodsByIds,
  primaryPaymentMethodFigure,
  primaryPaymentMethodsOf,
  setPrimaryPaymentMethod,
  unopenedPaymentMethodsByIds,
} from './paymentMethod.service.ts';
export type { PaymentMethodRecords } from './paymentMethod.service.ts';
export type { BankAccountInput } from './bankAccount.service.ts';
export { addBankAccount, bankAccountIdentity, bankAccountProblems } from './bankAccount.service.ts';
/**
 * For batches' run, before it bundles: pending account verifications asked again (docs/gateways/netcash.md,
 * "Account verification").
 */
export { followBankAccountVerifications } from './bankAccountVerification.service.ts';
export type { VaultedCardInput } from './card.service.ts';
export { addVaultedCard } from './card.service.ts';
export { toPaymentMethodDto } from './paymentMethods.serializer.ts';
export type { NewPrimaryListener, NewPrimaryMethod, PaymentMethodPorts } from './ports.ts';
/** Every payment method event type (ValidateBankAccount's verdict on a stored account is a payment_method.updated). */
export const PAYMENT_METHOD_EVENT_TYPES = [
  'payment_method.created',
  'payment_method.updated',
  'payment_method.primary_changed',
  'payment_method.deleted',
] as const;
