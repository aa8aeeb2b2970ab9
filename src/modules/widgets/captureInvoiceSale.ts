import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import { applyCreditFirst, invoicesInFlight } from '../collections/index.ts';
import { getInvoice, lockInvoicesForAllocation } from '../invoicing/index.ts';
import { withLockedCustomer } from '../ledger/index.ts';
import { includesSale } from './captureSession.ts';
import type { CaptureSessionRecord, ClaimedCaptureSession } from './captureSession.ts';
import * as repo from './captureSession.repository.ts';

/**
 * A sale that pays an invoice looks at the invoice again when the card is submitted, not only when the session was
 * made (docs/portal.md, "Paying and payment methods"; docs/spec-decisions.md, "Capture widget sessions"): a page
 * made before the invoice was paid must not charge it again.
 */

/**
 * Claims the session for a submit (or a challenge's answer) by `claim`; a sale that names an invoice is claimed
 * only under the invoice's customer's lock, with the invoice locked and read again. While another payment of the
 * invoice is in flight (the portal's Pay button, a collection run, another session's sale) or when it owes nothing
 * now, nothing is claimed and the frame is told why in words (409). A sale made for the invoice's balance
 * (`upToOwed`) charges at most what it owes now. The claim marks the sale in flight for the others, as their
 * `started` attempts mark theirs for it.
 */
export async function claimForSale<T extends ClaimedCaptureSession | undefined>(
  ctx: ServiceContext,
  found: CaptureSessionRecord,
  claim: (ctx: ServiceContext) => Promise<T>,
): Promise<T> {
  const invoiceId = found.invoiceId;
  if (invoiceId === null || !includesSale(found.saleType) || found.amountMinor === null) {
    return claim(ctx);
  }
  const invoice = await getInvoice(ctx, invoiceId).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  });
  if (!invoice) throw nothingOwed(invoiceId);
  const claimed = await withLockedCustomer(ctx, invoice.customer.id, async (tctx) => {
    const [target] = await lockInvoicesForAllocation(tctx, invoice.customer.id, [invoiceId], []);
    if (
      (await invoicesInFlight(tctx, [invoiceId])).size > 0 ||
      (await salesInFlight(tctx, [invoiceId], found.id)).size > 0
    ) {
      throw new ConflictError(
        'invoice_payment_in_flight',
        'A payment of this invoice is already being made. Nothing was charged: look again in a few minutes.',
      );
    }
    if (!target || target.refusal || target.openMinor <= 0)
      throw nothingOwed(invoice.invoiceNum ?? invoiceId);
    // Credit first (docs/gateways.md, "Credit first"): the customer's own money pays the invoice before a card does,
    // when the sale is for what the invoice owes. A merchant's sale of a fixed amount is charged as sent, so credit
    // applied first would make part of the charge pay nothing.
    const credited = found.upToOwed
      ? await applyCreditFirst(tctx, [
          { id: invoiceId, customerId: invoice.customer.id, currencyCode: target.currencyCode },
        ])
      : new Map<number, number>();
    const owedMinor = credited.get(invoiceId) ?? target.openMinor;
    // Answered, not thrown: the credit's allocation is kept (committed) while nothing is claimed.
    if (owedMinor <= 0) return { paidFromCredit: true } as const;
    const row = await claim(tctx);
    if (!row || !found.upToOwed || row.amountMinor === null || row.amountMinor <= owedMinor) return { row };
    await repo.updateCaptureSession(tctx.db, tctx.account.id, row.id, { amountMinor: owedMinor });
    return { row: { ...row, amountMinor: owedMinor } };
  });
  if ('paidFromCredit' in claimed) throw paidFromCredit(invoice.invoiceNum ?? invoiceId);
  return claimed.row;
}

const paidFromCredit = (invoice: number) =>
  new ConflictError(
    'invoice_nothing_owed',
    `Invoice ${invoice} owes nothing now: the customer's credit paid it. Nothing was charged.`,
  );

const nothingOwed = (invoice: number) =>
  new ConflictError(
    'invoice_nothing_owed',
    `Invoice ${invoice} owes nothing now: it was paid meanwhile. Nothing was charged.`,
  );

/**
 * The invoices among `invoiceIds` a session's sale is paying now (other than session `exceptId`'s): claimed by a
 * submit, waiting in a provider's popup until the session expires (docs/hosted-pages.md, "When the browser never
 * comes back"), or charged and not completed yet. Wall time for a claim's end (captureClaim.ts); the session's
 * Expires is business time, as it was set.
 */
export async function salesInFlight(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
  exceptId: number | null = null,
): Promise<ReadonlySet<number>> {
  const times = { wallNow: ctx.wallClock.now().toISOString(), now: nowInstant(ctx) };
  return new Set(
    await repo.listInvoicesWithSalesInFlight(ctx.db, ctx.account.id, invoiceIds, times, exceptId),
  );
}

/** The gateway and charge of the session that recorded the payment, which a refund names (collections' port). */
export function capturedChargeOfPayment(
  ctx: ServiceContext,
  paymentId: number,
): Promise<{ gatewayId: number; chargeId: string } | undefined> {
  return repo.findChargeOfPayment(ctx.db, ctx.account.id, paymentId);
}
