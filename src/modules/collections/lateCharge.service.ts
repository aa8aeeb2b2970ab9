import { today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { DomainError } from '../../errors.ts';
import { getCustomer, queueCustomerNotice } from '../customers/index.ts';
import { getInvoice } from '../invoicing/index.ts';
import { getPayment } from '../ledger/index.ts';
import { refundPayment } from './gatewayRefund.service.ts';
import { amountText, longDate } from './noticeWords.ts';
import { queueStaffMail } from './staffNotices.ts';

/**
 * A charge taken in a provider's popup (the pay page, the portal, a merchant's capture session) that was recorded
 * after its invoice had been paid another way: another tab, a staff payment, the collection run once the session
 * expired. What the invoice did not take is refunded through the provider that charged it, or kept as the
 * customer's credit where the account chose so (`LateChargesOnPaidInvoices`), and the customer and the staff are
 * told which (docs/hosted-pages.md, "When the browser never comes back").
 */
export interface LateCharge {
  paymentId: number;
  invoiceId: number;
  /** What the invoice did not take of the charge: the part refunded or kept. */
  amountMinor: number;
  currencyCode: string;
  /** The card as the customer knows it ("Visa ending 4081"), when the session saw it. */
  card?: string;
}

export type LateChargeOutcome = 'refunded' | 'refund_pending' | 'credit' | 'refund_refused';

/**
 * Settles a late charge once, after the transaction that recorded its payment (a refund asks the provider, which no
 * transaction may wait on): refunds it or keeps it, then tells the customer and the staff. The caller calls it only
 * from the completion that recorded the payment, so it runs once a charge.
 */
export async function settleLateCharge(ctx: ServiceContext, charge: LateCharge): Promise<LateChargeOutcome> {
  const outcome =
    ctx.account.collectionLoop.lateCharges === 'refund' ? await refundLateCharge(ctx, charge) : 'credit';
  await withTransaction(ctx, (tctx) => tellLateCharge(tctx, charge, outcome));
  ctx.mailQueued();
  return outcome;
}

/**
 * The charge's unallocated part refunded through its gateway (gatewayRefund.service.ts), no more than the payment
 * still holds unallocated when its customer is locked: credit the customer spent meanwhile stays spent. A refund
 * the provider did not answer stays reserved and is asked again by the collection run; one it refused leaves the
 * money as credit, which the staff are told to look at.
 */
async function refundLateCharge(ctx: ServiceContext, charge: LateCharge): Promise<LateChargeOutcome> {
  try {
    await refundPayment(ctx, charge.paymentId, {
      memo: `Charged after invoice ${await invoiceNumber(ctx, charge.invoiceId)} was paid`,
      amountUnderLock: async (tctx) => {
        const payment = await getPayment(tctx, charge.paymentId);
        return Math.min(charge.amountMinor, payment.amountMinor - payment.allocatedMinor);
      },
    });
    // Accepted by the provider, at once or pending its late word (gatewayRefund.service.ts, applyRefundEvent).
    return 'refunded';
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    if (error.code === 'refund_unanswered') return 'refund_pending';
    ctx.log.warn({ err: error, paymentId: charge.paymentId }, 'a late charge could not be refunded');
    return 'refund_refused';
  }
}

async function invoiceNumber(ctx: ServiceContext, invoiceId: number): Promise<string | number> {
  return (await getInvoice(ctx, invoiceId)).invoiceNum ?? invoiceId;
}

/** The customer's e-mail and the staff's, in one transaction: what came, for which invoice, and what was done. */
async function tellLateCharge(
  ctx: ServiceContext,
  charge: LateCharge,
  outcome: LateChargeOutcome,
): Promise<void> {
  const number = await invoiceNumber(ctx, charge.invoiceId);
  const payment = await getPayment(ctx, charge.paymentId);
  const customer = await getCustomer(ctx, payment.customerId);
  const amount = amountText(charge.currencyCode, charge.amountMinor);
  const from = charge.card ? ` from ${charge.card}` : '';
  const refunding = outcome === 'refunded' || outcome === 'refund_pending';
  await queueCustomerNotice(ctx, customer, {
    subject: refunding
      ? `Invoice ${number} was already paid: ${amount} refunded`
      : `Invoice ${number} was already paid: ${amount} kept as credit`,
    blocks: [
      {
        paragraph: `We received ${amount}${from} on ${longDate(today(ctx))} for invoice ${number}, which had already been paid.`,
        strong: true,
      },
      {
        paragraph: refunding
          ? `We have refunded it to ${charge.card ?? 'your card'}. A refund to a card usually reaches your account within 5 to 10 business days, depending on your bank.`
          : 'We have kept it as credit on your account: it pays your next invoices. Reply to this e-mail if you would rather have it back.',
      },
    ],
  });
  const who =
    [customer.name, customer.lastName].filter(Boolean).join(' ') || customer.company || 'a customer';
  const staffWords: Record<LateChargeOutcome, string> = {
    refunded: 'It was refunded through the gateway that charged it.',
    refund_pending:
      'Its refund was asked of the gateway that charged it; the service finishes it when the gateway answers.',
    credit:
      "It was kept as the customer's credit, as the account's LateChargesOnPaidInvoices setting says. Refund it " +
      `with POST /v1/payments/${charge.paymentId}/refund if the customer asks.`,
    refund_refused:
      "The gateway refused to refund it, so it is kept as the customer's credit: look at the payment and refund it " +
      'another way if the customer wants the money back.',
  };
  await queueStaffMail(ctx, {
    subject: `Invoice ${number} paid twice: ${amount} ${refunding ? 'refunded' : 'kept as credit'}`,
    blocks: [
      {
        paragraph: `Payment ${charge.paymentId} of ${amount} from ${who} arrived for invoice ${number} after the invoice had been paid another way.`,
      },
      { paragraph: staffWords[outcome] },
    ],
  });
}
