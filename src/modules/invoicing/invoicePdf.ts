import { findCountry, findState } from '../../core/countries.ts';
import { contextFor, documentFor } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { minorToGroupedText, minorUnitDigits } from '../../core/money.ts';
import { documentSeller, getAccount, sellerLines, sellerName as nameOfSeller } from '../auth/index.ts';
import type { DocumentSeller } from '../auth/index.ts';
import type { AttachmentRenderer, RenderedAttachment } from '../mail/index.ts';
import { dateForDocument, decimalForDocument, percentText, periodForDocument } from './documentText.ts';
import type { Invoice } from './invoice.ts';
import type { Customer } from '../customers/index.ts';
import { getInvoice } from './invoiceReads.service.ts';
import { automaticCollectionNotes } from './invoiceCollection.service.ts';
import { pendingDebitsOf, pendingDebitWords } from './pendingDebits.ts';
import { creditWordsOf } from './invoiceCredit.ts';
import type { InvoiceCreditWords } from './ports.ts';
import type { PendingDebit } from './ports.ts';
import { PdfTable } from '../../pdf/pdfTable.ts';
import type { PdfColumn } from '../../pdf/pdfTable.ts';
import { openPdf } from '../../pdf/pdfWriter.ts';
import type { DrawingTurns } from '../../pdf/drawingTurns.ts';
import { documentRenderer } from '../../pdf/documentPool.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';

/**
 * The invoice as a PDF (pdfkit, A4), with what a tax invoice needs: the seller (logo, legal name, address, tax
 * and company numbers, contact); the customer (name, company, tax number, address with the country's name); the
 * number, dates, reference and PO number; a PAID, OVERDUE, CANCELLED or DRAFT mark; the lines with their service
 * periods; each tax with its rate; the totals, what was paid and the balance; payment instructions, notes and
 * terms; page numbers. Amounts are the stored exact figures in the invoice currency (minorToDecimalText), never
 * recomputed in floating point. Text is set in embedded Unicode fonts (pdfFonts.ts).
 */
const MARGIN = 50;
const RIGHT_EDGE = 545;
const HEADER_RIGHT_X = 330;
const COLUMNS = {
  descrip: { x: 50, width: 200, align: 'left' },
  qty: { x: 255, width: 45, align: 'right' },
  unit: { x: 305, width: 75, align: 'right' },
  ex: { x: 385, width: 75, align: 'right' },
  inc: { x: 465, width: 80, align: 'right' },
} as const satisfies Record<string, PdfColumn>;
const HEADS = {
  descrip: 'Description',
  qty: 'Qty',
  unit: 'Unit price',
  ex: 'Amount ex',
  inc: 'Amount inc',
};

/** The mark a reader must not miss, by status; Due and Pending invoices carry none. */
const MARKS: Partial<Record<Invoice['status'], { label: string; color: string }>> = {
  Paid: { label: 'PAID', color: '#1a7f37' },
  'Past Due': { label: 'OVERDUE', color: '#c62828' },
  Cancelled: { label: 'CANCELLED', color: '#6b6b6b' },
  Draft: { label: 'DRAFT', color: '#b26a00' },
};

/** The seller as invoices show it (the auth module's documentSeller). */
export type InvoiceSeller = DocumentSeller;

export function invoicePdfFilename(invoice: Invoice): string {
  return invoice.invoiceNum === null
    ? `invoice-draft-${invoice.id}.pdf`
    : `invoice-${invoice.invoiceNum}.pdf`;
}

/**
 * The customer's lines on a tax document (an invoice, a tax credit note): name, tax and registration numbers,
 * address with the country and state by name (from their ids when no name was given), e-mail.
 */
export function billedPartyLines(c: Customer): string[] {
  const state = c.state || (c.countryStateId === null ? null : findState(c.countryStateId)?.name);
  const country = c.country || (c.countryId === null ? null : findCountry(c.countryId)?.name);
  const person = [c.name, c.lastName].filter(Boolean).join(' ');
  return [
    c.company,
    c.company && person ? `Attn: ${person}` : person,
    // The seller's label for the buyer's too (src/modules/auth/documentSeller.ts): one name for one thing.
    c.vatNo && `Tax number: ${c.vatNo}`,
    c.registrationNumber && `Registration number: ${c.registrationNumber}`,
    c.address1,
    c.address2,
    [c.city, state, c.zipCode].filter(Boolean).join(', '),
    country,
    c.email,
  ].filter((line): line is string => Boolean(line));
}

