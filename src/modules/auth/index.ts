/** Accounts and API keys; the calling account's settings under /v1 (account.routes.ts). Keys are made with the CLI. */
export type { Account, AccountSettingsInput, CreateAccountInput, NewApiKey } from './account.service.ts';
export {
  authenticate,
  countAccounts,
  createAccount,
  createApiKey,
  editAccount,
  getAccount,
  listAccountIds,
  listApiKeys,
  revokeApiKey,
  setTestClock,
  testAccountForAdvance,
} from './account.service.ts';
