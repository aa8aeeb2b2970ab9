import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { lockOpenInvoices } from '../invoicing/index.ts';
import { withLockedCustomer } from '../ledger/index.ts';
import { payOpenInvoicesWithGrants } from './consumption.service.ts';
import { listCustomersHoldingCredit } from './heldCredit.repository.ts';
import { invoicesBeingCollected } from './invoicesBeingCollected.ts';
import { topUpsOfInvoices } from './topUp.repository.ts';

/**
 * Credit that arrives pays the customer's open invoices (docs/credits.md, "Consumption order", the third moment): a
 * grant made, a paid top-up's grant come into being. Invoices issued before the credit came would otherwise wait
 * for a collection that never comes when the customer pays them itself (EFT, cash), reminded meanwhile.
 */

/**
 * The customer's open invoices in the currency, oldest first (InvoiceDate, then invoiceNum), paid from its grants,
 * in the caller's transaction under the customer's lock (taken, or joined when held). The rule is the one of an
 * invoice's issue: the customer's own money not yet applied is kept first, on the oldest invoices, for the daily
 * pass or the next credit-first moment to apply (a client that left a payment unallocated chose so), and the
 * grants pay what it leaves open. An invoice being charged or sold right now is left to that answer; a paid
 * top-up's own invoice is never paid with credit. Nothing when the account turned credit first off
 * (ApplyCreditBeforeCollecting, docs/gateways.md, "Credit first").
 */
export async function payOpenInvoicesFromGrants(
  ctx: ServiceContext,
  of: { customerId: number; currencyCode: string },
): Promise<void> {
  if (!ctx.account.collectionLoop.applyCreditFirst) return;
  await withLockedCustomer(ctx, of.customerId, async (ctx) => {
    const open = (await lockOpenInvoices(ctx, of.customerId, of.currencyCode)).filter(
      (invoice) => !invoice.refusal && invoice.openMinor > 0,
    );
    const collecting = await invoicesBeingCollected(
      ctx,
      open.map((invoice) => invoice.id),
    );
    const payable = open.filter((invoice) => !collecting.has(invoice.id));
    await payOpenInvoicesWithGrants(
      ctx,
      payable.map((invoice) => ({
        invoiceId: invoice.id,
        customerId: of.customerId,
        currencyCode: of.currencyCode,
      })),
    );
  });
}

/**
 * Every customer and currency in which the account's customers hold grants that may still pay, by customer id: where
 * the daily pass of open invoices looks, beside the customers' own money (docs/credits.md, "Consumption order").
 */
export function customersHoldingGrantCredit(
  ctx: ServiceContext,
): Promise<{ customerId: number; currencyCode: string }[]> {
  return listCustomersHoldingCredit(ctx.db, ctx.account.id, nowInstant(ctx));
}

/**
 * Those of the invoices that sell prepaid credit (paid top-ups): the daily pass leaves them to the customer, since
 * paying one from money it holds would buy credit it did not ask for, and would undo money moved off one by hand
 * to credit it (docs/credits.md, "A reversed top-up").
 */
export async function topUpInvoicesAmong(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Set<number>> {
  return new Set(
    (await topUpsOfInvoices(ctx.db, ctx.account.id, invoiceIds)).map((topUp) => topUp.invoiceId),
  );
}
