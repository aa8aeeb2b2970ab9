import { nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import { wireAmountToMinor } from '../../core/money.ts';
import type { Page } from '../../core/paging.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import { assertCurrencyEnabled } from '../catalogue/index.ts';
import { assertCustomerExists } from '../customers/index.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import { isExpired, noSums, remainingOf } from './credit.ts';
import * as repo from './credit.repository.ts';
import type { Wallet, WalletSettings } from './credit.repository.ts';

/** A wallet as the API shows it: its balances, summed from its grants' journals (docs/credits.md, "Wallets"). */
export interface WalletView extends Wallet {
  /** What its grants not voided nor expired still hold. */
  balanceMinor: number;
  paidBalanceMinor: number;
  grantedBalanceMinor: number;
}

/** A wallet's settings as the wire gives them: money strings (or numbers) in its currency, null or absent for off. */
export interface WalletSettingsInput {
  autoTopUpThreshold?: number | string | null;
  autoTopUpAmount?: number | string | null;
  lowBalanceAlertThreshold?: number | string | null;
}

export interface WalletInput extends WalletSettingsInput {
  currencyCode: string;
  name: string | null;
}

/**
 * The settings in the wallet's currency (docs/credits.md, "Automatic top-ups", "Low-balance alerts"): each above 0
 * with at most the currency's decimals, and a top-up's threshold and amount set together; 422 naming the field.
 */
export function walletSettingsOf(input: WalletSettingsInput, currencyCode: string): WalletSettings {
  const problems: { field: string; message: string }[] = [];
  const minorOf = (field: string, value: number | string | null | undefined): number | null => {
    if (value === null || value === undefined) return null;
    const amount = wireAmountToMinor(value, currencyCode);
    if ('message' in amount) {
      problems.push({ field, message: amount.message });
      return null;
    }
    return amount.minor;
  };
  const settings: WalletSettings = {
    autoTopUpThresholdMinor: minorOf('AutoTopUpThreshold', input.autoTopUpThreshold),
    autoTopUpAmountMinor: minorOf('AutoTopUpAmount', input.autoTopUpAmount),
    lowBalanceAlertMinor: minorOf('LowBalanceAlertThreshold', input.lowBalanceAlertThreshold),
  };
  const given = (value: unknown) => value !== null && value !== undefined;
  if (given(input.autoTopUpThreshold) !== given(input.autoTopUpAmount)) {
    const missing = given(input.autoTopUpThreshold) ? 'AutoTopUpAmount' : 'AutoTopUpThreshold';
    problems.push({ field: missing, message: 'AutoTopUpThreshold and AutoTopUpAmount are set together' });
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return settings;
}

export const walletRef = (id: number) => ({ type: 'wallet', id });

/** The views of wallets by id; ids of no wallet of the account left out. */
export async function walletsByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, WalletView>> {
  const wallets = await repo.findWallets(ctx.db, ctx.account.id, ids);
  return new Map((await viewsOf(ctx, wallets)).map((view) => [view.id, view]));
}

export async function getWallet(ctx: ServiceContext, walletId: number): Promise<WalletView> {
  const view = (await walletsByIds(ctx, [walletId])).get(walletId);
  if (!view) throw new NotFoundError('Wallet', walletId);
  return view;
}

export async function listWallets(
  ctx: ServiceContext,
  customerId: number,
  page: Page,
): Promise<WalletView[]> {
  await assertCustomerExists(ctx, customerId);
  return viewsOf(ctx, await repo.listWalletsOfCustomer(ctx.db, ctx.account.id, customerId, page));
}

/** A customer's wallet in a currency the account has enabled; one per currency (a 409 for a second). */
export async function createWallet(
  ctx: ServiceContext,
  customerId: number,
  input: WalletInput,
): Promise<WalletView> {
  await assertCustomerExists(ctx, customerId);
  const currencyCode = await assertCurrencyEnabled(ctx, input.currencyCode, 'CurrencyCode');
  const settings = walletSettingsOf(input, currencyCode);
  let id: number;
  try {
    id = await withTransaction(ctx, async (tctx) => {
      const walletId = await repo.insertWallet(
        tctx.db,
        ctx.account.id,
        { customerId, currencyCode, name: input.name, ...settings },
        nowInstant(ctx),
      );
      await emitEvent(tctx, 'wallet.created', walletRef(walletId));
      return walletId;
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw new ConflictError(
      'wallet_exists',
      `Customer ${customerId} already has a wallet in ${currencyCode}`,
    );
  }
  return getWallet(ctx, id);
}

/**
 * PUT /v1/wallets/{id}: its name and settings, the whole of them (a setting left out is turned off); the currency
 * and customer stay. New thresholds apply from the next change of the balance.
 */
export async function updateWallet(
  ctx: ServiceContext,
  walletId: number,
  input: { name: string | null } & WalletSettingsInput,
): Promise<WalletView> {
  const wallet = await getWallet(ctx, walletId);
  const settings = walletSettingsOf(input, wallet.currencyCode);
  await withTransaction(ctx, async (tctx) => {
    const before = await snapshotResource(tctx, walletRef(walletId));
    await repo.updateWallet(
      tctx.db,
      ctx.account.id,
      walletId,
      { name: input.name, ...settings },
      nowInstant(ctx),
    );
    await emitEvent(tctx, 'wallet.updated', walletRef(walletId), { before });
  });
  return getWallet(ctx, walletId);
}

/** Balances from the journal: every grant's remaining amount, an expired one's counted as nothing. */
async function viewsOf(ctx: ServiceContext, wallets: readonly Wallet[]): Promise<WalletView[]> {
  const grants = await repo.listLiveGrantsOfWallets(
    ctx.db,
    ctx.account.id,
    wallets.map((wallet) => wallet.id),
  );
  const sums = await repo.sumsOfGrants(
    ctx.db,
    ctx.account.id,
    grants.map((grant) => grant.id),
  );
  const now = nowInstant(ctx);
  return wallets.map((wallet) => {
    const view: WalletView = { ...wallet, balanceMinor: 0, paidBalanceMinor: 0, grantedBalanceMinor: 0 };
    for (const grant of grants) {
      if (grant.walletId !== wallet.id || isExpired(grant.expiresAt, now)) continue;
      const remaining = remainingOf(sums.get(grant.id) ?? noSums());
      view.balanceMinor += remaining;
      if (grant.kind === 'paid') view.paidBalanceMinor += remaining;
      else view.grantedBalanceMinor += remaining;
    }
    return view;
  });
}
