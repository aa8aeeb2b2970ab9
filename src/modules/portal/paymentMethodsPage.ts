import { DomainError } from '../../errors.ts';
import { deletePaymentMethod } from '../../flows/deletePaymentMethod.ts';
import { getCustomer } from '../customers/index.ts';
import { asksForConfirmation, takesDebitOrders } from '../collections/index.ts';
import { capturesCards, findPrimaryGateway } from '../gateways/index.ts';
import {
  emandateTokensOfPaymentMethods,
  emandatesOfPaymentMethods,
  mandatePdfFilename,
  renderMandatePdf,
} from '../mandates/index.ts';
import { getPaymentMethod, listPaymentMethods, setPrimaryPaymentMethod } from '../paymentMethods/index.ts';
import type { PaymentMethod } from '../paymentMethods/index.ts';
import type { FormFields, SignedInPage } from './portalHttp.ts';
import { ownedBySession } from './signedInCustomer.ts';
import { completeCapture, openCapture, startCapture } from './portalCapture.ts';
import { methodView } from './portalViews.ts';

/** What the list's notice says after a change (post/redirect/get: the change's 303 names it). */
const DONE: Record<string, string> = {
  primary: 'Your primary payment method was changed. Invoices that failed before are tried again with it.',
  deleted: 'The payment method was deleted.',
  added: 'Your card was added.',
};

/** The session's customer's payment methods, in the order they were added (at most 100: a person's wallet). */
async function methodsOfSession(page: SignedInPage): Promise<PaymentMethod[]> {
  return listPaymentMethods(page.portal.ctx, { limit: 100, offset: 0 }, page.session.customerId);
}

/** One of the session's customer's methods, or undefined: another customer's, or none, is not found. */
function methodOfSession(page: SignedInPage, id: string): Promise<PaymentMethod | undefined> {
  return ownedBySession(page, id, getPaymentMethod, (method) => method.customerId);
}

/**
 * What the page says when the primary card's bank asked the customer to confirm its last charge (as it will each
 * renewal): save another card here and make it primary, or, where the account takes debit orders, ask for a
 * mandate (docs/portal.md, "Paying and payment methods"). Undefined otherwise.
 */
async function confirmationAdvice(page: SignedInPage, methods: PaymentMethod[]): Promise<string | undefined> {
  const primary = methods.find((method) => method.isPrimary && method.creditCard);
  if (!primary || !(await asksForConfirmation(page.portal.ctx, primary.id))) return undefined;
  const name = methodView(primary, undefined, page.portal.account.timeZone).name;
  const debit = (await takesDebitOrders(page.portal.ctx))
    ? ` Or pay by debit order from your bank account: ask ${page.portal.account.name} for a debit order mandate to sign.`
    : '';
  return (
    `Your bank asks you to confirm each payment from ${name}, so each renewal waits for you. Add another card ` +
    `and make it primary, and renewals go through on their own.${debit}`
  );
}

/** The customer's cards and bank accounts, masked, with the notice of the change just made (`done`). */
export async function paymentMethodsPage(page: SignedInPage, done: string | undefined) {
  const methods = await methodsOfSession(page);
  const mandates = await emandatesOfPaymentMethods(
    page.portal.ctx,
    methods.filter((method) => method.bankAccount).map((method) => method.id),
  );
  return page.render(200, 'paymentMethods', {
    title: 'Payment methods',
    current: 'payment-methods',
    // The query is the client's text: only the table's own entries (docs/spec-decisions.md, "Request bodies").
    notice: Object.hasOwn(DONE, done ?? '') ? DONE[done!] : undefined,
    confirmEachTime: await confirmationAdvice(page, methods),
    methods: methods.map((method) =>
      methodView(method, mandates.get(method.id), page.portal.account.timeZone),
    ),
    csrf: page.session.csrfToken,
  });
}

/** Makes one of the session's methods primary: the API's make-primary, which also retries failed invoices. */
export async function makePrimaryPage(page: SignedInPage, id: string) {
  const method = await methodOfSession(page, id);
  if (!method) return page.notFound();
  await setPrimaryPaymentMethod(page.portal.ctx, method.id);
  return page.redirect('payment-methods?done=primary');
}

