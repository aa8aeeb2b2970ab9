export type { Account, CreateAccountInput, NewApiKey } from './account.service.ts';
export {
  authenticate,
  countAccounts,
  createAccount,
  createApiKey,
  listApiKeys,
  revokeApiKey,
} from './account.service.ts';
