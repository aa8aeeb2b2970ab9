import type { App } from '../../http/types.ts';
import { registerAccountRoutes } from './account.routes.ts';

/** The calling account's settings under /v1 (accounts and keys are otherwise made with the CLI). */
export function registerAccountModule(app: App): void {
  registerAccountRoutes(app);
}

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
