import { contextFor, documentFor } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { minorToGroupedText } from '../../core/money.ts';
import { PdfTable } from '../../pdf/pdfTable.ts';
import type { PdfColumn } from '../../pdf/pdfTable.ts';
import { openPdf } from '../../pdf/pdfWriter.ts';
import type { DrawingTurns } from '../../pdf/drawingTurns.ts';
import { documentRenderer } from '../../pdf/documentPool.ts';
import { documentSeller, getAccount, sellerLines, sellerName } from '../auth/index.ts';
import type { DocumentSeller } from '../auth/index.ts';
import { getCustomer } from '../customers/index.ts';
import type { Customer } from '../customers/index.ts';
import { billedPartyLines, dateForDocument, percentText } from '../invoicing/index.ts';
import type { AttachmentRenderer, RenderedAttachment } from '../mail/index.ts';
import { getTaxCreditNote } from './taxCreditNote.service.ts';
import type { TaxCreditNote } from './taxCreditNote.service.ts';

/**
 * A tax credit note as a PDF (A4), drawn as the invoice is (src/pdf/): what the VAT Act's section 21 asks of one
 * (docs/tax.md, "Tax credit notes"): the words "Tax credit note", its number and date; the seller's name, address
 * and VAT number; the customer's, with its VAT number; each tax invoice it corrects by number and date, with what it
 * takes off it excluding VAT, the VAT at each rate, and including VAT; why; and the totals. Money not applied to a
 * supply yet is shown apart, with no VAT in it. Amounts are the exact stored figures.
 */
const MARGIN = 50;
const RIGHT_EDGE = 545;
const HEADER_RIGHT_X = 330;
const COLUMNS = {
  descrip: { x: 50, width: 230, align: 'left' },
  ex: { x: 285, width: 80, align: 'right' },
  tax: { x: 370, width: 85, align: 'right' },
  inc: { x: 460, width: 85, align: 'right' },
} as const satisfies Record<string, PdfColumn>;
const HEADS = { descrip: 'Corrects', ex: 'Amount ex', tax: 'VAT', inc: 'Amount inc' };

export const TAX_CREDIT_NOTE_DOCUMENT = 'tax_credit_note';

/** What a tax credit note's PDF is drawn from: plain data, read on the main thread, drawn in a worker thread. */
export interface TaxCreditNoteDocument {
  note: TaxCreditNote;
  customer: Customer;
  seller: DocumentSeller;
  createdAt: Date;
}

export function taxCreditNotePdfFilename(note: TaxCreditNote): string {
  return `credit-note-${note.creditNumber.replace(/[^A-Za-z0-9._-]+/g, '_')}.pdf`;
}

