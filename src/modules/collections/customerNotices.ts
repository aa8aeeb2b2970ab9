import { today } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { ServiceContext } from '../../context.ts';
import { getCustomer, queueCustomerNotice } from '../customers/index.ts';
import { documentSeller, sellerLines, mailSenderName } from '../auth/index.ts';
import { emitEvents } from '../events/index.ts';
import { invoicesByIds } from '../invoicing/index.ts';
import { isGatewayUsable, listGateways } from '../gateways/index.ts';
import { getPayment } from '../ledger/index.ts';
import type { MessageBlock } from '../mail/index.ts';
import { messageBody } from '../mail/index.ts';
import { getPaymentMethod } from '../paymentMethods/index.ts';
import { findLastReasonOfMethod } from './collectionAttempt.repository.ts';
import { payLinkFor, queueCustomerMails } from './customerMails.ts';
import type { MailRecipient } from './customerMails.ts';
import {
  amountText,
  longDate,
  longDateIn,
  methodUnusable,
  needsAuthentication,
  reasonSentence,
} from './noticeWords.ts';

/**
 * What the collection loop tells customers (docs/gateways.md, "The collection loop"): a receipt for every payment
 * collected, and a notice at every failed collection with what happens next and a link to act. Each is queued in the
 * caller's transaction (the outbox), in text and HTML with the seller's details, when the account's settings ask
 * for it (`Account.collectionLoop`); its event is emitted whatever the settings say (docs/webhooks.md, "Collection
 * notices").
 */

/** A collection that failed: a card's decline, or a debit order's return. */
export interface CollectionFailure {
  customerId: number;
  invoiceId: number;
  currencyCode: string;
  /** What the failed collection tried to take. */
  amountMinor: number;
  /** The reason in the vocabulary of src/modules/gateways/failureReasons.ts (a card's) or of the rail's return codes (a debit's). */
  reason: string;
  /** The stored method it was taken from, for its brand and last four digits; null when unknown. */
  paymentMethodId: number | null;
  /** When it is tried next (a plain date or an instant); null: it will not be tried again automatically. */
  nextTryDate: string | null;
  /** What it was taken from, when no stored method says: a card unless told otherwise. */
  from?: 'card' | 'bank_account';
  /** This failure was the last try the schedule allowed (the retries ran out). */
  exhausted?: boolean;
  /**
   * A debit order tried again with its mandate's next debit, which collects it with that date's own amount
   * (docs/gateways.md, "Months that stay in step").
   */
  together?: boolean;
  /** A debit order handed to the customer to pay: its mandate's next debit collects that period's own invoice. */
  customerPays?: boolean;
}

/** The method as a customer knows it: "Visa ending 4242", "bank account ending 0001". */
async function methodWords(
  ctx: ServiceContext,
  paymentMethodId: number | null,
): Promise<{ words: string; kind: 'card' | 'bank_account' } | undefined> {
  if (paymentMethodId === null) return undefined;
  const method = await getPaymentMethod(ctx, paymentMethodId).catch(() => undefined);
  if (method?.creditCard) {
    return { words: `${method.creditCard.cardType} ending ${method.creditCard.lastFour}`, kind: 'card' };
  }
  if (method?.bankAccount) {
    const lastFour = method.bankAccount.lastFour;
    return {
      words: lastFour ? `bank account ending ${lastFour}` : 'your bank account',
      kind: 'bank_account',
    };
  }
  return undefined;
}

async function signature(ctx: ServiceContext): Promise<string[]> {
  const seller = await documentSeller(ctx);
  return [mailSenderName(seller), ...sellerLines(seller)];
}

const letter = (subject: string, recipient: MailRecipient, blocks: MessageBlock[], lines: string[]) => ({
  subject,
  ...messageBody({ title: subject, greeting: `Dear ${recipient.name},`, blocks, signature: lines }),
});

/**
 * A receipt for a payment collected (a card charge, a debit order once settled and its return window passed, a
 * portal or widget payment): what was paid, from which method, on which day, and for each invoice it paid what was
 * applied and what it still owes.
 * `invoice.payment_succeeded` is emitted for each invoice it paid. `method` names the method when the payment keeps
 * none (a widget sale of a card not kept).
 */
