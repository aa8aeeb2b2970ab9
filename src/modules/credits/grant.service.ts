import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { Page } from '../../core/paging.ts';
import { wireAmountToMinor } from '../../core/money.ts';
import { parseWireDate } from '../../core/wireDates.ts';
import { componentsByIds, metricsByCodes } from '../catalogue/index.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import { grantAllocations, withLockedCustomer } from '../ledger/index.ts';
import { isExpired, noSums, remainingOf } from './credit.ts';
import type { GrantSums } from './credit.ts';
import * as repo from './credit.repository.ts';
import { entryOf, grantRef } from './grantEntries.ts';
import { checkWalletBalances } from './walletBalance.service.ts';
import type { CreditEntry, CreditGrant } from './credit.repository.ts';
import { getWallet } from './wallet.service.ts';
import { payOpenInvoicesFromGrants } from './openInvoices.service.ts';

/** A grant as the API shows it: its figures from the journal, its state, and (one grant's GET) what it paid. */
export interface GrantView extends CreditGrant {
  sums: GrantSums;
  remainingMinor: number;
  status: 'active' | 'used' | 'expired' | 'voided';
  /** The invoices its credit pays now, from the ledger's allocations; undefined in lists. */
  paid?: { invoiceId: number; amountMinor: number }[];
}

export interface GrantInput {
  amount: number | string;
  priority: number | undefined;
  expiresAt: string | null | undefined;
  /** AppliesTo: both null or left out, any line; an AppliesTo naming neither is refused. */
  appliesTo:
    { metricCodes?: readonly string[] | null; componentIds?: readonly number[] | null } | null | undefined;
  note: string | null | undefined;
}

/** The journal's other writers (top-ups, expiry, crediting a top-up) take these from here too. */
export { entryOf, grantAsSource, grantRef } from './grantEntries.ts';

/** Priorities as Lago numbers them: 1 is used first. */
export const PRIORITY_MIN = 1;
export const PRIORITY_MAX = 50;

export async function grantsByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, GrantView>> {
  const grants = await repo.findGrants(ctx.db, ctx.account.id, ids);
  return new Map((await grantViews(ctx, grants)).map((view) => [view.id, view]));
}

/** One grant with every invoice it pays; a 404 for another account's. */
export async function getGrant(ctx: ServiceContext, grantId: number): Promise<GrantView> {
  const view = (await grantsByIds(ctx, [grantId])).get(grantId);
  if (!view) throw new NotFoundError('Credit grant', grantId);
  const allocations = await grantAllocations(ctx, [grantId]);
  return {
    ...view,
    paid: allocations.map((allocation) => ({
      invoiceId: allocation.targetId,
      amountMinor: allocation.amountMinor,
    })),
  };
}

export async function listGrants(ctx: ServiceContext, walletId: number, page: Page): Promise<GrantView[]> {
  await getWallet(ctx, walletId);
  return grantViews(ctx, await repo.listGrantsOfWallet(ctx.db, ctx.account.id, walletId, page));
}

/** A wallet's journal, oldest first (the API's order) or newest first (the customer portal's history). */
export async function listEntries(
  ctx: ServiceContext,
  walletId: number,
  page: Page,
  order: 'oldest' | 'newest' = 'oldest',
): Promise<CreditEntry[]> {
  await getWallet(ctx, walletId);
  return repo.listEntriesOfWallet(ctx.db, ctx.account.id, walletId, page, order);
}

/**
 * POST /v1/wallets/{id}/grants: promotional credit, free (docs/credits.md, "Grants"). It pays the customer's open
 * invoices in its currency at once, then invoices at their issue and at each credit-first moment from now on
 * (docs/credits.md, "Consumption order").
 */
export async function createGrant(
  ctx: ServiceContext,
  walletId: number,
  input: GrantInput,
): Promise<GrantView> {
  const wallet = await getWallet(ctx, walletId);
  const checked = await checkedGrant(ctx, wallet.currencyCode, input);
  const id = await withLockedCustomer(ctx, wallet.customerId, async (tctx) => {
    const grantId = await repo.insertGrant(
      tctx.db,
      ctx.account.id,
      {
        walletId,
        customerId: wallet.customerId,
        currencyCode: wallet.currencyCode,
        kind: 'granted',
        topUpInvoiceId: null,
        // Free credit is a discount on what it pays for (docs/tax.md, "Prepaid credit").
        vatTreatment: 'discount',
        ...checked,
      },
      nowInstant(ctx),
    );
    await repo.insertEntries(
      tctx.db,
      ctx.account.id,
      [entryOf({ id: grantId, walletId }, 'grant', checked.amountMinor)],
      nowInstant(ctx),
    );
    await emitEvent(tctx, 'credit_grant.created', grantRef(grantId));
    await payOpenInvoicesFromGrants(tctx, {
      customerId: wallet.customerId,
      currencyCode: wallet.currencyCode,
    });
    // A grant may lift the balance back over the alert's threshold (docs/credits.md, "Low-balance alerts"): what it
    // is once the open invoices took their part.
    await checkWalletBalances(tctx, [walletId]);
    return grantId;
  });
  return getGrant(ctx, id);
}

