import crypto from 'node:crypto';
import { createLogger } from '../../logger.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../storage/database.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import { ConflictError, NotAllowedError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { isTimeZone } from '../../core/wireDates.ts';
import { billCycleDayProblem } from '../../core/billCycleDayInput.ts';
import { isCurrencyCode } from '../../core/currencies.ts';
import { optionalText } from '../../core/text.ts';
import { isStatementPeriod, STATEMENT_PERIODS } from '../../core/periods.ts';
import { contextFor, withTransaction } from '../../context.ts';
import type { Account, Actor, Clocks, ServiceContext, ServiceMemory, VatSettings } from '../../context.ts';
import type { SecretBox } from '../../security/secretBox.ts';
import { currencyRef, enableAccountCurrency, packagesByIds } from '../catalogue/index.ts';
import { emitEvent, emitEvents, snapshotResource } from '../events/index.ts';
import { createTestGateway, gatewayRef } from '../gateways/index.ts';
import type { TestGatewayPolicy } from '../gateways/index.ts';
import * as repo from './account.repository.ts';
import { topUpLimitsChange } from './topUpLimits.ts';
import type { TopUpLimitInput } from './topUpLimits.ts';
import { MAX_PAUSE_DAYS_MAX, MAX_PAUSES_PER_YEAR_MAX } from './account.ts';
import type { AccountChanges, ApiKeyInfo } from './account.ts';
import { findAccountLogo, findSellerDetails, sellerChanges } from './sellerDetails.ts';
import type { SellerDetails, SellerDetailsInput } from './sellerDetails.ts';
import type { LogoImage } from './logo.ts';
import { collectionLoopChanges } from './collectionLoopSettings.ts';
import type { CollectionLoopInput } from './collectionLoopSettings.ts';

export type { Account };
export type { ApiKeyInfo } from './account.ts';

const KEY_PREFIX = 'bk_';

/**
 * Keys carry 192 random bits, so one SHA-256 is a safe and fast lookup hash (a slow hash guards guessable secrets).
 * Every authenticated request hashes its key: the one-shot `crypto.hash` makes no Hash object (a third of the time).
 */
export function hashApiKey(key: string): string {
  return crypto.hash('sha256', key, 'hex');
}

export interface NewApiKey {
  keyId: number;
  apiKey: string;
}

export const accountRef = (id: number) => ({ type: 'account', id });
export const apiKeyRef = (id: number) => ({ type: 'api_key', id });

async function insertApiKey(db: Db, accountId: number, createdAt: string): Promise<NewApiKey> {
  const apiKey = KEY_PREFIX + crypto.randomBytes(24).toString('base64url');
  const keyId = await repo.insertApiKey(db, {
    accountId,
    keyHash: hashApiKey(apiKey),
    keyPrefix: apiKey.slice(0, KEY_PREFIX.length + 6),
    createdAt,
  });
  return { keyId, apiKey };
}

/** A new key for the context's account (the CLI's `key create`); the event shows its prefix, never the key. */
export function createApiKey(ctx: ServiceContext): Promise<NewApiKey> {
  return withTransaction(ctx, async (tctx) => {
    const key = await insertApiKey(tctx.db, ctx.account.id, ctx.clock.now().toISOString());
    await emitEvent(tctx, 'api_key.created', apiKeyRef(key.keyId));
    return key;
  });
}

const NO_SECRETS: SecretBox = {
  seal: () => {
    throw new Error('no secrets while an account is created');
  },
  open: () => {
    throw new Error('no secrets while an account is created');
  },
  fingerprint: () => {
    throw new Error('no secrets while an account is created');
  },
};

/** What making an account needs of its caller's process: its clocks, and the modules' ports its events render with. */
export type AccountMaking = Clocks & Pick<ServiceContext, 'ports'>;

/**
 * The context of an account's creation, for its events: the account exists only inside the transaction making
 * it, so no caller can hand one in. Events read nothing but the database and the clock.
 */
function creationContext(
  db: Db,
  clocks: AccountMaking,
  account: Account,
  actor: Actor | undefined,
): ServiceContext {
  const log = createLogger('silent', process.stderr) as unknown as FastifyBaseLogger;
  // The clocks alone: a caller's `clocks` may be its whole deps, whose `db` is not this transaction.
  const { clock, wallClock, ports } = clocks;
  return contextFor({ db, clock, wallClock, log, secrets: NO_SECRETS, ports, actor }, account);
}