export async function noticePaymentCollected(
  ctx: ServiceContext,
  paymentId: number,
  options: { method?: string } = {},
): Promise<void> {
  const payment = await getPayment(ctx, paymentId);
  const allocations = payment.allocations.filter((a) => a.targetType === 'invoice' && a.amountMinor > 0);
  const invoices = await invoicesByIds(
    ctx,
    allocations.map((a) => a.targetId),
  );
  await emitEvents(
    ctx,
    allocations.map((a) => ({ type: 'invoice.payment_succeeded', ref: { type: 'invoice', id: a.targetId } })),
  );
  if (!ctx.account.collectionLoop.sendReceipts) return;
  const paid = amountText(payment.currencyCode, payment.amountMinor);
  const method = (await methodWords(ctx, payment.paymentMethodId))?.words ?? options.method;
  const figures: [string, string][] = [];
  for (const allocation of allocations) {
    const invoice = invoices.get(allocation.targetId);
    if (!invoice) continue;
    const owed = Math.max(0, invoice.balances.balanceMinor);
    figures.push([
      `Invoice ${invoice.invoiceNum}`,
      `${amountText(payment.currencyCode, allocation.amountMinor)} paid, ${amountText(payment.currencyCode, owed)} still owed`,
    ]);
  }
  const lines = await signature(ctx);
  const subject = `Receipt from ${lines[0]}: ${paid} received`;
  const blocks: MessageBlock[] = [
    {
      paragraph: `Thank you: we received ${paid}${method ? ` from ${method}` : ''} on ${longDate(payment.date)}.`,
    },
    ...(figures.length ? [{ figures }] : [{ paragraph: 'It is kept as credit on your account.' }]),
  ];
  if (await queueCustomerMails(ctx, payment.customerId, (to) => letter(subject, to, blocks, lines)))
    ctx.mailQueued();
}

/**
 * A notice at the failure itself (docs/gateways.md, "The collection loop"): what failed, why in a customer's words,
 * what happens next (the next try's date, or that it stopped and why), and a link to act. A payment waiting for the
 * customer's confirmation asks for it (subject and first line), and emits `invoice.payment_action_required`; the
 * failure's own `invoice.payment_failed` is the caller's, emitted with the invoice's change. One call per failure:
 * the last try's (`exhausted`) says that no more will follow, so no second e-mail is needed for it. True when an
 * e-mail was queued.
 */
export async function noticeCollectionFailed(
  ctx: ServiceContext,
  failure: CollectionFailure,
): Promise<boolean> {
  const invoice = (await invoicesByIds(ctx, [failure.invoiceId])).get(failure.invoiceId);
  if (!invoice) return false;
  const confirm = needsAuthentication(failure.reason);
  if (confirm) {
    await emitEvents(ctx, [
      { type: 'invoice.payment_action_required', ref: { type: 'invoice', id: failure.invoiceId } },
    ]);
  }
  if (!ctx.account.collectionLoop.sendPaymentFailed) return false;
  const method = await methodWords(ctx, failure.paymentMethodId);
  const from = method?.kind ?? failure.from ?? 'card';
  const amount = amountText(failure.currencyCode, failure.amountMinor);
  const lines = await signature(ctx);
  const number = invoice.invoiceNum ?? failure.invoiceId;
  const subject = confirm
    ? `Please confirm your payment of invoice ${number} to ${lines[0]}`
    : `Payment of invoice ${number} to ${lines[0]} failed`;
  const first = confirm
    ? `Please confirm the payment of ${amount} for invoice ${number} with your bank: we could not take it from ${method?.words ?? 'your card'} without you.`
    : `We could not collect ${amount} for invoice ${number} from ${method?.words ?? (from === 'card' ? 'your card' : 'your bank account')}.`;
  const debitOrders = confirm && from === 'card' && (await takesDebitOrders(ctx));
  const debit = { amount, method: method?.words ?? 'your bank account' };
  const eft = failure.customerPays ? await eftBlocks(ctx, number) : [];
  const queued = await queueCustomerMails(ctx, failure.customerId, (to) => {
    const link = payLinkFor(ctx, to, failure.invoiceId);
    const blocks: MessageBlock[] = [
      { paragraph: first, strong: true },
      { paragraph: reasonSentence(failure.reason, from) },
      { paragraph: nextStep(ctx, failure, from, link !== undefined, debit) },
      ...(link ? [{ link, text: linkText(failure, number) }] : []),
      ...eft,
      ...(confirm && from === 'card' ? otherWaysToPay(ctx, to, method?.words, debitOrders) : []),
    ];
    return letter(subject, to, blocks, lines);
  });
  if (queued) ctx.mailQueued();
  return queued;
}

/**
 * A card whose bank asks the customer to confirm every charge stops renewals each time (docs/gateways.md, "The
 * collection loop"): the confirmation notice offers the ways out, another card (in the portal for a contact who
 * signs in there, else by answering) and, where the account takes debit orders, a debit order, which needs a
 * mandate the business makes for the customer (docs/portal.md, "Debit order mandates").
 */
