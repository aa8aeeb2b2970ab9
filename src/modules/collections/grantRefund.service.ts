import type { ServiceContext } from '../../context.ts';
import { ConflictError } from '../../errors.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { optionalText } from '../../core/text.ts';
import { getGrant, planTopUpRefund } from '../credits/index.ts';
import type { GrantView, TopUpRefund } from '../credits/index.ts';
import { getPayment, paymentsOnInvoice } from '../ledger/index.ts';
import { chargeOfPayment, refundPayment } from './gatewayRefund.service.ts';

/**
 * POST /v1/credit-grants/{id}/refund (docs/credits.md, "Refunding unused credit"): unused credit of a paid top-up
 * paid back to the card that bought it. The credit and its tax share are refunded through the gateway by the one
 * refund use case (gatewayRefund.service.ts: reserved under the customer's lock, asked, confirmed or undone; an
 * answer lost is finished by the next collection run), taking only the money that paid the top-up's invoice and
 * crediting the invoice; that credit note takes the credit out of the grant in the reserving transaction
 * (a `refund` entry, topUpCredit.service.ts), so credit consumed meanwhile is refused there and never refunded.
 */
export async function refundCreditGrant(
  ctx: ServiceContext,
  grantId: number,
  input: { amount?: number | string; memo?: string | null },
): Promise<GrantView> {
  const refund = await planTopUpRefund(ctx, grantId, input.amount);
  const paymentId = await cardPaymentOfTopUp(ctx, refund);
  const memo = optionalText(input.memo);
  await refundPayment(ctx, paymentId, {
    // Planned again under the lock: a credit note landing on the top-up invoice meanwhile changes the money that
    // stands for the credit asked, by its rounding (topUpRefund.service.ts), and credit spent meanwhile is a 409.
    amountUnderLock: async (locked) =>
      (await planTopUpRefund(locked, grantId, input.amount, { underLock: true })).moneyMinor,
    paidInvoices: 'credit',
    onlyInvoiceId: refund.topUpInvoiceId,
    memo: `Unused credit of credit grant ${grantId} refunded${memo ? `: ${memo}` : ''}`,
  });
  return getGrant(ctx, grantId);
}

/**
 * The card payment, charged through a gateway, that paid the top-up's invoice at least the money to refund: the
 * latest such. 409 otherwise (paid by hand, by debit order, or in parts none of which holds enough): that money goes
 * back by hand.
 */
async function cardPaymentOfTopUp(ctx: ServiceContext, refund: TopUpRefund): Promise<number> {
  const paid = await paymentsOnInvoice(ctx, refund.topUpInvoiceId);
  const latestFirst = [...paid].sort(([a], [b]) => b - a);
  for (const [paymentId, amountMinor] of latestFirst) {
    if (amountMinor < refund.moneyMinor) continue;
    const payment = await getPayment(ctx, paymentId);
    if (payment.paymentMethodId === null || payment.state !== 'settled') continue;
    if (await chargeOfPayment(ctx, payment)) return paymentId;
  }
  const money = minorToDecimalText(refund.moneyMinor, refund.grant.currencyCode);
  throw new ConflictError(
    'credit_grant_not_refundable',
    `Top-up invoice ${refund.topUpInvoiceId} of credit grant ${refund.grant.id} was not paid ${money} by a card ` +
      `charged through a gateway: refund that money by hand (a positive adjustment of type refund) and credit the ` +
      `invoice (POST /v1/credits), which takes the credit out of the grant`,
  );
}
