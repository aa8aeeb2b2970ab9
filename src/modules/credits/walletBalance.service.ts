import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { minorToGroupedText } from '../../core/money.ts';
import { documentSeller, sellerLines, mailSenderName } from '../auth/index.ts';
import { getCustomer } from '../customers/index.ts';
import { emitEvents, snapshotResource } from '../events/index.ts';
import type { EventToEmit } from '../events/index.ts';
import { invoicesByIds } from '../invoicing/index.ts';
import { messageBody, queueMail } from '../mail/index.ts';
import { getPaymentMethod, primaryPaymentMethodsOf } from '../paymentMethods/index.ts';
import * as repo from './credit.repository.ts';
import * as topUpRepo from './topUp.repository.ts';
import { insertTopUpInvoice } from './topUpInvoice.ts';
import type { TopUpCard } from './topUpInvoice.ts';
import { walletRef, walletsByIds } from './wallet.service.ts';
import type { WalletView } from './wallet.service.ts';

/**
 * The balance checks after every change of a wallet's balance (docs/credits.md, "Automatic top-ups" and
 * "Low-balance alerts"): the low-balance alert fires once a crossing below its threshold and is rearmed at or above
 * it; a balance below the top-up threshold makes an automatic top-up unless one is still unpaid. They run in the
 * changing transaction, under the customer's lock its caller holds (consumption, expiry, grants, paid top-ups), so
 * two invoices issued at once see each other's top-up (docs/spec-decisions.md, "Prepaid credits").
 */
export async function checkWalletBalances(ctx: ServiceContext, walletIds: readonly number[]): Promise<void> {
  if (walletIds.length === 0) return;
  const views = await walletsByIds(ctx, walletIds);
  for (const wallet of views.values()) {
    if (wallet.lowBalanceAlertMinor === null && wallet.autoTopUpThresholdMinor === null) continue;
    const before = await snapshotResource(ctx, walletRef(wallet.id));
    const events: EventToEmit[] = [];
    const alerted = await checkAlert(ctx, wallet);
    if (alerted === 'fired') events.push({ type: 'wallet.balance_low', ref: walletRef(wallet.id), before });
    const topUp = await checkAutoTopUp(ctx, wallet);
    if (topUp === 'started')
      events.push({ type: 'wallet.auto_top_up_started', ref: walletRef(wallet.id), before });
    const lowBalanceAlerted = alerted === 'fired' || (alerted === 'unchanged' && wallet.lowBalanceAlerted);
    const autoTopUpProblem =
      typeof topUp === 'object' ? topUp.problem : topUp === 'started' ? null : wallet.autoTopUpProblem;
    if (lowBalanceAlerted !== wallet.lowBalanceAlerted || autoTopUpProblem !== wallet.autoTopUpProblem) {
      await repo.updateWalletState(
        ctx.db,
        ctx.account.id,
        wallet.id,
        { lowBalanceAlerted, autoTopUpProblem },
        nowInstant(ctx),
      );
    }
    // A top-up that cannot be made is told once a problem, not at every invoice while it lasts.
    if (typeof topUp === 'object' && topUp.problem !== wallet.autoTopUpProblem)
      events.push({ type: 'wallet.auto_top_up_failed', ref: walletRef(wallet.id), before });
    await emitEvents(ctx, events);
  }
}

/** Fires (below the threshold, not yet alerted), rearms (at or above it, alerted) or leaves the alert as it is. */
async function checkAlert(
  ctx: ServiceContext,
  wallet: WalletView,
): Promise<'fired' | 'rearmed' | 'unchanged'> {
  if (wallet.lowBalanceAlertMinor === null) return wallet.lowBalanceAlerted ? 'rearmed' : 'unchanged';
  const below = wallet.balanceMinor < wallet.lowBalanceAlertMinor;
  if (below && !wallet.lowBalanceAlerted) {
    // docs/spec-decisions.md, "Prepaid credits": the e-mail follows the account's SendLowBalanceAlerts.
    if (ctx.account.notices.lowBalance && (await queueLowBalanceMail(ctx, wallet))) ctx.mailQueued();
    return 'fired';
  }
  if (!below && wallet.lowBalanceAlerted) return 'rearmed';
  return 'unchanged';
}

