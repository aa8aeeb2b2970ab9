/** Accounts and API keys; the calling account's settings under /v1 (account.routes.ts). Keys are made with the CLI. */
export type { Account, AccountSettingsInput, CreateAccountInput, NewApiKey } from './account.service.ts';
export type { SellerDetails, SellerDetailsInput } from './sellerDetails.ts';
export { findAccountLogo, findSellerDetails } from './sellerDetails.ts';
export type { DocumentSeller } from './documentSeller.ts';
export {
  documentSeller,
  findMailSender,
  mailSenderName,
  mailSenderNameOf,
  sellerLines,
  sellerName,
} from './documentSeller.ts';
export { LOGO_MAX_BYTES, LOGO_MAX_SIDE, printableLogo } from './logo.ts';
export type { LogoImage, PrintableLogo } from './logo.ts';
export type { KeptCredentials } from './credentialsCache.ts';
export { keepCredentialLookups } from './credentialsCache.ts';
export {
  assertTestAccount,
  authenticate,
  countAccounts,
  createAccount,
  createApiKey,
  editAccount,
  findAccountByPortalSlug,
  getAccount,
  getAccountLogo,
  getSellerDetails,
  listAccountIds,
  listApiKeys,
  revokeApiKey,
  setTestClock,
  testAccountForAdvance,
} from './account.service.ts';
/** What events show of the account and its keys (src/readModels/); the test clock announces its moves. */
export type { ApiKeyInfo } from './account.service.ts';
export { accountRef, accountsByIds, apiKeysByIds, getApiKeyAccountId } from './account.service.ts';
export { portalUrlOf, toAccountDto } from './account.serializer.ts';

/** Every event type this module emits (docs/webhooks.md lists them; a test triggers each). */
export const ACCOUNT_EVENT_TYPES = [
  'account.created',
  'account.updated',
  'api_key.created',
  'api_key.revoked',
] as const;
/** For collections' reminders: the days an invoice is reminded on when the account sets none. */
export { DEFAULT_REMINDER_DAYS } from './collectionLoopSettings.ts';
/** Going live (docs/going-live.md): the test account's own steps, called in order by the goLive module. */
export {
  copyAccountSettingsTo,
  lockTestAccountForGoLive,
  recordLiveAccountOf,
} from './liveAccount.service.ts';