export interface CreateAccountInput {
  name: string;
  timeZone?: string;
  currencyCode?: string;
  /** A test account, with its own clock for time travel. */
  isTest?: boolean;
}

/** What the deployment allows of the built-in test gateway (TEST_GATEWAY_ON_LIVE_ACCOUNTS, src/config.ts). */
export type AccountDeployment = TestGatewayPolicy;

/**
 * Makes an account with its currency, the built-in test gateway and a first key; each is announced by its own
 * event (`account.created` first), audited as the actor's when one is given (the CLI). A live account's test
 * gateway starts disabled unless the deployment allows it (docs/gateways.md, "Live means live").
 */
export async function createAccount(
  db: Db,
  clocks: AccountMaking,
  input: CreateAccountInput,
  deployment?: AccountDeployment,
  actor?: Actor,
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
  // In the caller's transaction when it has one: a go-live makes the live account with what it copies into it.
  const inTransaction = <T>(work: (trx: Db) => Promise<T>) =>
    db.isTransaction ? work(db) : db.transaction().execute(work);
  return inTransaction(async (trx) => {
    const createdAt = clocks.clock.now().toISOString();
    const isTest = input.isTest ?? false;
    const id = await repo.insertAccount(trx, { name, timeZone, currencyCode, createdAt, isTest });
    await enableAccountCurrency(trx, id, currencyCode, createdAt);
    const gatewayId = await createTestGateway(trx, { id, isTest }, createdAt, deployment);
    const key = await insertApiKey(trx, id, createdAt);
    const account = (await repo.findAccount(trx, id))!;
    await emitEvents(creationContext(trx, clocks, account, actor), [
      { type: 'account.created', ref: accountRef(id) },
      { type: 'currency.added', ref: currencyRef(currencyCode) },
      { type: 'gateway.created', ref: gatewayRef(gatewayId) },
      { type: 'api_key.created', ref: apiKeyRef(key.keyId) },
    ]);
    return { account, ...key };
  });
}

/** The account by id, for operator commands (requests get theirs from their credentials). */
export async function getAccount(db: Db, accountId: number): Promise<Account> {
  const account = await repo.findAccount(db, accountId);
  if (!account) throw new NotFoundError('Account', accountId);
  return account;
}

export const INVOICE_DUE_DAYS_MAX = 3650;
export const INVOICE_TEXT_MAX = 10_000;

/** The account's settings as a change gives them: undefined keeps a value, null (or blank text) clears it. */
export interface AccountSettingsInput extends CollectionLoopInput {
  timeZone?: string;
  invoiceDueDays?: number;
  invoiceNotes?: string | null;
  invoiceTerms?: string | null;
  /** Who issues the invoices (sellerDetails.ts). */
  seller?: SellerDetailsInput;
  /** null resets the retry days or attempts to the defaults. */
  dunningRetryDays?: number[] | null;
  dunningMaxAttempts?: number | null;
  dunningSuspendCustomer?: boolean;
  dunningCancelSubscriptions?: boolean;
  /** How often automatic statements go out. */
  statementPeriod?: string;
  /** The customer portal's slug (docs/portal.md, "Setting up"); null clears it. */
  portalSlug?: string | null;
  /** Whether portal customers may cancel at period end (docs/portal.md, "What customers may change"). */
  portalAllowCancel?: boolean;
  /** Whether portal customers may buy prepaid credit (docs/portal.md, "Prepaid credit"). */
  portalAllowTopUps?: boolean;
  /** Pausing in the portal (docs/portal.md, "Pausing"): whether, how long at most, how often in 365 days. */
  portalPause?: boolean;
  maxPauseDays?: number;
  maxPausesPerYear?: number;
  /** How much they may buy at once, per currency; null: the defaults everywhere. */
  portalTopUpLimits?: TopUpLimitInput[] | null;
  /** The packages portal customers may switch to; each must be one of the account's. */
  portalSwitchPackageIds?: number[];
  /** The default of the account's prices: whether they include tax (docs/pricing.md, "Tax-inclusive prices"). */
  isTaxInclusive?: boolean;
  /** The default bill-cycle day of the account's customers; null clears it. */
  billCycleDay?: number | null;
  /** How many hours late a usage event may arrive (docs/usage.md, "Grace and late events"). */
  usageGraceHours?: number;
  /** Whether customers are e-mailed when a usage alert fires (docs/usage.md, "Alerts"). */
  usageAlertEmails?: boolean;
  /** How prepaid credit sold from now on is taxed, and the VAT report's basis (docs/tax.md). */
  prepaidCreditVat?: VatSettings['prepaidCredit'];
  vatBasis?: VatSettings['basis'];
  /** What customers are told (docs/tax.md, "What customers are told"). */
  sendCreditNotes?: boolean;
  sendRefundNotices?: boolean;
  sendLowBalanceAlerts?: boolean;
  sendCancellationNotices?: boolean;
  sendPauseNotices?: boolean;
  copyNoticesToStaff?: boolean;
}

