import {
  getTaxCreditNote,
  listTaxCreditNotes,
  renderTaxCreditNotePdf,
  taxCreditNotePdfFilename,
} from '../ledger/index.ts';
import type { TaxCreditNote } from '../ledger/index.ts';
import type { SignedInPage } from './portalHttp.ts';
import { invoiceName, money, pageNumber } from './portalViews.ts';
import { everyRecord, ownedBySession } from './signedInCustomer.ts';

const NOTES_PER_PAGE = 25;

/** Newest first, by date, then by the order they were made. */
const newestNotesFirst = (a: TaxCreditNote, b: TaxCreditNote) => b.date.localeCompare(a.date) || b.id - a.id;

/**
 * A tax credit note as the list shows it: its number and why, its date, the invoices it corrects (each a link to
 * its page), what it credits with the tax in it, and its PDF through the portal.
 */
function noteView(page: SignedInPage, note: TaxCreditNote) {
  const currency = note.currencyCode;
  return {
    id: note.id,
    number: note.creditNumber,
    reason: note.reason || null,
    date: note.date,
    corrects: note.lines.map((line) => ({
      label: `Invoice ${invoiceName({ invoiceNum: line.invoiceNum, invoiceDate: line.invoiceDate })}`,
      href: `${page.portal.base}invoices/${line.invoiceId}`,
    })),
    unapplied: note.unappliedMinor > 0 ? money(note.unappliedMinor, currency) : null,
    amount: money(note.amountMinor, currency),
    tax: money(note.taxMinor, currency),
    pdfHref: `${page.portal.base}credit-notes/${note.id}/pdf`,
  };
}

/** The customer's tax credit notes, newest first, a page of them at a time. */
export async function creditNotesPage(page: SignedInPage, pageOfNotes: string | undefined) {
  const number = pageNumber(pageOfNotes);
  const customerId = page.session.customerId;
  const all = (await everyRecord((slice) => listTaxCreditNotes(page.portal.ctx, { customerId }, slice))).sort(
    newestNotesFirst,
  );
  const link = (n: number) => `${page.portal.base}credit-notes${n === 1 ? '' : `?page=${n}`}`;
  return page.render(200, 'creditNotes', {
    title: 'Credit notes',
    current: 'credit-notes',
    notes: all
      .slice((number - 1) * NOTES_PER_PAGE, number * NOTES_PER_PAGE)
      .map((note) => noteView(page, note)),
    previous: number > 1 ? link(number - 1) : undefined,
    next: all.length > number * NOTES_PER_PAGE ? link(number + 1) : undefined,
  });
}

/** One of the session's tax credit notes as a PDF. */
export async function creditNotePdfPage(page: SignedInPage, id: string) {
  // Another customer's document, another account's, or none: alike not found (signedInCustomer.ts).
  const note = await ownedBySession(page, id, getTaxCreditNote, (found) => found.customerId);
  if (!note) return page.notFound();
  const { pdf } = await renderTaxCreditNotePdf(page.portal.ctx, note.id);
  return page.sendPdf(taxCreditNotePdfFilename(note), pdf);
}
