import crypto from 'node:crypto';
import type { FailureReason } from '../gateways/index.ts';
import { payInvoicesNow } from '../collections/index.ts';
import type { PayNowOutcome } from '../collections/index.ts';
import { getCustomer } from '../customers/index.ts';
import { getInvoice } from '../invoicing/index.ts';
import type { Invoice } from '../invoicing/index.ts';
import { getPayment } from '../ledger/index.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { findPrimaryGateway, capturesCards } from '../gateways/index.ts';
import { getCaptureSession } from '../widgets/index.ts';
import { completeCapture, openCapture, startCapture } from './portalCapture.ts';
import type { FormFields, SignedInPage } from './portalHttp.ts';
import { invoiceOfSession, issuedInvoicesOf, overdueInvoices, ownedBySession } from './signedInCustomer.ts';
import { invoiceName, invoiceRow, methodView, money, payAttempt } from './portalViews.ts';

/** A gateway's reason for a failed charge, in words a customer reads (docs/gateways.md lists the reasons). */
const REASON_TEXT: Record<FailureReason, string> = {
  insufficient_funds: 'there are not enough funds on the card',
  card_declined: 'the card’s bank declined the payment',
  expired_card: 'the card has expired',
  lost_card: 'the card was reported lost',
  stolen_card: 'the card was reported stolen',
  invalid_account: 'the card is not known to its bank',
  account_closed: 'the card’s account is closed',
  debits_not_allowed: 'the account does not allow this payment',
  account_holder_mismatch: 'the name does not match the card’s holder',
  authentication_required: 'the card’s bank asks you to confirm the payment: pay with a new card instead',
  processing_error: 'the payment could not be processed; try again in a few minutes',
  gateway_timeout: 'the bank did not answer in time',
};

/**
 * The idempotency key of a pay form: the session's form token, the invoices, the amount shown and the form's own
 * random token, new on every page shown (payAttempt). The same form sent twice (a double click, a retry after a
 * network error or an unanswered charge) is the same key, so the gateway charges once and the payment is recorded
 * once; another page, amount, invoices or attempt are another payment (payInvoicesNow adds the card). A later page
 * of the same session is a new key, so an old charge (one that failed since) is never taken for the new payment.
 */
function payKey(page: SignedInPage, invoiceIds: readonly number[], fields: FormFields): string {
  const ids = [...invoiceIds].sort((a, b) => a - b).join(',');
  const digest = crypto
    .createHash('sha256')
    .update(`${page.session.csrfToken}\n${ids}\n${fields['expected'] ?? ''}\n${fields['attempt'] ?? ''}`)
    .digest('base64url');
  return `portal-pay-${digest}`;
}

/**
 * A new card, as a sale through the capture widget (`origin`: the portal's own, which the widget may frame): the
 * portal is the merchant, as on the add-card page.
 */
export async function payWithNewCardPage(page: SignedInPage, id: string, origin: string) {
  const invoice = await invoiceOfSession(page, id);
  if (!invoice) return page.notFound();
  const owedMinor = invoice.balances.balanceMinor;
  if (owedMinor <= 0) return page.redirect(`invoices/${invoice.id}`);
  const gateway = await findPrimaryGateway(page.portal.ctx);
  if (!gateway || !capturesCards(gateway)) return page.notFound();
  return page.render(200, 'payCard', {
    title: `Pay invoice ${invoiceName(invoice)} with a new card`,
    current: 'invoices',
    invoice: invoiceRow(invoice),
    // VaultSale: the card pays the balance and is kept for the customer; complete allocates the sale to the invoice.
    ...(await startCapture(page, origin, gateway, {
      saleType: 'VaultSale',
      vaultOnlyOnSuccess: true,
      currencyCode: invoice.currencyCode,
      amount: minorToDecimalText(owedMinor, invoice.currencyCode),
      invoiceId: invoice.id!,
      // Charged at submit as what the invoice then owes, at most this balance (docs/portal.md, "Paying and
      // payment methods"): a page made before another payment must not pay the invoice twice.
      upToOwed: true,
      description: `Invoice ${invoiceName(invoice)}, paid in the customer portal`,
    })),
  });
}

/** Completes the new card's sale; sent twice, it is the same session completed: one payment (complete is idempotent). */
export async function completeNewCardPage(page: SignedInPage, id: string, fields: FormFields) {
  const invoice = await invoiceOfSession(page, id);
  const sessionToken = openCapture(page, fields['capture'] ?? '');
  if (!invoice || !sessionToken) return page.notFound();
  const session = await getCaptureSession(page.portal.ctx, sessionToken);
  if (session.invoiceId !== invoice.id) return page.notFound();
  if (!(await completeCapture(page, sessionToken))) {
    return page.render(422, 'payRefused', {
      title: 'Nothing was paid',
      current: 'invoices',
      errors: [{ field: null, message: 'Nothing was paid: enter the card in the form, then pay.' }],
      backLink: {
        href: `${page.portal.base}invoices/${invoice.id}/pay-card`,
        text: 'Pay with a new card again',
      },
    });
  }
  const paymentId = (await getCaptureSession(page.portal.ctx, sessionToken)).paymentId;
  return paymentId === null ? page.redirect(`invoices/${invoice.id}`) : page.redirect(`paid/${paymentId}`);
}