/** Draws the document, in a worker thread (src/documentWorker.ts) in turns with the thread's other drawings. */
export async function drawTaxCreditNoteDocument(
  { note, customer, seller, createdAt }: TaxCreditNoteDocument,
  turns: DrawingTurns,
): Promise<Buffer> {
  const currency = note.currencyCode;
  const money = (minor: number) => minorToGroupedText(minor, currency);
  const title = `Credit note ${note.creditNumber}`;
  const { w, end } = openPdf({ title, author: sellerName(seller), createdAt });
  const left = w.sellerBlock(
    { name: sellerName(seller), lines: sellerLines(seller), logo: seller.logo },
    MARGIN,
    MARGIN,
  );
  const isTaxDocument = note.taxMinor !== 0 && seller.details.taxNumber !== null;
  const top = w.documentHead(
    {
      kind: isTaxDocument ? 'TAX CREDIT NOTE' : 'CREDIT NOTE',
      title,
      facts: [
        ['Date', dateForDocument(note.date)],
        ['Currency', currency],
      ],
    },
    HEADER_RIGHT_X,
    MARGIN,
    RIGHT_EDGE,
  );
  let y = w.partyBlock('Credited to', billedPartyLines(customer), MARGIN, Math.max(left, top) + 20) + 20;

  const table = new PdfTable(w, COLUMNS, HEADS, y);
  for (const line of note.lines) {
    const invoice = `Tax invoice ${line.invoiceNum ?? `(draft ${line.invoiceId})`} of ${dateForDocument(line.invoiceDate)}`;
    const rates = line.taxes.map((tax) => `${tax.name} ${percentText(tax.perc)}%: ${money(tax.amountMinor)}`);
    table.row({
      descrip: [invoice, ...rates].join('\n'),
      ex: money(line.amountMinor - line.taxMinor),
      tax: money(line.taxMinor),
      inc: money(line.amountMinor),
    });
    await turns.next();
  }
  if (note.unappliedMinor > 0) {
    table.row({
      descrip: 'Credit not yet applied to a supply (no VAT in it)',
      ex: money(note.unappliedMinor),
      tax: money(0),
      inc: money(note.unappliedMinor),
    });
  }
  y = table.end() + 8;

  const reducedMinor = note.lines.reduce((sum, line) => sum + line.amountMinor, 0);
  const totals: [string, string, boolean][] = [
    ['Reduction excl. VAT', money(reducedMinor - note.taxMinor), false],
    ['VAT', money(note.taxMinor), false],
    [`Total credited ${currency}`, money(note.amountMinor), true],
  ];
  const labelColumn = { x: 245, width: 210 };
  if (!w.fits(y, totals.length * 16)) y = w.newPage();
  for (const [label, value, strong] of totals) {
    const weight = strong ? 'bold' : 'regular';
    const next = w.text(label, labelColumn.x, y, { ...labelColumn, align: 'right', weight });
    w.text(value, COLUMNS.inc.x, y, { width: COLUMNS.inc.width, align: 'right', weight });
    y = next + 4;
  }
  for (const [label, value] of [
    ['Reason', note.reason],
    ['Note', creditNoteNote(note)],
  ] as const) {
    if (!value) continue;
    y += 12;
    if (!w.fits(y, 30)) y = w.newPage();
    y = w.text(label, MARGIN, y, { width: RIGHT_EDGE - MARGIN, weight: 'bold' }) + 2;
    y = w.text(value, MARGIN, y, { width: RIGHT_EDGE - MARGIN });
  }
  return end();
}

/** What the document says of what it does to the tax invoices (docs/tax.md, "Tax credit notes"). */
function creditNoteNote(note: TaxCreditNote): string {
  if (note.lines.length === 0) return 'This credit reduces no supply yet: it is credit on your account.';
  return (
    'This credit note reduces the consideration of the tax invoices above by the amounts shown, ' +
    'and the VAT charged on them by the VAT shown (VAT Act, section 21).'
  );
}

/** GET /v1/tax-credit-notes/{id}/pdf. */
export async function renderTaxCreditNotePdf(
  ctx: ServiceContext,
  id: number,
): Promise<{ note: TaxCreditNote; pdf: Buffer }> {
  let note: TaxCreditNote | undefined;
  const pdf = await documentRenderer(ctx).render(documentFor(ctx), async () => {
    note = await getTaxCreditNote(ctx, id);
    const model: TaxCreditNoteDocument = {
      note,
      customer: await getCustomer(ctx, note.customerId),
      seller: await documentSeller(ctx),
      createdAt: ctx.clock.now(),
    };
    return { kind: TAX_CREDIT_NOTE_DOCUMENT, model };
  });
  return { note: note!, pdf };
}

/** The mail worker's renderer for a tax credit note's e-mail (kind `tax_credit_note_pdf`, ref its id). */
export const renderTaxCreditNotePdfAttachment: AttachmentRenderer = async (
  deps,
  mail,
): Promise<RenderedAttachment> => {
  const account = await getAccount(deps.db, mail.accountId);
  const { note, pdf } = await renderTaxCreditNotePdf(contextFor(deps, account), Number(mail.ref));
  return { filename: taxCreditNotePdfFilename(note), contentType: 'application/pdf', content: pdf };
};
