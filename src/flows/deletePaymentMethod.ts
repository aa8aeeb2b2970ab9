import { readTogether, withTransaction } from '../context.ts';
import type { ServiceContext } from '../context.ts';
import { openCollectionAttempts } from '../modules/collections/index.ts';
import {
  countInvoicesUsingPaymentMethod,
  countRecurringInvoicesUsingPaymentMethod,
} from '../modules/invoicing/index.ts';
import { deletePaymentMethodRecord } from '../modules/paymentMethods/index.ts';

/**
 * DELETE /v1/paymentmethods/{id} and the portal's delete (docs/architecture.md, "Flows"): in one transaction, what
 * invoicing and collections keep that names the method counted, then the payment methods' delete, which refuses a
 * primary method or one those records name. Payments refer to their method by a foreign key, the backstop.
 */
export async function deletePaymentMethod(ctx: ServiceContext, paymentMethodId: number): Promise<void> {
  await withTransaction(ctx, async (tctx) => {
    // On PostgreSQL one round trip for the three.
    const [invoices, recurringInvoices, charges] = await readTogether(
      tctx,
      (c) => countInvoicesUsingPaymentMethod(c, paymentMethodId),
      (c) => countRecurringInvoicesUsingPaymentMethod(c, paymentMethodId),
      (c) => openCollectionAttempts(c, paymentMethodId),
    );
    await deletePaymentMethodRecord(tctx, paymentMethodId, {
      invoices,
      recurringInvoices,
      openCollectionAttempts: charges,
    });
  });
}
