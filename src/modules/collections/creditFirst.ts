import type { ServiceContext } from '../../context.ts';
import { applyCustomerCredit } from '../ledger/index.ts';

/**
 * Credit first (docs/gateways.md, "Credit first"): before invoices are charged or bundled, each customer's money not
 * yet applied in the invoice's currency pays them, unless the account turned it off (ApplyCreditBeforeCollecting).
 * Runs in the caller's transaction, which holds (or takes) the customers' locks. Returns what each invoice still
 * owes afterwards, by id; an invoice left out was not looked at (the setting is off).
 */
export async function applyCreditFirst(
  ctx: ServiceContext,
  invoices: readonly { id: number; customerId: number; currencyCode: string }[],
): Promise<Map<number, number>> {
  const owed = new Map<number, number>();
  if (!ctx.account.collectionLoop.applyCreditFirst) return owed;
  const groups = new Map<string, { customerId: number; currencyCode: string; invoiceIds: number[] }>();
  for (const invoice of invoices) {
    const key = `${invoice.customerId} ${invoice.currencyCode}`;
    const group = groups.get(key) ?? {
      customerId: invoice.customerId,
      currencyCode: invoice.currencyCode,
      invoiceIds: [],
    };
    group.invoiceIds.push(invoice.id);
    groups.set(key, group);
  }
  for (const group of groups.values()) {
    for (const [id, openMinor] of await applyCustomerCredit(ctx, group)) owed.set(id, openMinor);
  }
  return owed;
}
