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
import { withEffectiveCollection } from '../modules/invoicing/index.ts';
import { allocationsToTargets, creditedOnInvoices } from '../modules/ledger/index.ts';
import type { Allocation } from '../modules/ledger/index.ts';
import { withCustomerFigures } from './customers.view.ts';

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
  return (await withEffectiveCollection(ctx, invoices, inFlight)).map((invoice) => ({
    ...invoice,
    customer: figuresOf.get(invoice.customer.id)!,
    ...(invoice.id === null
      ? { paymentsApplied: [], negativeAdjustmentsApplied: [], credited: NOTHING_CREDITED }
      : appliedTo(invoice.id, allocations.get(invoice.id) ?? [], credited.get(invoice.id))),
  }));
}

export async function invoiceWithFigures(ctx: ServiceContext, invoice: Invoice): Promise<InvoiceWithFigures> {
  return (await withInvoiceFigures(ctx, [invoice]))[0]!;
}
