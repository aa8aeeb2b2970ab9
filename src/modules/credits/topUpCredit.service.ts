import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError } from '../../errors.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { emitEvents, snapshotResources } from '../events/index.ts';
import { invoicesByIds } from '../invoicing/index.ts';
import type { InvoiceCredited } from '../ledger/index.ts';
import { grantEvent } from './consumption.service.ts';
import { noSums, refundedOf, remainingOf } from './credit.ts';
import * as repo from './credit.repository.ts';
import * as topUpRepo from './topUp.repository.ts';
import type { CreditGrant, NewEntry } from './credit.repository.ts';
import { entryOf } from './grant.service.ts';
import { creditOf } from './topUpShare.ts';
import type { TopUpPrice } from './topUpShare.ts';

/**
 * Crediting a paid top-up (docs/credits.md, "Crediting a top-up"): a credit note or negative adjustment on a top-up's
 * invoice says its money does not stay with the business (a refund through the gateway credits it so, or someone
 * credits it by hand), so the credit that money bought leaves the grant with it: a `refund` entry of the credit the
 * money stands for (its net share: the tax on it goes back with it). Credit already spent cannot leave: the change is
 * refused (409 `top_up_credit_spent`) and rolled back whole, so no money goes back for it. Money taken back off the
 * invoice (the credit note deleted or lowered, a refund the gateway refused) gives that credit back
 * (`refund_undone`, up to what refunds took). A grant voided, or not made yet (the invoice unpaid), has no credit to
 * answer with: crediting it only lowers what is owed. Runs in the ledger's allocating transaction, under the
 * customer's lock.
 */
export async function creditTopUpInvoices(
  ctx: ServiceContext,
  credited: readonly InvoiceCredited[],
): Promise<void> {
  const grants = await heldTopUpGrants(
    ctx,
    credited.map((change) => change.invoiceId),
  );
  if (grants.length === 0) return;
  const prices = await topUpPrices(ctx, grants);
  const sums = await repo.sumsOfGrants(
    ctx.db,
    ctx.account.id,
    grants.map((grant) => grant.id),
  );
  const before = await snapshotResources(
    ctx,
    'credit_grant',
    grants.map((grant) => grant.id),
  );
  const entries: NewEntry[] = [];
  for (const grant of grants) {
    const invoiceId = grant.topUpInvoiceId!;
    const { price, creditedMinor } = prices.get(invoiceId)!;
    const deltaMinor = credited.find((change) => change.invoiceId === invoiceId)!.deltaMinor;
    // Cumulative, so that credit notes taken one at a time add up to the whole credit exactly (topUpShare.ts).
    const moved = creditOf(price, creditedMinor) - creditOf(price, creditedMinor - deltaMinor);
    const of = sums.get(grant.id) ?? noSums();
    const on = { invoiceId, allocationId: null };
    if (moved > 0) {
      assertCreditLeft(grant, moved, remainingOf(of));
      entries.push(entryOf(grant, 'refund', moved, on));
    } else if (moved < 0) {
      const back = Math.min(-moved, refundedOf(of));
      if (back > 0) entries.push(entryOf(grant, 'refund_undone', back, on));
    }
  }
  if (entries.length === 0) return;
  await repo.insertEntries(ctx.db, ctx.account.id, entries, nowInstant(ctx));
  await emitEvents(
    ctx,
    entries.map((entry) =>
      grantEvent(
        entry.kind === 'refund' ? 'credit_grant.refunded' : 'credit_grant.refund_undone',
        entry.grantId,
        before,
      ),
    ),
  );
}

/**
 * Which of these invoices are paid top-ups whose credit the customer still holds (a grant made and not voided): a
 * refund may not reopen them (docs/credits.md, "Crediting a top-up"), since reopening leaves the credit in place.
 */
export async function topUpInvoicesHoldingCredit(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<number[]> {
  return (await heldTopUpGrants(ctx, invoiceIds)).map((grant) => grant.topUpInvoiceId!);
}

/** The grants of these invoices' paid top-ups that are not voided: the credit the customer holds for them. */
async function heldTopUpGrants(ctx: ServiceContext, invoiceIds: readonly number[]): Promise<CreditGrant[]> {
  const grantIdsByInvoice = await topUpRepo.grantIdsOfTopUps(ctx.db, ctx.account.id, invoiceIds);
  if (grantIdsByInvoice.size === 0) return [];
  const grants = await repo.findGrants(ctx.db, ctx.account.id, [...grantIdsByInvoice.values()]);
  return grants.filter((grant) => grant.voidedAt === null);
}

/** The top-up's price of each grant's invoice, and what credit notes and negative adjustments put on it now. */
async function topUpPrices(
  ctx: ServiceContext,
  grants: readonly CreditGrant[],
): Promise<Map<number, { price: TopUpPrice; creditedMinor: number }>> {
  const invoices = await invoicesByIds(
    ctx,
    grants.map((grant) => grant.topUpInvoiceId!),
  );
  return new Map(
    grants.map((grant) => {
      const money = invoices.get(grant.topUpInvoiceId!)!.money;
      // NOTE: a top-up's invoice is never paid with credit (docs/credits.md, "Consumption order"), so all its
      // negative adjustments are credit notes' and negative adjustments' money.
      return [
        grant.topUpInvoiceId!,
        {
          price: { creditMinor: grant.amountMinor, totalMinor: money.totalMinor },
          creditedMinor: money.negativeAdjsMinor,
        },
      ];
    }),
  );
}

/** 409 when the grant no longer holds the credit the money going back stands for: it was spent. */
function assertCreditLeft(grant: CreditGrant, creditMinor: number, remainingMinor: number): void {
  if (creditMinor <= remainingMinor) return;
  const money = (minor: number) => minorToDecimalText(minor, grant.currencyCode);
  throw new ConflictError(
    'top_up_credit_spent',
    `Crediting top-up invoice ${grant.topUpInvoiceId} takes ${money(creditMinor)} of credit from credit grant ` +
      `${grant.id}, which holds only ${money(remainingMinor)}: the rest was spent. Credit at most what remains ` +
      `unspent (POST /v1/credit-grants/${grant.id}/refund refunds it through the gateway)`,
  );
}
