import type { ServiceContext } from '../../context.ts';
import { withEffectiveCollection } from '../invoicing/index.ts';
import type { Invoice } from '../invoicing/index.ts';

/**
 * Whether an invoice whose debit failed (a return, a cancelled batch) is still collected by debit order, and so is
 * scheduled to be presented again (docs/gateways.md, "Returns presented again"): by its own CollectionMethod, or,
 * when it follows its customer, by what the customer's settings resolve to now. A customer who has since moved to
 * eft (or a card) is not presented the debit again. One whose bank account the return made invalid still asks for
 * a debit order (blocked): the return's reason is what stops it.
 */
export async function collectedByDebitOrder(ctx: ServiceContext, invoice: Invoice): Promise<boolean> {
  const [effective] = await withEffectiveCollection(ctx, [invoice], new Set());
  return effective!.collectionMethod === 'debit_order';
}