/** The confirmation of a method's deletion. */
export async function deleteMethodConfirmPage(page: SignedInPage, id: string) {
  const method = await methodOfSession(page, id);
  if (!method) return page.notFound();
  return renderDelete(page, 200, method, []);
}

const PRIMARY_NOT_DELETED =
  'Your primary payment method cannot be deleted. Make another method primary first.';

/** Deletes one of the session's methods; a primary one, or one records still name, is refused (spec, Limits). */
export async function deleteMethodPage(page: SignedInPage, id: string) {
  const method = await methodOfSession(page, id);
  if (!method) return page.notFound();
  if (method.isPrimary)
    return renderDelete(page, 422, method, [{ field: null, message: PRIMARY_NOT_DELETED }]);
  try {
    await deletePaymentMethod(page.portal.ctx, method.id);
  } catch (error) {
    // An invoice, a recurring invoice or a payment still names it: the records keep pointing at it.
    if (!(error instanceof DomainError) || error.kind !== 'conflict') throw error;
    return renderDelete(page, 422, method, [
      {
        field: null,
        message:
          error.code === 'payment_method_is_primary'
            ? PRIMARY_NOT_DELETED
            : 'This payment method is still used by your invoices or payments, so it cannot be deleted.',
      },
    ]);
  }
  return page.redirect('payment-methods?done=deleted');
}

/** The card form in the primary gateway's widget (`origin`: the portal's own, which the widget may frame). */
export async function addCardPage(page: SignedInPage, origin: string) {
  const ctx = page.portal.ctx;
  const gateway = await findPrimaryGateway(ctx);
  if (!gateway || !capturesCards(gateway)) {
    return page.message(409, {
      title: 'Cards cannot be added',
      heading: 'Cards cannot be added here',
      message: `${page.portal.account.name} does not take cards in the portal at the moment.`,
      link: { href: `${page.portal.base}payment-methods`, text: 'Back to payment methods' },
    });
  }
  const customer = await getCustomer(ctx, page.session.customerId);
  return page.render(200, 'addCard', {
    title: 'Add a card',
    current: 'payment-methods',
    ...(await startCapture(page, origin, gateway, {
      saleType: 'VaultOnly',
      vaultOnlyOnSuccess: false,
      currencyCode: customer.currencyCode,
      description: 'A card added in the customer portal',
    })),
  });
}

/** Saves the card the widget captured (the form's `capture`). */
export async function saveCardPage(page: SignedInPage, fields: FormFields) {
  const sessionToken = openCapture(page, fields['capture'] ?? '');
  if (!sessionToken) return page.notFound();
  if (!(await completeCapture(page, sessionToken))) {
    return page.render(422, 'payRefused', {
      title: 'No card was saved',
      current: 'payment-methods',
      errors: [{ field: null, message: 'No card was saved: enter the card in the form, then save it.' }],
      backLink: { href: `${page.portal.base}payment-methods/add`, text: 'Add the card again' },
    });
  }
  return page.redirect('payment-methods?done=added');
}

/**
 * A bank account's signed mandate as a PDF: the merchant's download (GET /v1/emandate/download), not the public
 * link that closes after 30 days.
 */
export async function mandatePdfPage(page: SignedInPage, id: string) {
  const method = await methodOfSession(page, id);
  if (!method?.bankAccount) return page.notFound();
  const token = (await emandateTokensOfPaymentMethods(page.portal.ctx, [method.id])).get(method.id);
  const mandate = (await emandatesOfPaymentMethods(page.portal.ctx, [method.id])).get(method.id);
  if (!token || !mandate?.signing) return page.notFound();
  const { pdf } = await renderMandatePdf(page.portal.ctx, token, 'api');
  return page.sendPdf(mandatePdfFilename(mandate), pdf);
}

function renderDelete(
  page: SignedInPage,
  status: number,
  method: PaymentMethod,
  errors: { field: string | null; message: string }[],
) {
  const view = methodView(method);
  return page.render(status, 'deletePaymentMethod', {
    title: `Delete ${view.name}`,
    current: 'payment-methods',
    method: view,
    errors,
    csrf: page.session.csrfToken,
  });
}