/**
 * An automatic top-up when the balance is below its threshold: none while one is still unpaid (its invoice not
 * cancelled); `{ problem }` when the customer has no primary card to charge it to.
 */
async function checkAutoTopUp(
  ctx: ServiceContext,
  wallet: WalletView,
): Promise<'none' | 'started' | { problem: string }> {
  if (wallet.autoTopUpThresholdMinor === null || wallet.autoTopUpAmountMinor === null) return 'none';
  if (wallet.balanceMinor >= wallet.autoTopUpThresholdMinor) return 'none';
  const unpaid = await topUpRepo.unpaidAutomaticTopUps(ctx.db, ctx.account.id, wallet.id);
  const invoices = await invoicesByIds(ctx, unpaid);
  if ([...invoices.values()].some((invoice) => !invoice.isCancelled)) return 'none';
  const card = await primaryCardOf(ctx, wallet.customerId);
  if ('problem' in card) return card;
  await insertTopUpInvoice(ctx, wallet, wallet.autoTopUpAmountMinor, card);
  return 'started';
}

/** The customer's primary method when it is a valid card kept by a gateway, else why not. */
async function primaryCardOf(
  ctx: ServiceContext,
  customerId: number,
): Promise<TopUpCard | { problem: string }> {
  const primary = (await primaryPaymentMethodsOf(ctx, [customerId])).get(customerId);
  if (!primary) return { problem: 'no_payment_method: the customer has no primary payment method' };
  const method = await getPaymentMethod(ctx, primary.paymentMethodId);
  if (method.type !== 'credit_card' || method.gatewayId === null)
    return { problem: 'payment_method_of_other_kind: the customer’s primary payment method is not a card' };
  if (!method.isValid)
    return { problem: 'payment_method_not_valid: the customer’s primary card is not valid' };
  return { gatewayId: method.gatewayId, paymentMethodId: method.id };
}

/** The alert's e-mail to the customer's Email (copied to EmailCC); false when the customer has no address. */
async function queueLowBalanceMail(ctx: ServiceContext, wallet: WalletView): Promise<boolean> {
  const customer = await getCustomer(ctx, wallet.customerId);
  if (!customer.email) return false;
  const seller = await documentSeller(ctx);
  const money = (minor: number) => `${wallet.currencyCode} ${minorToGroupedText(minor, wallet.currencyCode)}`;
  const subject = 'Your prepaid credit is running low';
  const name = [customer.name, customer.lastName].filter(Boolean).join(' ');
  const body = messageBody({
    title: subject,
    greeting: `Hello ${name},`,
    blocks: [
      {
        paragraph: `The balance of your prepaid credit${wallet.name ? ` (${wallet.name})` : ''} is ${money(wallet.balanceMinor)}, below your alert of ${money(wallet.lowBalanceAlertMinor!)}.`,
      },
      {
        figures: [
          ['Balance', money(wallet.balanceMinor)],
          ['Alert at', money(wallet.lowBalanceAlertMinor!)],
        ],
      },
      {
        paragraph:
          wallet.autoTopUpAmountMinor !== null
            ? `Your credit is topped up automatically with ${money(wallet.autoTopUpAmountMinor)} when it falls below ${money(wallet.autoTopUpThresholdMinor!)}.`
            : 'Top up your credit to keep your invoices paid from it.',
      },
    ],
    signature: [mailSenderName(seller), ...sellerLines(seller)],
  });
  await queueMail(ctx.db, ctx, ctx.account.id, {
    to: customer.email,
    cc: customer.emailCc,
    subject,
    ...body,
  });
  return true;
}

/**
 * For the collection loop: a declined charge of an automatic top-up's invoice is also the wallet's
 * `wallet.auto_top_up_failed` (docs/credits.md, "Automatic top-ups"); the invoice's retries go on as any card
 * invoice's. Nothing for other invoices.
 */
export async function autoTopUpDeclinedEvents(
  ctx: ServiceContext,
  invoiceId: number,
): Promise<EventToEmit[]> {
  const [topUp] = await topUpRepo.topUpsOfInvoices(ctx.db, ctx.account.id, [invoiceId]);
  if (!topUp?.automatic) return [];
  return [{ type: 'wallet.auto_top_up_failed', ref: walletRef(topUp.walletId) }];
}
