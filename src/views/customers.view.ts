import type { ServiceContext } from '../context.ts';
import type { Customer, CustomerFigures, CustomerWithFigures } from '../modules/customers/index.ts';
import { customerBalances } from '../modules/ledger/index.ts';
import { primaryPaymentMethodsOf } from '../modules/paymentMethods/index.ts';
import { countLiveSubscriptionsByCustomer } from '../modules/subscriptions/index.ts';

/**
 * The customer as the API shows it, with figures owned by higher modules. Balance is the sum of Balance over the
 * customer's issued, not cancelled invoices in its currency plus open adjustments less unallocated credit (the
 * ledger computes it); ActiveSubs counts the subscriptions not cancelled or expired today (future and trial ones
 * included); PrimaryPaymentMethodInfo is the customer's primary payment method. One statement each for the whole
 * page.
 */
export async function withCustomerFigures(
  ctx: ServiceContext,
  customers: readonly Customer[],
): Promise<CustomerWithFigures[]> {
  if (customers.length === 0) return [];
  const ids = customers.map((customer) => customer.id);
  const balances = await customerBalances(
    ctx,
    customers.map(({ id, currencyCode }) => ({ id, currencyCode })),
  );
  const activeSubscriptions = await countLiveSubscriptionsByCustomer(ctx, ids);
  const primaryPaymentMethods = await primaryPaymentMethodsOf(ctx, ids);
  return customers.map((customer) => {
    const { id } = customer;
    const figures: CustomerFigures = {
      balanceMinor: balances.get(id) ?? 0,
      activeSubscriptions: activeSubscriptions.get(id) ?? 0,
      primaryPaymentMethod: primaryPaymentMethods.get(id) ?? null,
    };
    return { ...customer, figures };
  });
}

export async function customerWithFigures(
  ctx: ServiceContext,
  customer: Customer,
): Promise<CustomerWithFigures> {
  return (await withCustomerFigures(ctx, [customer]))[0]!;
}