/** Pays an invoice's balance with the primary card; the portal charges in the customer's currency only. */
export async function payInvoicePage(page: SignedInPage, id: string, fields: FormFields) {
  const invoice = await invoiceOfSession(page, id);
  if (!invoice) return page.notFound();
  const customer = await getCustomer(page.portal.ctx, page.session.customerId);
  if (invoice.currencyCode !== customer.currencyCode && invoice.balances.balanceMinor > 0) {
    // The invoice page shows no Pay button for this one.
    return page.render(422, 'payRefused', {
      title: 'This invoice cannot be paid here',
      current: 'invoices',
      errors: [
        {
          field: null,
          message: `Invoice ${invoiceName(invoice)} is in ${invoice.currencyCode}, not in your account’s currency (${customer.currencyCode}). Nothing was charged: pay it as the invoice says, or ask the business.`,
        },
      ],
      backLink: { href: `${page.portal.base}invoices/${invoice.id}`, text: 'Back to the invoice' },
    });
  }
  return pay(page, [invoice], fields, `invoices/${invoice.id}`);
}

/** Pays every overdue invoice in the customer's currency at once, with the primary card. */
export async function payOverduePage(page: SignedInPage, fields: FormFields) {
  const customer = await getCustomer(page.portal.ctx, page.session.customerId);
  return pay(page, overdueInvoices(await issuedInvoicesOf(page), customer.currencyCode), fields, '');
}

/** A payment of the session's customer, received or being processed, with the invoices it paid. */
export async function paidPage(page: SignedInPage, id: string) {
  const payment = await ownedBySession(page, id, getPayment, (p) => p.customerId);
  if (!payment) return page.notFound();
  const invoices: Invoice[] = [];
  for (const allocation of payment.allocations) {
    if (allocation.targetType === 'invoice')
      invoices.push(await getInvoice(page.portal.ctx, allocation.targetId));
  }
  const pending = payment.state === 'pending';
  return page.render(200, 'paid', {
    title: pending ? 'Payment being processed' : 'Payment received',
    current: 'invoices',
    heading: pending ? 'Your payment is being processed' : 'Thank you: your payment was received',
    amount: money(payment.amountMinor, payment.currencyCode),
    date: payment.date,
    invoices: invoices.map(invoiceRow),
  });
}

/** Charges the primary card for these invoices and answers with the outcome. */
async function pay(page: SignedInPage, invoices: readonly Invoice[], fields: FormFields, back: string) {
  const expected = fields['expected'] ?? '';
  const ctx = page.portal.ctx;
  const currency = invoices[0]?.currencyCode;
  const owedMinor = invoices.reduce((sum, invoice) => sum + invoice.balances.balanceMinor, 0);
  if (currency === undefined || owedMinor <= 0) return page.redirect(back);
  // What the customer was shown, in the page's own words: another amount now is a changed balance.
  const expectedMinor = expected === money(owedMinor, currency) ? owedMinor : -1;
  const invoiceIds = invoices.map((invoice) => invoice.id!);
  const outcome = await payInvoicesNow(ctx, {
    customerId: page.session.customerId,
    invoiceIds,
    expectedMinor,
    idempotencyKey: payKey(page, invoiceIds, fields),
  });
  switch (outcome.outcome) {
    case 'paid':
    case 'pending':
      return page.redirect(`paid/${outcome.paymentId}`);
    case 'nothing_owed':
      return page.redirect(back);
    default:
      return refused(page, outcome, back, owedMinor, currency, fields);
  }
}

function refused(
  page: SignedInPage,
  outcome: Exclude<PayNowOutcome, { outcome: 'paid' | 'pending' | 'nothing_owed' }>,
  back: string,
  owedMinor: number,
  currency: string,
  fields: FormFields,
) {
  const expected = fields['expected'] ?? '';
  const backLink = {
    href: `${page.portal.base}${back}`,
    text: back === '' ? 'Back to the overview' : 'Back to the invoice',
  };
  const retryForm = {
    action: `${page.portal.base}${back === '' ? 'pay-overdue' : `${back}/pay`}`,
    expected,
    csrf: page.session.csrfToken,
  };
  const render = (status: number, title: string, message: string, extra: Record<string, unknown> = {}) =>
    page.render(status, 'payRefused', {
      title,
      current: back === '' ? 'dashboard' : 'invoices',
      errorsTitle: title,
      errors: [{ field: null, message }],
      backLink,
      ...extra,
    });
  switch (outcome.outcome) {
    case 'declined':
    case 'error':
      return render(
        422,
        'The payment did not go through',
        `${methodView(outcome.method).name}: ${REASON_TEXT[outcome.reason] ?? 'the payment was refused'}. Nothing was charged.`,
        {
          addCard: true,
          payCard: back === '' ? undefined : `${page.portal.base}${back}/pay-card`,
          // Trying the same card again (funds added since) is a new attempt: a new key, a new charge.
          retry: { ...retryForm, attempt: payAttempt() },
        },
      );
    case 'unanswered':
      return render(
        502,
        'No answer from the bank yet',
        'The card’s bank has not answered yet. Send the same payment again in a moment: you will not be charged twice.',
        {
          // The same key: the gateway answers with the charge it may have made, which is then recorded once.
          retry: { ...retryForm, attempt: fields['attempt'] ?? '' },
          retryLabel: 'Send the same payment again',
        },
      );
    case 'changed':
      return render(
        422,
        'The amount owed has changed',
        `You now owe ${money(outcome.owedMinor, outcome.currencyCode)} (the page showed another amount). Nothing was charged: check it and pay again.`,
      );
    case 'in_flight':
      return render(
        409,
        'A payment is already being made',
        'A payment of this invoice is waiting for the bank’s answer. Nothing more was charged: look again in a few minutes.',
      );
    case 'no_card':
      return render(
        422,
        'No card to pay with',
        outcome.primary
          ? `Your primary payment method (${methodView(outcome.primary).name}) cannot be charged here. Make a card your primary payment method, or add one.`
          : `You have no card to pay ${money(owedMinor, currency)} with. Add a card and make it primary.`,
        { addCard: true, payCard: back === '' ? undefined : `${page.portal.base}${back}/pay-card` },
      );
  }
}
