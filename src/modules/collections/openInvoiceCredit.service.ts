import type { ServiceContext } from '../../context.ts';
import { customersHoldingGrantCredit, topUpInvoicesAmong } from '../credits/index.ts';
import { customersOwingIn, lockOpenInvoices } from '../invoicing/index.ts';
import { customersWithUnappliedMoney, withLockedCustomer } from '../ledger/index.ts';
import { invoicesBeingCollected } from './collection.service.ts';
import { applyCreditFirst } from './creditFirst.ts';

/**
 * The daily pass of open invoices (docs/credits.md, "Consumption order"; docs/gateways.md, "Credit first"): credit
 * first at a day's moment rather than a collection's. Each customer holding money not yet applied or grants that may
 * still pay in a currency has its open invoices in that currency paid from it, oldest first, through the allocation
 * engine, so an invoice the customer pays itself (EFT, cash) is not reminded while the customer holds credit.
 */

/** Customers read per statement when asking which of them owe. */
const CUSTOMERS_PER_READ = 500;

/**
 * Pays the account's open invoices from its customers' credit, each customer in its own short transaction under its
 * lock; one customer's failure is logged and the pass goes on (the next day's pass tries it again). Nothing when
 * the account turned credit first off (ApplyCreditBeforeCollecting). Returns how many customers it looked at.
 */
export async function payOpenInvoicesFromCredit(ctx: ServiceContext): Promise<{ customers: number }> {
  if (!ctx.account.collectionLoop.applyCreditFirst) return { customers: 0 };
  const owing = await customersOwingWithCredit(ctx);
  for (const [customerId, currencies] of owing) {
    try {
      await withLockedCustomer(ctx, customerId, async (tctx) => {
        for (const currencyCode of currencies) await payOpenInvoicesOf(tctx, { customerId, currencyCode });
      });
    } catch (error) {
      ctx.log.error({ err: error, customerId }, 'paying open invoices from credit failed');
    }
  }
  return { customers: owing.size };
}

/**
 * The customers that hold credit in a currency (their own money not yet applied, or grants) and owe in it, with
 * those currencies, by customer id: read outside any lock, a hint that each customer's transaction reads again.
 */
async function customersOwingWithCredit(ctx: ServiceContext): Promise<Map<number, string[]>> {
  const holding = new Set<string>();
  for (const { customerId, currencyCode } of [
    ...(await customersWithUnappliedMoney(ctx)),
    ...(await customersHoldingGrantCredit(ctx)),
  ])
    holding.add(`${customerId} ${currencyCode}`);
  const customerIds = [...new Set([...holding].map((key) => Number(key.split(' ')[0])))].sort(
    (a, b) => a - b,
  );
  const owing = new Map<number, string[]>();
  for (let i = 0; i < customerIds.length; i += CUSTOMERS_PER_READ) {
    for (const { customerId, currencyCode } of await customersOwingIn(
      ctx,
      customerIds.slice(i, i + CUSTOMERS_PER_READ),
    )) {
      if (holding.has(`${customerId} ${currencyCode}`))
        owing.set(customerId, [...(owing.get(customerId) ?? []), currencyCode].sort());
    }
  }
  return new Map([...owing].sort(([a], [b]) => a - b));
}

/**
 * Under the customer's lock: its open invoices in the currency, oldest first (InvoiceDate, then invoiceNum), less
 * those being collected right now and paid top-ups' own invoices, paid by credit first (its own money, then its
 * grants). A card or debit-order invoice not yet in flight is paid too: the oldest debt goes first, whoever collects
 * it; a debit pending in a batch owes nothing more (its payment covers it).
 */
async function payOpenInvoicesOf(
  ctx: ServiceContext,
  of: { customerId: number; currencyCode: string },
): Promise<void> {
  const open = (await lockOpenInvoices(ctx, of.customerId, of.currencyCode)).filter(
    (invoice) => !invoice.refusal && invoice.openMinor > 0,
  );
  const ids = open.map((invoice) => invoice.id);
  const leftAlone = new Set([
    ...(await invoicesBeingCollected(ctx, ids)),
    ...(await topUpInvoicesAmong(ctx, ids)),
  ]);
  await applyCreditFirst(
    ctx,
    open
      .filter((invoice) => !leftAlone.has(invoice.id))
      .map((invoice) => ({ id: invoice.id, customerId: of.customerId, currencyCode: of.currencyCode })),
  );
}
