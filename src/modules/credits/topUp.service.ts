import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ValidationError } from '../../errors.ts';
import { wireAmountToMinor } from '../../core/money.ts';
import { emitEvents, snapshotResources } from '../events/index.ts';
import type { EventToEmit } from '../events/index.ts';
import { invoicesByIds } from '../invoicing/index.ts';
import { afterMoneyMovement, withLockedCustomer } from '../ledger/index.ts';
import { PRIORITY_MIN, entryOf, grantRef } from './grant.service.ts';
import * as repo from './credit.repository.ts';
import * as topUpRepo from './topUp.repository.ts';
import type { NewEntry } from './credit.repository.ts';
import { noSums, remainingOf } from './credit.ts';
import { grantEvent } from './consumption.service.ts';
import { getWallet } from './wallet.service.ts';
import { checkWalletBalances } from './walletBalance.service.ts';
import { insertTopUpInvoice } from './topUpInvoice.ts';
import { payOpenInvoicesFromGrants } from './openInvoices.service.ts';

/**
 * Paid top-ups (docs/credits.md, "Paid top-ups"): an invoice of one line "Prepaid credit", taxed as any sale, and
 * never paid with credit; its grant (kind paid) comes into being when the invoice is paid in full, by any path,
 * once (unique on the invoice).
 */

export interface TopUpMade {
  walletId: number;
  invoiceId: number;
  amountMinor: number;
}

/** POST /v1/wallets/{id}/top-ups: the invoice that sells `Amount` of credit. */
export async function createTopUp(
  ctx: ServiceContext,
  walletId: number,
  input: { amount: number | string },
): Promise<TopUpMade> {
  const wallet = await getWallet(ctx, walletId);
  const amount = wireAmountToMinor(input.amount, wallet.currencyCode);
  if ('message' in amount) throw ValidationError.field('Amount', amount.message);
  const invoiceId = await withLockedCustomer(ctx, wallet.customerId, (tctx) =>
    insertTopUpInvoice(tctx, wallet, amount.minor, null),
  );
  ctx.mailQueued();
  return { walletId, invoiceId, amountMinor: amount.minor };
}

/**
 * The ledger's "invoice paid" moment: a paid top-up's invoice paid in full makes its grant, once (a grant already
 * made for the invoice is left as it is). Runs in the allocating transaction, under the customer's lock.
 */
export async function grantPaidTopUps(ctx: ServiceContext, invoiceIds: readonly number[]): Promise<void> {
  const topUps = await topUpRepo.topUpsOfInvoices(ctx.db, ctx.account.id, invoiceIds);
  if (topUps.length === 0) return;
  const made = await topUpRepo.grantIdsOfTopUps(
    ctx.db,
    ctx.account.id,
    topUps.map((topUp) => topUp.invoiceId),
  );
  const now = nowInstant(ctx);
  const events: EventToEmit[] = [];
  const granted: { customerId: number; currencyCode: string }[] = [];
  for (const topUp of topUps) {
    if (made.has(topUp.invoiceId)) continue;
    const [wallet] = await repo.findWallets(ctx.db, ctx.account.id, [topUp.walletId]);
    const grantId = await repo.insertGrant(
      ctx.db,
      ctx.account.id,
      {
        walletId: topUp.walletId,
        customerId: wallet!.customerId,
        currencyCode: wallet!.currencyCode,
        kind: 'paid',
        amountMinor: topUp.amountMinor,
        priority: PRIORITY_MIN,
        expiresAt: null,
        metricCodes: null,
        componentIds: null,
        note: null,
        topUpInvoiceId: topUp.invoiceId,
        vatTreatment: topUp.vatTreatment,
      },
      now,
    );
    await repo.insertEntries(
      ctx.db,
      ctx.account.id,
      [entryOf({ id: grantId, walletId: topUp.walletId }, 'grant', topUp.amountMinor)],
      now,
    );
    events.push({ type: 'credit_grant.created', ref: grantRef(grantId) });
    granted.push({ customerId: wallet!.customerId, currencyCode: wallet!.currencyCode });
  }
  await emitEvents(ctx, events);
  // The credit bought may lift the balance back over the alert's threshold (docs/credits.md, "Low-balance alerts").
  await checkWalletBalances(ctx, [...new Set(topUps.map((topUp) => topUp.walletId))]);
  // It pays the customer's open invoices once the money movement that bought it is done (docs/credits.md,
  // "Consumption order"): this runs in the middle of its allocation.
  for (const of of granted)
    await afterMoneyMovement(ctx, `open invoices ${of.customerId} ${of.currencyCode}`, (ctx) =>
      payOpenInvoicesFromGrants(ctx, of),
    );
}

/**
 * The ledger's "invoices unpaid" moment: a payment that paid top-up invoices was reversed or deleted. Each such
 * invoice that is no longer Paid had its credit bought with money never kept, so what remains of its grant is voided
 * (a `void` entry up to what is left); what was consumed stays consumed, and the invoice owes its amount again
 * (docs/credits.md, "A reversed top-up"). Runs in the reversing transaction, under the customer's lock.
 */
export async function voidUnpaidTopUps(ctx: ServiceContext, invoiceIds: readonly number[]): Promise<void> {
  const topUps = await topUpRepo.topUpsOfInvoices(ctx.db, ctx.account.id, invoiceIds);
  if (topUps.length === 0) return;
  const made = await topUpRepo.grantIdsOfTopUps(
    ctx.db,
    ctx.account.id,
    topUps.map((topUp) => topUp.invoiceId),
  );
  const invoices = await invoicesByIds(ctx, [...made.keys()]);
  const grantIds = [...made]
    .filter(([invoiceId]) => invoices.get(invoiceId)?.status !== 'Paid')
    .map(([, grantId]) => grantId);
  const grants = (await repo.findGrants(ctx.db, ctx.account.id, grantIds)).filter((g) => g.voidedAt === null);
  if (grants.length === 0) return;
  const now = nowInstant(ctx);
  const before = await snapshotResources(
    ctx,
    'credit_grant',
    grants.map((grant) => grant.id),
  );
  const sums = await repo.sumsOfGrants(
    ctx.db,
    ctx.account.id,
    grants.map((grant) => grant.id),
  );
  const entries: NewEntry[] = [];
  for (const grant of grants) {
    await repo.markGrantVoided(ctx.db, ctx.account.id, grant.id, now);
    const remaining = remainingOf(sums.get(grant.id) ?? noSums());
    if (remaining > 0) entries.push(entryOf(grant, 'void', remaining));
  }
  await repo.insertEntries(ctx.db, ctx.account.id, entries, now);
  await emitEvents(
    ctx,
    grants.map((grant) => grantEvent('credit_grant.voided', grant.id, before)),
  );
}
