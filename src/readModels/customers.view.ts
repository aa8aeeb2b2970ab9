import type { ServiceContext } from '../context.ts';
import { customerReadModel } from '../modules/customers/index.ts';
import type {
  Customer,
  CustomerFigures,
  CustomerPick,
  CustomerWithFigures,
} from '../modules/customers/index.ts';
import { customerBalanceFigure } from '../modules/ledger/index.ts';
import { primaryPaymentMethodFigure } from '../modules/paymentMethods/index.ts';
import { activeSubscriptionsFigure } from '../modules/subscriptions/index.ts';

/**
 * The customer as the API shows it, with figures owned by higher modules. Balance is the sum of Balance over the
 * customer's issued, not cancelled invoices in its currency plus open adjustments less unallocated credit (the
 * ledger computes it); ActiveSubs counts the subscriptions not cancelled or expired today (future and trial ones
 * included); PrimaryPaymentMethodInfo is the customer's primary payment method.
 *
 * Each module gives its figure as scalar subqueries correlated with the customer's row, and the customers module
 * reads them in its own statement: a customer with its figures is one statement, and the figures of a page of
 * customers one more. On PostgreSQL every statement is a round trip (docs/benchmarks.md, "HTTP").
 */
const customers = customerReadModel({
  balanceMinor: customerBalanceFigure,
  activeSubscriptions: activeSubscriptionsFigure,
  primaryPaymentMethod: primaryPaymentMethodFigure,
});

/**
 * A read of the customers another module's query picks for the keys given (CustomerPick), with their figures, in
 * one statement, by id: built once.
 */
export function customersWithFiguresPickedBy(pick: CustomerPick) {
  const read = customers.pickedBy(pick);
  return async (ctx: ServiceContext, keys: readonly number[]): Promise<Map<number, CustomerWithFigures>> => {
    const found = await read(ctx, keys);
    return new Map([...found].map(([id, { customer, figures }]) => [id, { ...customer, figures }]));
  };
}

/** Customers already read, with their figures: one statement for the whole page. */
export async function withCustomerFigures(
  ctx: ServiceContext,
  page: readonly Customer[],
): Promise<CustomerWithFigures[]> {
  if (page.length === 0) return [];
  const figures = await customers.figuresOf(
    ctx,
    page.map((customer) => customer.id),
  );
  return page.map((customer) => ({ ...customer, figures: figures.get(customer.id) ?? noFigures }));
}

/** A customer already read, with its figures. */
export async function customerWithFigures(
  ctx: ServiceContext,
  customer: Customer,
): Promise<CustomerWithFigures> {
  return (await withCustomerFigures(ctx, [customer]))[0]!;
}

/** The account's customer with its figures, in one statement; NotFound when the account has no such customer. */
export async function getCustomerWithFigures(
  ctx: ServiceContext,
  customerId: number,
): Promise<CustomerWithFigures> {
  const { customer, figures } = await customers.getCustomerWithFigures(ctx, customerId);
  return { ...customer, figures };
}

/** A customer the statement no longer finds (deleted since it was read) has nothing left to count. */
const noFigures: CustomerFigures = { balanceMinor: 0, activeSubscriptions: 0, primaryPaymentMethod: null };
