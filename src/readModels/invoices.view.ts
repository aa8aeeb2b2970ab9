import { readTogether } from '../context.ts';
import type { ServiceContext } from '../context.ts';
import type {
  Invoice,
  InvoiceApplied,
  InvoiceCredited,
  InvoiceWithFigures,
  NegativeAdjustmentApplied,
  PaymentApplied,
} from '../modules/invoicing/index.ts';
import { invoicesInFlight } from '../modules/collections/index.ts';
import {
  customersOfInvoices,
  invoicePartsByIds,
  invoicesFromParts,
  withEffectiveCollection,
} from '../modules/invoicing/index.ts';
import { allocationsToTargets, creditedOnInvoices } from '../modules/ledger/index.ts';
import type { Allocation } from '../modules/ledger/index.ts';
import type { CustomerWithFigures } from '../modules/customers/index.ts';
import { customersWithFiguresPickedBy, withCustomerFigures } from './customers.view.ts';

function appliedTo(
  invoiceId: number,
  allocations: readonly Allocation[],
  credited: InvoiceCredited | undefined,
): InvoiceApplied {
  const paymentsApplied: PaymentApplied[] = [];
  const negativeAdjustmentsApplied: NegativeAdjustmentApplied[] = [];
  for (const a of allocations) {
    if (a.sourceType === 'payment') {
      paymentsApplied.push({
        allocationId: a.id,
        invoiceId,
        paymentId: a.sourceId,
        amountMinor: a.amountMinor,
      });
    } else {
      negativeAdjustmentsApplied.push({
        allocationId: a.id,
        invoiceId,
        negativeAdjustmentId: a.sourceType === 'adjustment' ? a.sourceId : 0,
        creditNoteId: a.sourceType === 'credit_note' ? a.sourceId : 0,
        amountMinor: a.amountMinor,
      });
    }
  }
  return { paymentsApplied, negativeAdjustmentsApplied, credited: credited ?? NOTHING_CREDITED };
}

const NOTHING_CREDITED: InvoiceCredited = { amountMinor: 0, taxMinor: 0 };

/**
 * Invoices as the API shows them: with PaymentsApplied and NegativeAdjustmentsApplied (allocations, which the
 * ledger owns) and their customers' figures. A fixed number of statements for the whole page; none for the
 * allocations of unsaved invoices (previews), which have none.
 */
export async function withInvoiceFigures(
  ctx: ServiceContext,
  invoices: readonly Invoice[],
): Promise<InvoiceWithFigures[]> {
  if (invoices.length === 0) return [];
  // Whether an invoice that follows its customer and was never tried is being charged: only its attempts tell.
  const untried = invoices.flatMap((invoice) =>
    invoice.followsCustomer && invoice.id !== null && invoice.numTries === 0 && invoice.nextTryDate === null
      ? [invoice.id]
      : [],
  );
  const customers = [...new Map(invoices.map((invoice) => [invoice.customer.id, invoice.customer])).values()];
  const storedIds = invoices.flatMap((invoice) => (invoice.id === null ? [] : [invoice.id]));
  // Four reads that need nothing of each other: one round trip on PostgreSQL.
  const [inFlight, withFigures, allocations, credited] = await readTogether(
    ctx,
    (ctx) => (untried.length > 0 ? invoicesInFlight(ctx, untried) : Promise.resolve(new Set<number>())),
    (ctx) => withCustomerFigures(ctx, customers),
    (ctx) =>
      storedIds.length > 0
        ? allocationsToTargets(ctx, 'invoice', storedIds)
        : Promise.resolve(new Map<number, Allocation[]>()),
    (ctx) =>
      storedIds.length > 0
        ? creditedOnInvoices(ctx, storedIds)
        : Promise.resolve(new Map<number, InvoiceCredited>()),
  );
  const figuresOf = new Map(withFigures.map((customer) => [customer.id, customer]));
  const withCustomers = invoices.map((invoice) => ({
    ...invoice,
    customer: figuresOf.get(invoice.customer.id)!,
  }));
  return withMoneyApplied(ctx, withCustomers, { inFlight, allocations, credited });
}

/** What the ledger and the collections tell of stored invoices, by invoice id. */
interface MoneyApplied {
  inFlight: ReadonlySet<number>;
  allocations: ReadonlyMap<number, Allocation[]>;
  credited: ReadonlyMap<number, InvoiceCredited>;
}

async function withMoneyApplied(
  ctx: ServiceContext,
  invoices: readonly (Invoice & { customer: CustomerWithFigures })[],
  { inFlight, allocations, credited }: MoneyApplied,
): Promise<InvoiceWithFigures[]> {
  return (await withEffectiveCollection(ctx, invoices, inFlight)).map((invoice) => ({
    ...invoice,
    ...(invoice.id === null
      ? { paymentsApplied: [], negativeAdjustmentsApplied: [], credited: NOTHING_CREDITED }
      : appliedTo(invoice.id, allocations.get(invoice.id) ?? [], credited.get(invoice.id))),
  }));
}

const customersOf = customersWithFiguresPickedBy(customersOfInvoices);

/**
 * The account's stored invoices with these ids as the API shows them (ids it cannot see are left out), by id: every
 * read keyed by the invoices' ids, their customers with their figures too, so that in a PostgreSQL transaction
 * they are one round trip (two for a customer collected automatically). Each invoice a payment pays is rendered so
 * for its event (docs/benchmarks.md, "Payments").
 */
export async function invoicesWithFiguresByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, InvoiceWithFigures>> {
  if (ids.length === 0) return new Map();
  const [parts, customers, inFlight, allocations, credited] = await readTogether(
    ctx,
    (ctx) => invoicePartsByIds(ctx, ids),
    (ctx) => customersOf(ctx, ids),
    // Only an invoice never tried asks (withEffectiveCollection); asking of all costs no round trip.
    (ctx) => invoicesInFlight(ctx, ids),
    (ctx) => allocationsToTargets(ctx, 'invoice', ids),
    (ctx) => creditedOnInvoices(ctx, ids),
  );
  const invoices = await withMoneyApplied(ctx, invoicesFromParts(ctx, parts, customers), {
    inFlight,
    allocations,
    credited,
  });
  return new Map(invoices.map((invoice) => [invoice.id!, invoice]));
}

export async function invoiceWithFigures(ctx: ServiceContext, invoice: Invoice): Promise<InvoiceWithFigures> {
  return (await withInvoiceFigures(ctx, [invoice]))[0]!;
}