/**
 * POST /v1/credit-grants/{id}/void: what remains of the grant is written off (a `void` entry); what it already paid
 * stays paid. A 409 for a grant already voided.
 */
export async function voidGrant(ctx: ServiceContext, grantId: number): Promise<GrantView> {
  const stored = await getGrant(ctx, grantId);
  await withLockedCustomer(ctx, stored.customerId, async (tctx) => {
    const before = await snapshotResource(tctx, grantRef(grantId));
    // Read again under the lock: a consumption may have run meanwhile.
    const sums = (await repo.sumsOfGrants(tctx.db, ctx.account.id, [grantId])).get(grantId) ?? noSums();
    if (!(await repo.markGrantVoided(tctx.db, ctx.account.id, grantId, nowInstant(ctx))))
      throw new ConflictError('credit_grant_voided', `Credit grant ${grantId} is already voided`);
    const remaining = remainingOf(sums);
    if (remaining > 0) {
      await repo.insertEntries(
        tctx.db,
        ctx.account.id,
        [entryOf(stored, 'void', remaining)],
        nowInstant(ctx),
      );
    }
    await emitEvent(tctx, 'credit_grant.voided', grantRef(grantId), { before });
  });
  return getGrant(ctx, grantId);
}

async function grantViews(ctx: ServiceContext, grants: readonly CreditGrant[]): Promise<GrantView[]> {
  const sums = await repo.sumsOfGrants(
    ctx.db,
    ctx.account.id,
    grants.map((grant) => grant.id),
  );
  const now = nowInstant(ctx);
  return grants.map((grant) => {
    const of = sums.get(grant.id) ?? noSums();
    const remainingMinor = remainingOf(of);
    const status = grant.voidedAt
      ? 'voided'
      : isExpired(grant.expiresAt, now)
        ? 'expired'
        : remainingMinor > 0
          ? 'active'
          : 'used';
    return { ...grant, sums: of, remainingMinor: status === 'expired' ? 0 : remainingMinor, status };
  });
}

interface CheckedGrant {
  amountMinor: number;
  priority: number;
  expiresAt: string | null;
  metricCodes: string[] | null;
  componentIds: number[] | null;
  note: string | null;
}

/**
 * Amount (in the wallet's currency), Priority, ExpiresAt (in the future), AppliesTo (the account's metrics and
 * components).
 */
async function checkedGrant(
  ctx: ServiceContext,
  currencyCode: string,
  input: GrantInput,
): Promise<CheckedGrant> {
  const problems: FieldProblem[] = [];
  const amount = wireAmountToMinor(input.amount, currencyCode);
  if ('message' in amount) problems.push({ field: 'Amount', message: amount.message });
  const priority = input.priority ?? PRIORITY_MIN;
  if (!Number.isInteger(priority) || priority < PRIORITY_MIN || priority > PRIORITY_MAX)
    problems.push({
      field: 'Priority',
      message: `must be a whole number from ${PRIORITY_MIN} to ${PRIORITY_MAX}`,
    });
  let expiresAt: string | null = null;
  if (input.expiresAt !== undefined && input.expiresAt !== null) {
    expiresAt = parseWireDate(input.expiresAt, ctx.account.timeZone) ?? null;
    if (expiresAt === null) problems.push({ field: 'ExpiresAt', message: 'must be a date or date-time' });
    else if (isExpired(expiresAt, nowInstant(ctx)))
      problems.push({ field: 'ExpiresAt', message: 'must be in the future' });
  }
  const { metricCodes, componentIds } = await checkedRestriction(ctx, input.appliesTo, problems);
  if (problems.length > 0) throw new ValidationError(problems);
  return {
    amountMinor: 'minor' in amount ? amount.minor : 0,
    priority,
    expiresAt,
    metricCodes,
    componentIds,
    note: input.note ?? null,
  };
}

/** AppliesTo: the account's metrics (by code) and components (by id), each list at least one when given. */
async function checkedRestriction(
  ctx: ServiceContext,
  appliesTo: GrantInput['appliesTo'],
  problems: FieldProblem[],
): Promise<{ metricCodes: string[] | null; componentIds: number[] | null }> {
  const metricCodes = appliesTo?.metricCodes ? [...new Set(appliesTo.metricCodes)] : null;
  const componentIds = appliesTo?.componentIds
    ? [...new Set(appliesTo.componentIds)].sort((a, b) => a - b)
    : null;
  if (appliesTo && metricCodes === null && componentIds === null)
    problems.push({ field: 'AppliesTo', message: 'must name MetricCodes or ComponentIDs, or be null' });
  if (metricCodes !== null) {
    const known = await metricsByCodes(ctx.db, ctx.account.id, metricCodes);
    for (const code of metricCodes)
      if (!known.has(code))
        problems.push({ field: 'AppliesTo.MetricCodes', message: `no billable metric ${code}` });
  }
  if (componentIds !== null) {
    const found = await componentsByIds(ctx, componentIds);
    const missing = componentIds.filter((id) => !found.has(id));
    if (missing.length > 0)
      problems.push({ field: 'AppliesTo.ComponentIDs', message: `no component ${missing.join(', ')}` });
  }
  return { metricCodes, componentIds };
}