export const DUNNING_RETRY_DAYS_MAX = 10;
export const DUNNING_RETRY_DAY_MAX = 90;
export const DUNNING_MAX_ATTEMPTS_MAX = 20;

function dunningChanges(input: AccountSettingsInput, problems: FieldProblem[]): AccountChanges {
  const changes: AccountChanges = {};
  const days = input.dunningRetryDays;
  if (days !== undefined) {
    // Each a later day than the one before: a schedule counted from the first failure.
    const increasing = days?.every((day, i) => i === 0 || day > days[i - 1]!) ?? true;
    if (
      days !== null &&
      (days.length > DUNNING_RETRY_DAYS_MAX ||
        !increasing ||
        days.some((day) => !Number.isSafeInteger(day) || day < 1 || day > DUNNING_RETRY_DAY_MAX))
    ) {
      problems.push({
        field: 'DunningRetryDays',
        message: `must be at most ${DUNNING_RETRY_DAYS_MAX} whole days from 1 to ${DUNNING_RETRY_DAY_MAX}, each later than the one before`,
      });
    }
    changes.dunningRetryDays = days;
  }
  const attempts = input.dunningMaxAttempts;
  if (attempts !== undefined) {
    if (
      attempts !== null &&
      (!Number.isSafeInteger(attempts) || attempts < 1 || attempts > DUNNING_MAX_ATTEMPTS_MAX)
    ) {
      problems.push({
        field: 'DunningMaxAttempts',
        message: `must be a whole number from 1 to ${DUNNING_MAX_ATTEMPTS_MAX}`,
      });
    }
    changes.dunningMaxAttempts = attempts;
  }
  if (input.dunningSuspendCustomer !== undefined)
    changes.dunningSuspendCustomer = input.dunningSuspendCustomer;
  if (input.dunningCancelSubscriptions !== undefined)
    changes.dunningCancelSubscriptions = input.dunningCancelSubscriptions;
  return changes;
}

/**
 * The portal's pause limits (docs/portal.md, "Pausing"), checked here as well as by the wire schema: the CLI's
 * `account set` reaches them without it.
 */
function pauseLimitChanges(input: AccountSettingsInput, problems: FieldProblem[]): AccountChanges {
  const changes: AccountChanges = {};
  for (const [field, key, max] of [
    ['MaxPauseDays', 'maxPauseDays', MAX_PAUSE_DAYS_MAX],
    ['MaxPausesPerYear', 'maxPausesPerYear', MAX_PAUSES_PER_YEAR_MAX],
  ] as const) {
    const value = input[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1 || value > max)
      problems.push({ field, message: `must be a whole number from 1 to ${max}` });
    changes[key] = value;
  }
  return changes;
}

export const PORTAL_SLUG_MAX = 63;
/** docs/portal.md, "Setting up": lowercase letters, digits and single hyphens inside, as a host name's label. */
const PORTAL_SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

function portalSlugChange(slug: string | null, problems: FieldProblem[]): string | null {
  const text = optionalText(slug) ?? null;
  if (text !== null && (text.length > PORTAL_SLUG_MAX || !PORTAL_SLUG.test(text))) {
    problems.push({
      field: 'PortalSlug',
      message: `must be at most ${PORTAL_SLUG_MAX} lowercase letters, digits and hyphens, starting and ending with a letter or digit`,
    });
  }
  return text;
}