/**
 * Draws an invoice PDF from its model, in a worker thread (src/documentWorker.ts) in turns with the thread's other
 * drawings; `createdAt` (from the clock) is the document's creation date, so output is reproducible.
 * `collectionNote` says how the service will take the money (automaticCollectionNotes), in place of the payment
 * instructions, which are for money the customer sends. `pendingDebits`: the payments allocated to it that are
 * still Pending, shown as due with when and from where they will be taken (docs/spec-decisions.md, "Pending debits
 * on documents").
 */
export async function drawInvoiceDocument(model: InvoiceDocument, turns: DrawingTurns): Promise<Buffer> {
  const { invoice, seller, createdAt, collectionNote, pendingDebits, credit } = model;
  const prepaidCreditMinor = credit.prepaidCreditMinor;
  const currency = invoice.currencyCode;
  const digits = minorUnitDigits(currency);
  const money = (minor: number) => minorToGroupedText(minor, currency);
  const title = invoice.invoiceNum === null ? 'Draft invoice' : `Invoice ${invoice.invoiceNum}`;
  const sellerName = nameOfSeller(seller);
  const { w, end } = openPdf({ title, author: sellerName, createdAt });

  // Seller, left: the logo above the name and details.
  const left = w.sellerBlock(
    { name: sellerName, lines: sellerLines(seller), logo: seller.logo },
    MARGIN,
    MARGIN,
  );

  // The document, right: what it is, its mark, its facts.
  const isTaxInvoice = invoice.taxes.length > 0 && seller.details.taxNumber !== null;
  // Credit taxed when it is used is no supply when sold (docs/tax.md, "Prepaid credit"): its document says so.
  const kind = credit.sale === 'when_used' ? 'PREPAID CREDIT' : isTaxInvoice ? 'TAX INVOICE' : 'INVOICE';
  const facts: [string, string][] = [
    ['Invoice date', dateForDocument(invoice.invoiceDate)],
    ['Due date', dateForDocument(invoice.dueDate)],
    ['Currency', currency],
  ];
  if (invoice.reference) facts.push(['Reference', invoice.reference]);
  if (invoice.poNumber) facts.push(['PO number', invoice.poNumber]);
  const top = w.documentHead(
    { kind, title, mark: MARKS[invoice.status], facts },
    HEADER_RIGHT_X,
    MARGIN,
    RIGHT_EDGE,
  );

  // The customer billed.
  let y = w.partyBlock('Bill to', billedPartyLines(invoice.customer), MARGIN, Math.max(left, top) + 20) + 20;

  // The lines, each with its service period; the header repeats on every page. A unit price that includes tax
  // is marked, unless they all do (the note under the totals then says so once).
  const inclusive = invoice.charges.filter((charge) => charge.isTaxInclusive).length;
  const marked = inclusive > 0 && inclusive < invoice.charges.length;
  const table = new PdfTable(w, COLUMNS, HEADS, y);
  for (const charge of invoice.charges) {
    const period =
      charge.periodStart && charge.periodEnd ? periodForDocument(charge.periodStart, charge.periodEnd) : null;
    table.row({
      descrip: period ? `${charge.descrip}, ${period}` : charge.descrip,
      qty: decimalForDocument(charge.qty, 0),
      unit: `${decimalForDocument(charge.unitCostEx, digits)}${marked && charge.isTaxInclusive ? ' *' : ''}`,
      ex: money(charge.amountExMinor),
      inc: money(charge.amountIncMinor),
    });
    await turns.next();
  }
  y = table.end() + 8;

  // The totals, kept together: every figure is a stored sum of rounded lines (invoiceMath), shown as is.
  const totals: [string, string, boolean][] = [['Subtotal (excl. tax)', money(invoice.exTotalMinor), false]];
  for (const tax of invoice.taxes) {
    totals.push([`${tax.name} (${percentText(tax.perc)}%)`, money(tax.totalMinor), false]);
  }
  totals.push([`Total ${currency}`, money(invoice.money.totalMinor), true]);
  // Only money the bank has paid is "Paid": a pending debit is still due, so the balance due includes it (the
  // API's Balance, which the spec defines net of pending payments, does not: ActualBalance does).
  // What is taken off the Total on the way to the balance due carries a minus sign, so that the column reads as a
  // sum (docs/credits.md, "Tax": "Prepaid credit applied −25.00").
  const less = (minor: number) => `\u2212${money(minor)}`;
  if (invoice.money.paidActualMinor !== 0) totals.push(['Paid', less(invoice.money.paidActualMinor), false]);
  // Prepaid credit is applied as a payment is, after tax (docs/credits.md, "Tax"), on a line of its own; credit notes
  // and negative adjustments are the rest of the credits.
  if (prepaidCreditMinor !== 0) totals.push(['Prepaid credit applied', less(prepaidCreditMinor), false]);
  const otherCreditsMinor = invoice.money.negativeAdjsMinor - prepaidCreditMinor;
  if (otherCreditsMinor !== 0) totals.push(['Credits', less(otherCreditsMinor), false]);
  totals.push([`Balance due ${currency}`, money(invoice.balances.actualBalanceMinor), true]);
  for (const debit of pendingDebits) {
    totals.push([`Pending debit: ${pendingDebitWords(debit)}`, money(debit.amountMinor), false]);
  }
  const labelColumn = { x: 245, width: 215 };
  const totalsHeight = totals.reduce((sum, [label]) => sum + w.height(label, labelColumn.width) + 4, 0);
  if (!w.fits(y, totalsHeight)) y = w.newPage();
  for (const [label, value, strong] of totals) {
    const weight = strong ? 'bold' : 'regular';
    const next = w.text(label, labelColumn.x, y, { ...labelColumn, align: 'right', weight });
    w.text(value, COLUMNS.inc.x, y, { width: COLUMNS.inc.width, align: 'right', weight });
    y = next + 4;
  }

  // What credits took off its VAT (docs/tax.md, "What an invoice shows"): the VAT it carries now, and why.
  if (credit.vatCredits.length > 0) {
    const totalTax = invoice.taxes.reduce((sum, tax) => sum + tax.totalMinor, 0);
    const creditedTax = credit.vatCredits.reduce((sum, c) => sum + c.taxMinor, 0);
    const vat: [string, string, boolean][] = [
      ['VAT charged on the lines above', money(totalTax), false],
      ...credit.vatCredits.map((c): [string, string, boolean] => [
        `VAT in ${c.label}`,
        less(c.taxMinor),
        false,
      ]),
      ['VAT this invoice carries', money(totalTax - creditedTax), true],
    ];
    y += 8;
    const vatColumn = { x: 120, width: 340 };
    const vatHeight = vat.reduce((sum, [label]) => sum + w.height(label, vatColumn.width) + 4, 0);
    if (!w.fits(y, vatHeight)) y = w.newPage();
    for (const [label, value, strong] of vat) {
      const weight = strong ? 'bold' : 'regular';
      const next = w.text(label, vatColumn.x, y, { ...vatColumn, align: 'right', weight });
      w.text(value, COLUMNS.inc.x, y, { width: COLUMNS.inc.width, align: 'right', weight });
      y = next + 4;
    }
  }

  const saleNote =
    credit.sale === 'when_used'
      ? 'Prepaid credit is a monetary voucher (VAT Act, section 10(18)): this is not a tax invoice and no VAT is ' +
        'charged on it. VAT is charged on the invoices the credit pays.'
      : credit.sale === 'when_sold' && invoice.taxes.length > 0
        ? 'Prepaid credit sold with VAT (VAT Act, section 10(19)): the invoices it pays carry no VAT again on the ' +
          'part it pays.'
        : null;
  if (saleNote) {
    y += 6;
    if (!w.fits(y, 30)) y = w.newPage();
    y = w.text(saleNote, MARGIN, y, { width: RIGHT_EDGE - MARGIN });
  }

  if (inclusive > 0) {
    y += 6;
    if (!w.fits(y, 20)) y = w.newPage();
    const note = marked
      ? 'Unit prices marked * include tax: the tax shown above is part of them, not added to them.'
      : 'Prices include tax: the tax shown above is part of them, not added to them.';
    y = w.text(note, MARGIN, y, { width: RIGHT_EDGE - MARGIN });
  }

  // Payment instructions, notes and terms, flowing onto further pages as needed.
  const owed = invoice.balances.balanceMinor > 0;
  const pendingNote = pendingDebits.map(
    (debit) => `${pendingDebitWords(debit)}: ${money(debit.amountMinor)}.`,
  );
  const collecting = [...pendingNote, ...(collectionNote && owed ? [collectionNote] : [])];
  const payment: [string, string | null] =
    collecting.length > 0
      ? ['Payment', collecting.join('\n')]
      : ['Payment instructions', seller.details.paymentInstructions];
  for (const [label, value] of [
    payment,
    ['Notes', invoice.notes] as const,
    ['Terms', invoice.terms] as const,
  ]) {
    if (!value) continue;
    y += 12;
    if (!w.fits(y, 30)) y = w.newPage();
    y = w.text(label, MARGIN, y, { width: RIGHT_EDGE - MARGIN, weight: 'bold' }) + 2;
    y = w.text(value, MARGIN, y, { width: RIGHT_EDGE - MARGIN });
  }

  return end();
}

