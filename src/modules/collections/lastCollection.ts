import type { ServiceContext } from '../../context.ts';
import { listAttemptsOfInvoices } from './collectionAttempt.repository.ts';

/** How the invoice's last automatic collection ended: its card and the gateway's reason, for the pay page. */
export interface LastCollection {
  paymentMethodId: number;
  /** A reason of src/modules/gateways/failureReasons.ts for a decline or error; null for a charge that went through. */
  reason: string | null;
}

/**
 * The invoice's last finished collection attempt, undefined when it was never tried. The pay page offers to confirm
 * the payment with the stored card only when this asked for the cardholder (docs/hosted-pages.md, "Paying one
 * invoice").
 */
export async function lastCollectionOf(
  ctx: ServiceContext,
  invoiceId: number,
): Promise<LastCollection | undefined> {
  const attempts = (await listAttemptsOfInvoices(ctx.db, ctx.account.id, [invoiceId])).get(invoiceId) ?? [];
  const last = attempts.filter((attempt) => attempt.state !== 'started').at(-1);
  return last && { paymentMethodId: last.paymentMethodId, reason: last.reason };
}