const portalSlugTaken = (slug: string) =>
  new ConflictError('portal_slug_taken', `The portal slug "${slug}" belongs to another account`);

async function assertPortalSlugFree(db: Db, accountId: number, slug: string): Promise<void> {
  const holder = await repo.findAccountIdByPortalSlug(db, slug);
  if (holder !== undefined && holder !== accountId) throw portalSlugTaken(slug);
}

/** The update, with a slug taken by a concurrent request (the unique index) a 409 like one taken before. */
async function updateAccountRow(
  ctx: ServiceContext,
  accountId: number,
  changes: AccountChanges,
): Promise<boolean> {
  try {
    return await repo.updateAccount(ctx.db, ctx.memory, accountId, changes);
  } catch (error) {
    if (changes.portalSlug && isUniqueViolation(error)) throw portalSlugTaken(changes.portalSlug);
    throw error;
  }
}

export const PORTAL_SWITCH_PACKAGES_MAX = 50;

/**
 * The packages portal customers may switch to: each one of the account's own (another account's id, like an
 * unknown one, is refused), kept once each in the order given.
 */
async function switchPackageIdsChange(
  ctx: ServiceContext,
  ids: number[],
  problems: FieldProblem[],
): Promise<number[]> {
  const unique = [...new Set(ids)];
  if (unique.length > PORTAL_SWITCH_PACKAGES_MAX) {
    problems.push({
      field: 'PortalSwitchPackageIDs',
      message: `must name at most ${PORTAL_SWITCH_PACKAGES_MAX} packages`,
    });
    return unique;
  }
  const found = await packagesByIds(ctx, unique);
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length > 0) {
    problems.push({
      field: 'PortalSwitchPackageIDs',
      message: `names packages that do not exist: ${missing.join(', ')}`,
    });
  }
  return unique;
}

/** The account whose portal has this slug (the portal's pages are found by it). */
export async function findAccountByPortalSlug(db: Db, slug: string): Promise<Account | undefined> {
  const id = await repo.findAccountIdByPortalSlug(db, slug);
  return id === undefined ? undefined : getAccount(db, id);
}

/** The settings the wire schema checks in full (account.schemas.ts): switches and a range, taken as given. */
function checkedBySchema(input: AccountSettingsInput): AccountChanges {
  const changes: AccountChanges = {};
  if (input.portalAllowCancel !== undefined) changes.portalAllowCancel = input.portalAllowCancel;
  if (input.portalAllowTopUps !== undefined) changes.portalAllowTopUps = input.portalAllowTopUps;
  if (input.isTaxInclusive !== undefined) changes.isTaxInclusive = input.isTaxInclusive;
  if (input.usageGraceHours !== undefined) changes.usageGraceHours = input.usageGraceHours;
  if (input.usageAlertEmails !== undefined) changes.usageAlertEmails = input.usageAlertEmails;
  if (input.prepaidCreditVat !== undefined) changes.prepaidCreditVat = input.prepaidCreditVat;
  if (input.vatBasis !== undefined) changes.vatBasis = input.vatBasis;
  if (input.portalPause !== undefined) changes.portalPause = input.portalPause;
  for (const key of [
    'sendCreditNotes',
    'sendRefundNotices',
    'sendLowBalanceAlerts',
    'sendCancellationNotices',
    'sendPauseNotices',
    'copyNoticesToStaff',
  ] as const)
    if (input[key] !== undefined) changes[key] = input[key];
  return changes;
}

/**
 * Changes the account's settings, its seller details and logo at once or not at all. Problems are keyed by the
 * wire names of PUT /v1/account. A new time zone applies to billing dates computed from now on; dates already
 * stored stay as they are.
 */
