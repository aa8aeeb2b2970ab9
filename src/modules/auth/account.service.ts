import crypto from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../storage/database.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import { isTimeZone } from '../../core/wireDates.ts';
import { isCurrencyCode } from '../../core/currencies.ts';
import { enableAccountCurrency } from '../catalogue/index.ts';
import * as repo from './account.repository.ts';
import type { AccountRow } from './account.repository.ts';

export interface Account {
  id: number;
  name: string;
  timeZone: string;
  currencyCode: string;
}

export function accountFromRow(row: AccountRow): Account {
  return { id: row.id, name: row.name, timeZone: row.time_zone, currencyCode: row.currency_code };
}

const KEY_PREFIX = 'bk_';

/** Keys carry 192 random bits, so one SHA-256 is a safe and fast lookup hash (a slow hash guards guessable secrets). */
export function hashApiKey(key: string): string {
  return crypto.createHash('sha256').update(key).digest('hex');
}

export interface NewApiKey {
  keyId: number;
  apiKey: string;
}

export async function createApiKey(db: Db, clock: Clock, accountId: number): Promise<NewApiKey> {
  if (!(await repo.findAccount(db, accountId))) throw new NotFoundError('Account', accountId);
  const apiKey = KEY_PREFIX + crypto.randomBytes(24).toString('base64url');
  const keyId = await repo.insertApiKey(db, {
    accountId,
    keyHash: hashApiKey(apiKey),
    keyPrefix: apiKey.slice(0, KEY_PREFIX.length + 6),
    createdAt: clock.now().toISOString(),
  });
  return { keyId, apiKey };
}

export interface CreateAccountInput {
  name: string;
  timeZone?: string;
  currencyCode?: string;
}

export async function createAccount(
  db: Db,
  clock: Clock,
  input: CreateAccountInput,
): Promise<{ account: Account } & NewApiKey> {
  const name = input.name.trim();
  const timeZone = input.timeZone ?? 'UTC';
  const currencyCode = (input.currencyCode ?? 'USD').toUpperCase();
  if (name === '') throw ValidationError.field('name', 'must not be blank');
  if (!isTimeZone(timeZone))
    throw ValidationError.field('timeZone', `"${timeZone}" is not an IANA time zone`);
  if (!isCurrencyCode(currencyCode)) {
    throw ValidationError.field('currency', `"${currencyCode}" is not an ISO 4217 currency code`);
  }
  return db.transaction().execute(async (trx) => {
    const createdAt = clock.now().toISOString();
    const id = await repo.insertAccount(trx, { name, timeZone, currencyCode, createdAt });
    await enableAccountCurrency(trx, id, currencyCode, createdAt);
    const key = await createApiKey(trx, clock, id);
    return { account: { id, name, timeZone, currencyCode }, ...key };
  });
}

export async function revokeApiKey(db: Db, clock: Clock, keyId: number): Promise<void> {
  if (!(await repo.markApiKeyRevoked(db, keyId, clock.now().toISOString()))) {
    throw new ConflictError('api_key_not_live', `API key ${keyId} does not exist or is already revoked`);
  }
}

/** Resolves presented credentials to their account. With Basic auth the user name must be that account's id. */
export async function authenticate(
  db: Db,
  credentials: { apiKey: string; accountId?: number },
): Promise<Account | undefined> {
  const row = await repo.findAccountByKeyHash(db, hashApiKey(credentials.apiKey));
  if (!row || (credentials.accountId !== undefined && credentials.accountId !== row.id)) return undefined;
  return accountFromRow(row);
}

export const { countAccounts, listApiKeys } = repo;
