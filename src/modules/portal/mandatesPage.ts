import { localDateText } from '../../core/calendar.ts';
import { emandatesOfCustomer, mandatePdfFilename, renderMandatePdf } from '../mandates/index.ts';
import type { Emandate } from '../mandates/index.ts';
import type { SignedInPage } from './portalHttp.ts';
import { MANDATE_STATUS, money } from './portalViews.ts';

/** The customer's mandates, each with its terms, its state and what the customer may do with it. */
export async function mandatesPage(page: SignedInPage) {
  const mandates = await emandatesOfCustomer(page.portal.ctx, page.session.customerId);
  return page.render(200, 'mandates', {
    title: 'Debit order mandates',
    current: 'payment-methods',
    mandates: mandates.map(({ mandate, token }) => mandateView(page, mandate, token)),
  });
}

/** One of the customer's signed mandates as a PDF; one not signed, another's or none is not found. */
export async function mandatePdfPage(page: SignedInPage, id: string) {
  const found = /^\d{1,15}$/.test(id)
    ? (await emandatesOfCustomer(page.portal.ctx, page.session.customerId)).find(
        ({ mandate }) => mandate.id === Number(id),
      )
    : undefined;
  if (!found?.token || !found.mandate.signing) return page.notFound();
  // The merchant's download (GET /v1/emandate/download), not the public link that closes after 30 days.
  const { pdf } = await renderMandatePdf(page.portal.ctx, found.token, 'api');
  return page.sendPdf(mandatePdfFilename(found.mandate), pdf);
}

function mandateView(page: SignedInPage, mandate: Emandate, token: string | null) {
  const debit = mandate.debit;
  return {
    id: mandate.id,
    reference: debit.contractRef,
    account: `${mandate.bankAccount.bankName} account ending ${mandate.bankAccount.lastFour}`,
    terms: `${money(debit.amountMinor, debit.currencyCode)} ${debit.frequency.toLowerCase()}, from ${debit.startDate}${debit.endDate ? ` to ${debit.endDate}` : ''}`,
    status: MANDATE_STATUS[mandate.status],
    // The account's date, not UTC's (docs/portal.md, "Dates and times").
    signedOn: mandate.signing ? localDateText(mandate.signing.signedAt, page.portal.account.timeZone) : null,
    signHref: mandate.status === 'pending_signature' && token ? `/widget/emandate/${token}` : null,
    pdfHref: mandate.signing && token ? `${page.portal.base}mandates/${mandate.id}/pdf` : null,
    debiCheck: debiCheckText(page, mandate),
  };
}

/**
 * A DebiCheck mandate's approval by the customer's bank (docs/design/mandates.md, "DebiCheck"): what the customer is
 * to do, or what came of it.
 */
function debiCheckText(page: SignedInPage, mandate: Emandate): string | null {
  const debiCheck = mandate.debiCheck;
  if (debiCheck === null) return null;
  const bank = mandate.bankAccount.bankName;
  switch (debiCheck.status) {
    case null:
      return `${bank} will ask you to approve this debit order`;
    case 'pending': {
      const until = debiCheck.expiresAt
        ? localDateText(debiCheck.expiresAt, page.portal.account.timeZone)
        : '';
      return `Waiting for your approval with ${bank}, until ${until}`;
    }
    case 'authenticated':
      return `Approved with ${bank}`;
    default:
      return `Not approved (${debiCheck.status})`;
  }
}