export async function editAccount(ctx: ServiceContext, input: AccountSettingsInput): Promise<Account> {
  const problems: FieldProblem[] = [];
  const changes: AccountChanges = {};
  if (input.timeZone !== undefined) {
    const timeZone = input.timeZone.trim();
    if (timeZone === '' || !isTimeZone(timeZone)) {
      problems.push({ field: 'TimeZone', message: `"${input.timeZone}" is not an IANA time zone` });
    }
    changes.timeZone = timeZone;
  }
  if (input.invoiceDueDays !== undefined) {
    const days = input.invoiceDueDays;
    if (!Number.isSafeInteger(days) || days < 0 || days > INVOICE_DUE_DAYS_MAX) {
      problems.push({
        field: 'InvoiceDueDays',
        message: `must be a whole number from 0 to ${INVOICE_DUE_DAYS_MAX}`,
      });
    }
    changes.invoiceDueDays = days;
  }
  for (const [field, key, value] of [
    ['InvoiceNotes', 'invoiceNotes', input.invoiceNotes],
    ['InvoiceTerms', 'invoiceTerms', input.invoiceTerms],
  ] as const) {
    const text = optionalText(value);
    if (text && text.length > INVOICE_TEXT_MAX) {
      problems.push({ field, message: `must be at most ${INVOICE_TEXT_MAX} characters` });
    }
    if (text !== undefined) changes[key] = text;
  }
  if (input.statementPeriod !== undefined) {
    if (!isStatementPeriod(input.statementPeriod)) {
      problems.push({ field: 'StatementPeriod', message: `must be one of ${STATEMENT_PERIODS.join(', ')}` });
    }
    changes.statementPeriod = input.statementPeriod;
  }
  if (input.portalSlug !== undefined) changes.portalSlug = portalSlugChange(input.portalSlug, problems);
  if (input.portalTopUpLimits !== undefined)
    changes.portalTopUpLimits = topUpLimitsChange(input.portalTopUpLimits, problems);
  if (input.portalSwitchPackageIds !== undefined) {
    changes.portalSwitchPackageIds = await switchPackageIdsChange(
      ctx,
      input.portalSwitchPackageIds,
      problems,
    );
  }
  if (input.billCycleDay !== undefined) {
    const message = billCycleDayProblem(input.billCycleDay, true);
    if (message) problems.push({ field: 'BillCycleDay', message });
    changes.billCycleDay = input.billCycleDay;
  }
  const seller = sellerChanges(input.seller ?? {}, problems);
  Object.assign(
    changes,
    checkedBySchema(input),
    seller.changes,
    dunningChanges(input, problems),
    pauseLimitChanges(input, problems),
    collectionLoopChanges(input, ctx.account.currencyCode, problems),
  );
  if (problems.length) throw new ValidationError(problems);
  const accountId = ctx.account.id;
  return withTransaction(ctx, async (tctx) => {
    const trx = tctx.db;
    const before = await snapshotResource(tctx, accountRef(accountId));
    if (changes.portalSlug) await assertPortalSlugFree(trx, accountId, changes.portalSlug);
    if (Object.keys(changes).length > 0 && !(await updateAccountRow(tctx, accountId, changes))) {
      throw new NotFoundError('Account', accountId);
    }
    // docs/portal.md, "Setting up": a slug set, changed or cleared ends the portal's sessions and unused links, so
    // that setting the slug again does not bring them back (the portal compares the epoch on every use).
    if (changes.portalSlug !== undefined && changes.portalSlug !== ctx.account.portalSlug) {
      await repo.bumpPortalEpoch(trx, ctx.memory, accountId);
    }
    if (seller.logo === null) await repo.deleteLogo(trx, accountId);
    else if (seller.logo) {
      await repo.saveLogo(trx, accountId, { ...seller.logo, updatedAt: ctx.clock.now().toISOString() });
    }
    // NOTE: the account's object shows whether it has a logo (LogoURL), not which: replacing one logo by another
    // changes nothing it shows, so it writes no event.
    await emitEvent(tctx, 'account.updated', accountRef(accountId), { before });
    return getAccount(trx, accountId);
  });
}

/** The calling account's seller details. */
export async function getSellerDetails(ctx: ServiceContext): Promise<SellerDetails> {
  const seller = await findSellerDetails(ctx.db, ctx.account.id);
  if (!seller) throw new NotFoundError('Account', ctx.account.id);
  return seller;
}

/** The calling account's logo; not found when it has none. */
export async function getAccountLogo(ctx: ServiceContext): Promise<LogoImage> {
  const logo = await findAccountLogo(ctx.db, ctx.account.id);
  if (!logo) throw new NotFoundError('Logo', ctx.account.id);
  return logo;
}