function otherWaysToPay(
  ctx: ServiceContext,
  to: MailRecipient,
  card: string | undefined,
  debitOrders: boolean,
): MessageBlock[] {
  const portal =
    to.hasPortalLogin && ctx.account.portalSlug && ctx.publicUrl
      ? `${ctx.publicUrl}/portal/${ctx.account.portalSlug}/payment-methods`
      : undefined;
  const anotherCard = portal
    ? 'save another card in the customer portal and make it your primary one'
    : 'reply to this e-mail to give us another card';
  const debit = debitOrders
    ? ', or pay by debit order from your bank account instead: reply to this e-mail and we will send you a debit order mandate to sign'
    : '';
  return [
    {
      paragraph: `If your bank asks you to confirm every payment from ${card ?? 'this card'}, each renewal will wait for you like this one. So that they go through on their own, ${anotherCard}${debit}.`,
    },
    ...(portal ? [{ link: portal, text: 'Save another card' }] : []),
  ];
}

/**
 * Whether the account collects debit orders: one of its gateways in use takes bank debits (a test gateway only on a
 * test account, which bills nobody for real).
 */
export async function takesDebitOrders(ctx: ServiceContext): Promise<boolean> {
  const gateways = await listGateways(ctx, { limit: 200, offset: 0 });
  return gateways.some(
    (gateway) =>
      isGatewayUsable(gateway) && gateway.acceptsBankAccount && (ctx.account.isTest || !gateway.isTestMode),
  );
}

/**
 * Whether the card's last collection stopped to ask the customer to confirm it with their bank: the portal then
 * offers the same ways out as the notice (docs/portal.md, "Paying and payment methods").
 */
export async function asksForConfirmation(ctx: ServiceContext, paymentMethodId: number): Promise<boolean> {
  const last = await findLastReasonOfMethod(ctx.db, ctx.account.id, paymentMethodId);
  return last?.reason !== undefined && last.reason !== null && needsAuthentication(last.reason);
}

/**
 * What happens next, in the account's time zone: the next try, or why there is none and what to do, on the page
 * linked below, or, where the service knows no address to link to (docs/portal.md, "PUBLIC_URL and links"), by
 * answering the e-mail.
 */
function nextStep(
  ctx: ServiceContext,
  failure: CollectionFailure,
  from: 'card' | 'bank_account',
  linked: boolean,
  debit: { amount: string; method: string },
): string {
  if (failure.nextTryDate) {
    const on = longDateIn(failure.nextTryDate, ctx.account.timeZone);
    if (from === 'card') return `We will try again on ${on}, unless you pay before then.`;
    // The date, the amount and the account: what the customer needs to have the money there.
    const together = failure.together ? ", together with that day's debit order" : '';
    return `We will try again on ${on}: ${debit.amount} from ${debit.method}${together}, unless you pay before then.`;
  }
  const reply = 'Please reply to this e-mail, or reach us as below, and we will tell you how to pay.';
  if (failure.customerPays) {
    const mandate =
      'We will not debit this amount again: your debit order mandate allows one debit a month, and your next debit order collects that month’s invoice.';
    return linked ? `${mandate} Please pay ${debit.amount} on the page below.` : `${mandate} ${reply}`;
  }
  if (needsAuthentication(failure.reason)) {
    return linked
      ? 'We will not try again without you: confirm the payment on the page below, or pay with another card there.'
      : `We will not try again without you. ${reply}`;
  }
  if (methodUnusable(failure.reason)) {
    if (!linked) {
      const method =
        from === 'card' ? 'This card can no longer be used' : 'This account can no longer be debited';
      return `${method}, so we will not try it again. ${reply}`;
    }
    return from === 'card'
      ? 'This card can no longer be used, so we will not try it again. Please add a new card, or pay the invoice, on the page below.'
      : 'This account can no longer be debited, so we will not try it again. Please pay the invoice another way on the page below.';
  }
  if (failure.exhausted) {
    return linked
      ? 'We have tried as often as we can and will not try again. Please pay the invoice on the page below, or give us another payment method.'
      : `We have tried as often as we can and will not try again. ${reply}`;
  }
  return linked
    ? 'We will not try again automatically. Please pay the invoice on the page below.'
    : `We will not try again automatically. ${reply}`;
}

/**
 * The seller's own words on paying by transfer (PaymentInstructions: its bank details), when it gave any, with the
 * invoice's number as the reference that lets the payment be found.
 */
