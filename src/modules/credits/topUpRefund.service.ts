import type { ServiceContext } from '../../context.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import { minorToDecimalText, wireAmountToMinor } from '../../core/money.ts';
import { invoicesByIds } from '../invoicing/index.ts';
import { getGrant } from './grant.service.ts';
import type { GrantView } from './grant.service.ts';
import { creditOf, moneyOf } from './topUpShare.ts';

/** What refunding part of a paid grant's credit takes: that much credit, and the top-up invoice's money it stands for. */
export interface TopUpRefund {
  grant: GrantView;
  topUpInvoiceId: number;
  creditMinor: number;
  /** The credit and its tax: what goes back to the card, and what the credit note puts on the top-up invoice. */
  moneyMinor: number;
}

/**
 * The first step of `POST /v1/credit-grants/{id}/refund` (docs/credits.md, "Refunding unused credit"): which credit
 * goes back and how much money that is. Only a paid grant, not voided, with credit left; `Amount` (credit, in the
 * grant's currency) at most what remains, all of it when left out. The money is the credit's share of the top-up
 * invoice counted cumulatively with what the invoice was credited before (topUpShare.ts), so that the credit note
 * takes exactly `creditMinor` from the grant and refunds one at a time add up to the invoice's total. Planned once
 * outside the customer's lock (to refuse early and find the payment) and again under it by the refund's reservation,
 * whose credit note then takes the credit out (topUpCredit.service.ts): credit spent meanwhile is refused, never
 * refunded, and the money is the share of what the invoice was credited at that moment.
 */
export async function planTopUpRefund(
  ctx: ServiceContext,
  grantId: number,
  amount: number | string | undefined,
  options: { underLock?: boolean } = {},
): Promise<TopUpRefund> {
  const grant = await getGrant(ctx, grantId);
  const money = (minor: number) => minorToDecimalText(minor, grant.currencyCode);
  if (grant.kind !== 'paid' || grant.topUpInvoiceId === null) {
    throw new ConflictError(
      'credit_grant_not_refundable',
      `Credit grant ${grantId} was granted free: no money paid for it goes back. Void it instead ` +
        `(POST /v1/credit-grants/${grantId}/void)`,
    );
  }
  if (grant.status === 'voided')
    throw new ConflictError(
      'credit_grant_voided',
      `Credit grant ${grantId} is voided: nothing of it is left`,
    );
  const creditMinor = amount === undefined ? grant.remainingMinor : checkedAmount(amount, grant);
  // Planned again under the lock, a shortfall is credit spent since the first look, not a bad Amount: the 409
  // docs/credits.md, "Refunding unused credit" names.
  if (options.underLock && (creditMinor === 0 || creditMinor > grant.remainingMinor)) {
    throw new ConflictError(
      'top_up_credit_spent',
      `Refunding ${money(creditMinor || grant.remainingMinor)} of credit grant ${grantId} found it holds only ` +
        `${money(grant.remainingMinor)}: the rest was spent or refunded meanwhile. Refund at most what remains unspent`,
    );
  }
  if (creditMinor === 0)
    throw new ConflictError('credit_grant_used', `Credit grant ${grantId} has no credit left to refund`);
  if (creditMinor > grant.remainingMinor) {
    throw ValidationError.field(
      'Amount',
      `must be at most ${money(grant.remainingMinor)}, what credit grant ${grantId} holds unspent`,
    );
  }
  const invoice = (await invoicesByIds(ctx, [grant.topUpInvoiceId])).get(grant.topUpInvoiceId)!;
  const price = { creditMinor: grant.amountMinor, totalMinor: invoice.money.totalMinor };
  const creditedMinor = invoice.money.negativeAdjsMinor;
  return {
    grant,
    topUpInvoiceId: grant.topUpInvoiceId,
    creditMinor,
    moneyMinor: moneyOf(price, creditOf(price, creditedMinor) + creditMinor) - creditedMinor,
  };
}

function checkedAmount(amount: number | string, grant: GrantView): number {
  const read = wireAmountToMinor(amount, grant.currencyCode);
  if ('message' in read) throw ValidationError.field('Amount', read.message);
  if (read.minor <= 0) throw ValidationError.field('Amount', 'must be above 0');
  return read.minor;
}