const keyNotLive = (keyId: number) =>
  new ConflictError('api_key_not_live', `API key ${keyId} does not exist or is already revoked`);

/** Operators name a key by id alone: the account it belongs to, to revoke it in that account's context. */
export async function getApiKeyAccountId(db: Db, keyId: number): Promise<number> {
  const accountId = await repo.findApiKeyAccountId(db, keyId);
  if (accountId === undefined) throw keyNotLive(keyId);
  return accountId;
}

export function revokeApiKey(ctx: ServiceContext, keyId: number): Promise<void> {
  return withTransaction(ctx, async (tctx) => {
    const before = await snapshotResource(tctx, apiKeyRef(keyId));
    if (
      !(await repo.markApiKeyRevoked(
        tctx.db,
        ctx.memory,
        ctx.account.id,
        keyId,
        ctx.clock.now().toISOString(),
      ))
    ) {
      throw keyNotLive(keyId);
    }
    await emitEvent(tctx, 'api_key.revoked', apiKeyRef(keyId), { before });
  });
}

export async function apiKeysByIds(
  ctx: ServiceContext,
  keyIds: readonly number[],
): Promise<Map<number, ApiKeyInfo>> {
  const keys = await repo.findApiKeys(ctx.db, ctx.account.id, keyIds);
  return new Map(keys.map((key) => [key.id, key]));
}

/** The context's account as GET /v1/account shows it, read afresh (the context's copy predates a change). */
export async function accountsByIds(
  ctx: ServiceContext,
  accountIds: readonly number[],
): Promise<Map<number, { account: Account; seller: SellerDetails }>> {
  const found = new Map<number, { account: Account; seller: SellerDetails }>();
  if (!accountIds.map(Number).includes(ctx.account.id)) return found;
  const account = await repo.findAccount(ctx.db, ctx.account.id);
  const seller = await findSellerDetails(ctx.db, ctx.account.id);
  if (account && seller) found.set(account.id, { account, seller });
  return found;
}

/** Resolves presented credentials to their account. With Basic auth the user name must be that account's id. */
export async function authenticate(
  db: Db,
  memory: ServiceMemory,
  credentials: { apiKey: string; accountId?: number },
): Promise<{ account: Account; apiKeyId: number } | undefined> {
  const found = await repo.findAccountByKeyHash(db, memory, hashApiKey(credentials.apiKey));
  if (!found || (credentials.accountId !== undefined && credentials.accountId !== found.account.id)) {
    return undefined;
  }
  return found;
}

export const { countAccounts } = repo;

/** The account's keys, oldest first (the CLI's `key list`). */
export async function listApiKeys(db: Db, accountId: number): Promise<ApiKeyInfo[]> {
  return repo.listApiKeys(db, accountId);
}

/** Every account's id (the bill run visits each). */
export function listAccountIds(db: Db): Promise<number[]> {
  return repo.listAccountIds(db);
}

/**
 * Refuses what only a test account may do (simulating a gateway's late answers, docs/gateways.md): a live account's
 * payments are real money, whatever the mode of the gateway that took them. The 403 is the test clock's.
 */
export function assertTestAccount(account: Account, what: string): void {
  if (!account.isTest) {
    throw new NotAllowedError(
      'not_a_test_account',
      `Only test accounts ${what}; this account is live (make a test account with \`billing account create --test\`)`,
    );
  }
}

/**
 * Checks that the account's clock may move to `to` (a test account; not backwards) and returns the account.
 * The caller runs billing for the days passed, then `setTestClock`.
 */
export async function testAccountForAdvance(db: Db, accountId: number, to: string): Promise<Account> {
  const account = await repo.findAccount(db, accountId);
  if (!account) throw new NotFoundError('Account', accountId);
  assertTestAccount(account, 'have a clock that can be moved');
  // A test account is made with its clock set (account.repository.ts insertAccount).
  if (to < account.testClockAt!) {
    throw ValidationError.field('To', `must not be before the clock's current time ${account.testClockAt}`);
  }
  return account;
}

/** Sets a test account's clock; a concurrent move to a later time wins (the clock never goes back). */
export function setTestClock(ctx: ServiceContext, accountId: number, to: string): Promise<void> {
  return repo.setTestClock(ctx.db, ctx.memory, accountId, to);
}