export async function eftBlocks(ctx: ServiceContext, invoiceNumber: number): Promise<MessageBlock[]> {
  const instructions = (await documentSeller(ctx)).details.paymentInstructions;
  return instructions
    ? [{ paragraph: `Or pay by EFT, with ${invoiceNumber} as your reference:\n${instructions}` }]
    : [];
}

function linkText(failure: CollectionFailure, number: number): string {
  if (needsAuthentication(failure.reason)) return `Confirm the payment of invoice ${number}`;
  if (methodUnusable(failure.reason)) return `Add a new card or pay invoice ${number}`;
  return `Pay invoice ${number}`;
}

/**
 * A customer told of a refund through a gateway once the gateway made it (docs/tax.md, "What customers are told"):
 * how much, to which card, and when to expect it, when the account sends refund notices (SendRefundNotices, on by
 * default); in the confirming transaction. `payment.refunded` is the refund's own event.
 */
export async function noticeRefundMade(
  ctx: ServiceContext,
  refund: { paymentId: number; amountMinor: number; currencyCode: string },
): Promise<void> {
  if (!ctx.account.notices.refunds) return;
  const payment = await getPayment(ctx, refund.paymentId);
  const customer = await getCustomer(ctx, payment.customerId);
  const method = (await methodWords(ctx, payment.paymentMethodId))?.words ?? 'your card';
  const amount = amountText(refund.currencyCode, refund.amountMinor);
  const lines = await signature(ctx);
  await queueCustomerNotice(ctx, customer, {
    subject: `Refund from ${lines[0]}: ${amount}`,
    blocks: [
      { paragraph: `We have refunded ${amount} to ${method} on ${longDate(today(ctx))}.`, strong: true },
      {
        paragraph:
          'A refund to a card usually reaches your account within 5 to 10 business days, depending on your bank.',
      },
    ],
  });
}

/** A debit order whose date changes, as its customer is told before the date it was announced for. */
export interface DebitMove {
  customerId: number;
  invoiceId: number;
  currencyCode: string;
  amountMinor: number;
  paymentMethodId: number | null;
  /** The date the customer was told. */
  from: PlainDate;
  /** The new date; null: it is not debited, and the customer is asked to pay. */
  to: PlainDate | null;
  /** Collected on `to` together with that date's own debit order, as one debit. */
  together?: boolean;
  /** Why, in a customer's words. */
  why: string;
}

/**
 * Tells the customer that a debit order announced for one date moves to another, or will not be made
 * (docs/gateways.md, "Months that stay in step"): the new date, the amount and the account ending, or how to pay
 * instead. Sent whatever the account's notice settings say: the customer was promised a date, and keeps money
 * there for it. In the caller's transaction; true when an e-mail was queued (the caller tells the mail worker).
 */
export async function noticeDebitMoved(ctx: ServiceContext, move: DebitMove): Promise<boolean> {
  const invoice = (await invoicesByIds(ctx, [move.invoiceId])).get(move.invoiceId);
  if (!invoice) return false;
  const method = (await methodWords(ctx, move.paymentMethodId))?.words ?? 'your bank account';
  const amount = amountText(move.currencyCode, move.amountMinor);
  const number = invoice.invoiceNum ?? move.invoiceId;
  const lines = await signature(ctx);
  const was = `The debit order of ${amount} for invoice ${number}, announced for ${longDate(move.from)},`;
  const together = move.together ? ", together with that day's debit order" : '';
  const subject = move.to
    ? `Your debit order for invoice ${number} moves to ${longDate(move.to)}`
    : `Your debit order for invoice ${number} will not be taken on ${longDate(move.from)}`;
  const first = move.to
    ? `${was} will be debited on ${longDate(move.to)} from ${method} instead${together}.`
    : `${was} will not be debited from ${method}.`;
  const eft = move.to ? [] : await eftBlocks(ctx, number);
  const queued = await queueCustomerMails(ctx, move.customerId, (to) => {
    const link = payLinkFor(ctx, to, move.invoiceId);
    const next = move.to
      ? `You need not do anything${link ? '; or pay it now on the page below, and it will not be debited' : ''}.`
      : link
        ? `Please pay ${amount} on the page below.`
        : `Please reply to this e-mail, or reach us as below, and we will tell you how to pay ${amount}.`;
    const blocks: MessageBlock[] = [
      { paragraph: first, strong: true },
      { paragraph: move.why },
      { paragraph: next },
      ...(link ? [{ link, text: `Pay invoice ${number}` }] : []),
      ...eft,
    ];
    return letter(subject, to, blocks, lines);
  });
  return queued;
}
