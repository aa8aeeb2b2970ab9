/** Payment gateways configured per account; every account has the built-in test gateway. Routes: gateways.routes.ts. */
export type {
  AddGatewayInput,
  Gateway,
  PaymentMethodKind,
  SealedChargeRequest,
  StoredChargeResult,
  TestGatewayPolicy,
} from './gateway.service.ts';
export type {
  BatchLineReport,
  BatchLineToSubmit,
  BatchStatus,
  BatchToSubmit,
  BankAccountToValidate,
  BankValidationResult,
  CardSetupResult,
  CardToVault,
  ChargeEvent,
  DebiCheckAnswer,
  DebiCheckChange,
  DebiCheckToAuthenticate,
  ChargeRequest,
  ChargeResult,
  HostedFields,
  PayerDetails,
  RefundResult,
  WebhookRequest,
} from './gatewayContract.ts';
export { GatewayTimeoutError } from './gatewayContract.ts';
export type { SealedCardSetupRequest, SealedCardSetupResult } from './gatewayProviders.service.ts';
/** Netcash's web services on the wire (SOAP 1.1), for the netcash driver and the tests' stand-in of Netcash. */
export type { NiwsService } from './netcash/niwsClient.ts';
export {
  NIWS_NAMESPACE,
  NIWS_SERVICES,
  NiwsFaultError,
  escapeXml,
  niwsAction,
  niwsClient,
} from './netcash/niwsClient.ts';
/**
 * For other modules:
 * - `getGateway(ctx, gatewayId)`: the account's gateway, or NotFound (404).
 * - `assertGatewayUsable(ctx, gatewayId, field)`: the gateway, or a ValidationError (422) naming `field` when
 *   the account has no such gateway or it is disabled or inactive.
 * - `gatewayAccepts(gateway, 'credit_card' | 'bank_account')`: whether it collects from that kind of method.
 * - `isGatewayUsable(gateway)`: active and enabled.
 * - `findPrimaryGateway(ctx)`: the account's primary gateway, or undefined when it has none usable.
 * - `usableGatewayByToken(ctx, token, field, problems)`: the usable gateway a request names by GatewayToken, or
 *   undefined with a problem naming `field`.
 * - `createTestGateway(db, account, createdAt, deployment)`: the built-in test gateway, inside account creation;
 *   `isTestGatewayOfLiveAccount`, `testGatewayOnLiveWords`: a live account's test gateway, which moves no money,
 *   and what to say of it (docs/gateways.md, "Live means live").
 * - `canVaultCards(gateway)`, `vaultCard(ctx, gateway, card, field)`: hands a card number to the gateway's vault
 *   and returns its token, sealed (422 naming `field` when the gateway's type has no vault or the provider declines
 *   it). Vault tokens leave and enter this module sealed only; they are opened for the driver's call
 *   (docs/gateways.md, "Provider tokens are sealed").
 * - `usesHostedFields(gateway)`, `startCardSetup`, `completeCardSetup`: a card saved (or a sale made) in the
 *   provider's own hosted fields, its outcome asked of the provider server-side (docs/hosted-pages.md).
 * - `canCharge(gateway)`, `chargeStoredMethod(ctx, gateway, request)`: an off-session charge of a vaulted method,
 *   idempotent by the request's key (GatewayTimeoutError when no answer came); a charge that needs the customer is
 *   their decline. `findChargeByKey`: the charge made under a key, beyond the provider's window.
 *   Every call is recorded (gateway_calls), outside any transaction.
 * - `findGatewayForWebhook(db, token)`, `readGatewayWebhook(ctx, gateway, request)`: a provider's webhook,
 *   verified with its scheme and read into late events (`ChargeEvent`), which collections applies.
 * - `checkGatewaySettings`: the gateway's keys tried with its provider (the CLI's check).
 * - `collectsBatches`, `makesBankFiles`, `gatewaySettings`, `submitBatchToGateway`, `readBatchReports`: payment
 *   batches through a provider, or as bank files made with the creditor details in the gateway's settings;
 *   `takesBatchFiles`, `readBatchStatus`: a file its provider takes itself (Netcash's web service) and its load
 *   report; `readsStatements`, `requestStatementAtGateway`, `retrieveStatementAtGateway`: the provider's daily
 *   statement, asked for and fetched by its polling id (docs/gateways/netcash.md, "Statements").
 * For the CLI: `addGateway`, `listGateways`, `setGatewayEnabled`, `setPrimaryGateway`, `getGatewayAccountId`;
 * `addCheckedGateway`, `billing gateway add`: enabled only once its provider took its settings.
 */
export type { AddedGateway, AddedGatewayCheck } from './gatewayAdding.service.ts';
export { addCheckedGateway } from './gatewayAdding.service.ts';
export {
  addGateway,
  assertGatewayUsable,
  canCharge,
  canVaultCards,
  chargeStoredMethod,
  createTestGateway,
  findChargeByKey,
  findPrimaryGateway,
  gatewayAccepts,
  getGateway,
  getGatewayAccountId,
  isGatewayUsable,
  isTestGatewayOfLiveAccount,
  listGateways,
  readChargeEvents,
  refundCharge,
  setGatewayEnabled,
  setGatewaySettings,
  setPrimaryGateway,
  testGatewayOnLiveWords,
  usableGatewayByToken,
  validateBankAccountAtGateway,
  vaultCard,
} from './gateway.service.ts';
export {
  capturesCards,
  checkGatewaySettings,
  completeCardSetup,
  findGatewayForWebhook,
  hostedFieldsOf,
  readGatewayWebhook,
  startCardSetup,
  usesHostedFields,
} from './gatewayProviders.service.ts';
export {
  cancelBatchAtGateway,
  collectsBatches,
  makesBankFiles,
  readBatchReports,
  readBatchStatus,
  readsStatements,
  requestStatementAtGateway,
  retrieveStatementAtGateway,
  submitBatchToGateway,
  takesBatchFiles,
} from './gatewayBatches.service.ts';
export { gatewaySettings } from './gatewayDrivers.ts';
/** For payment methods: a new bank account verified before its first debit, and a bank's later answer. */
export { bankValidationOutcomeAtGateway, verifiesNewBankAccounts } from './bankVerification.service.ts';
/** DebiCheck mandates through a gateway's provider (docs/gateways/netcash.md, "DebiCheck"). */
export {
  amendDebiCheckAtGateway,
  authenticateDebiCheckAtGateway,
  cancelDebiCheckAtGateway,
  debiCheckStatusAtGateway,
  registersDebiCheck,
} from './gatewayDebiCheck.service.ts';
/** What events show of gateways (src/readModels/); account creation announces its test gateway. */
export { gatewayRef, gatewaysByIds } from './gateway.service.ts';

/** Every event type this module emits (docs/webhooks.md lists them; a test triggers each). */
export const GATEWAY_EVENT_TYPES = ['gateway.created', 'gateway.updated'] as const;
export { toGatewayDto } from './gateways.serializer.ts';
export { GATEWAY_TYPE_NAMES } from './gatewayTypes.ts';
export { chargeEventsReadOn } from './gatewayCalls.ts';
export type { CardType } from './cards.ts';
export {
  CARD_NUMBER_MAX_DIGITS,
  CARD_NUMBER_MIN_DIGITS,
  CARD_TYPES,
  cardDigits,
  cardTypeOf,
  cardTypesOf,
  isLuhnValid,
  matchesCardType,
} from './cards.ts';
export type { FailureReason, RetryClass } from './failureReasons.ts';
export { FAILURE_REASONS, retryClassOf } from './failureReasons.ts';
export { isNetcashKey } from './netcash/netcashKey.ts';
