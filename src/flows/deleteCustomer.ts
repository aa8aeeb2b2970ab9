import { readTogether, withTransaction } from '../context.ts';
import type { ServiceContext } from '../context.ts';
import { customerInUse, deleteCustomerRecord, startCustomerDeletion } from '../modules/customers/index.ts';
import type { CustomerRecords } from '../modules/customers/index.ts';
import { countInvoicesOfCustomer, countRecurringInvoicesOfCustomer } from '../modules/invoicing/index.ts';
import { hasMoneyRecords } from '../modules/ledger/index.ts';
import { deletePaymentMethodsOfCustomer } from '../modules/paymentMethods/index.ts';
import { countSubscriptionsOfCustomer } from '../modules/subscriptions/index.ts';
import { isForeignKeyViolation } from '../storage/database.ts';

/**
 * DELETE /v1/customers/{id}: a customer goes with its contacts, notes, custom field values and stored payment
 * methods (its details, even the primary one, which alone could never be deleted), unless records of higher modules
 * keep it (docs/architecture.md, "Flows"). One transaction: what they keep counted, then the customers module's
 * steps around the payment methods' own. The foreign keys to `customers` stay the backstop for a record made
 * between the counts and the delete.
 */
export async function deleteCustomer(ctx: ServiceContext, customerId: number): Promise<void> {
  try {
    await withTransaction(ctx, async (tctx) => {
      const records = await customerRecords(tctx, customerId);
      const deletion = await startCustomerDeletion(tctx, customerId, records);
      await deletePaymentMethodsOfCustomer(tctx, customerId);
      await deleteCustomerRecord(tctx, deletion);
    });
  } catch (error) {
    if (!isForeignKeyViolation(error)) throw error;
    throw customerInUse(customerId, await countInvoicesOfCustomer(ctx, customerId));
  }
}

/** What invoicing, subscriptions and the ledger keep of the customer: on PostgreSQL one round trip for the four. */
async function customerRecords(ctx: ServiceContext, customerId: number): Promise<CustomerRecords> {
  const [invoices, subscriptions, recurringInvoices, moneyRecords] = await readTogether(
    ctx,
    (c) => countInvoicesOfCustomer(c, customerId),
    (c) => countSubscriptionsOfCustomer(c, customerId),
    (c) => countRecurringInvoicesOfCustomer(c, customerId),
    (c) => hasMoneyRecords(c, customerId),
  );
  return { invoices, subscriptions, recurringInvoices, moneyRecords };
}