/** The kind of document the worker threads draw with drawInvoiceDocument. */
export const INVOICE_DOCUMENT = 'invoice';

/** What an invoice PDF is drawn from: plain data, read on the main thread and drawn in a worker thread. */
export interface InvoiceDocument {
  invoice: Invoice;
  seller: InvoiceSeller;
  createdAt: Date;
  collectionNote: string | undefined;
  pendingDebits: PendingDebit[];
  /** What prepaid credit pays on it, whether it sells credit, the VAT credits took off it (docs/tax.md). */
  credit: InvoiceCreditWords;
}

/**
 * GET /v1/invoices/{id}/pdf, and the PDFs of hosted pages: of an invoice `shown` accepts (another is 404, as one
 * that does not exist), read once the asker has its place among the account's documents.
 */
export async function renderInvoicePdf(
  ctx: ServiceContext,
  invoiceId: number,
  shown: (invoice: Invoice) => boolean = () => true,
): Promise<{ invoice: Invoice; pdf: Buffer }> {
  const documents = documentRenderer(ctx);
  let invoice: Invoice | undefined;
  const pdf = await documents.render(documentFor(ctx), async () => {
    invoice = await getInvoice(ctx, invoiceId);
    if (!shown(invoice)) throw new NotFoundError('Invoice', invoiceId);
    checkInvoiceLines(invoice, documents.limits.maxInvoiceLines);
    const [collectionNote] = await automaticCollectionNotes(ctx, [invoice]);
    const model: InvoiceDocument = {
      invoice,
      seller: await documentSeller(ctx),
      createdAt: ctx.clock.now(),
      collectionNote,
      pendingDebits: (await pendingDebitsOf(ctx, [invoiceId])).get(invoiceId) ?? [],
      credit: await creditWordsOf(ctx, invoiceId),
    };
    return { kind: INVOICE_DOCUMENT, model };
  });
  return { invoice: invoice!, pdf };
}

/**
 * docs/operations.md, "PDF documents": an invoice PDF holds at most PDF_MAX_INVOICE_LINES lines (by default the
 * most Charges a request may send, so every invoice the API makes is drawn), so that no document takes a drawing
 * thread for long.
 */
function checkInvoiceLines(invoice: Invoice, maxLines: number): void {
  if (invoice.charges.length > maxLines) {
    throw ValidationError.field(
      'Charges',
      `An invoice PDF holds at most ${maxLines} lines; this invoice has ${invoice.charges.length}`,
      'document_too_large',
    );
  }
}

/**
 * The mail worker's renderer for invoice e-mails (kind `invoice_pdf`, ref the invoice id). It renders the invoice
 * as it is at delivery, which for an issued invoice differs from the queued one only in what was paid since.
 */
export const renderInvoicePdfAttachment: AttachmentRenderer = async (
  deps,
  mail,
): Promise<RenderedAttachment> => {
  const account = await getAccount(deps.db, mail.accountId);
  const ctx = contextFor(deps, account);
  const { invoice, pdf } = await renderInvoicePdf(ctx, Number(mail.ref));
  return { filename: invoicePdfFilename(invoice), contentType: 'application/pdf', content: pdf };
};
