import PDFDocument from 'pdfkit';
import type { ServiceContext } from '../../context.ts';
import { minorToDecimalText, minorUnitDigits } from '../../core/money.ts';
import { getAccount } from '../auth/index.ts';
import type { AttachmentRenderer, RenderedAttachment } from '../mail/index.ts';
import { decimalForDocument, percentText, winAnsiText } from './documentText.ts';
import type { Invoice } from './invoice.ts';
import { getInvoice } from './invoiceReads.service.ts';

/**
 * The invoice as a PDF (pdfkit, A4): the account's name; the customer's name, company, address and e-mail; the
 * number (or DRAFT), dates, reference and PO number; the lines with quantity, unit price and amounts excluding and
 * including tax; each tax with its total; the totals, what was paid and the balance. Amounts are the stored exact
 * figures in the invoice currency (minorToDecimalText), never recomputed in floating point.
 */
const MARGIN = 50;
const COLUMNS = {
  descrip: { x: 50, width: 190, align: 'left' },
  qty: { x: 245, width: 55, align: 'right' },
  unit: { x: 305, width: 75, align: 'right' },
  ex: { x: 385, width: 75, align: 'right' },
  inc: { x: 465, width: 80, align: 'right' },
} as const;
const RIGHT_EDGE = 545;

export function invoicePdfFilename(invoice: Invoice): string {
  return invoice.invoiceNum === null
    ? `invoice-draft-${invoice.id}.pdf`
    : `invoice-${invoice.invoiceNum}.pdf`;
}

function customerLines(invoice: Invoice): string[] {
  const c = invoice.customer.row;
  const cityLine = [c.city, c.state, c.zip_code].filter(Boolean).join(', ');
  return [
    [c.name, c.last_name].filter(Boolean).join(' '),
    c.company,
    c.address1,
    c.address2,
    cityLine,
    c.country,
    c.email,
  ].filter((line): line is string => Boolean(line));
}

/** Renders the invoice; `createdAt` (from the clock) is the document's creation date, so output is reproducible. */
export function invoicePdf(invoice: Invoice, accountName: string, createdAt: Date): Promise<Buffer> {
  const currency = invoice.currencyCode;
  const digits = minorUnitDigits(currency);
  const money = (minor: number) => minorToDecimalText(minor, currency);
  const title = invoice.invoiceNum === null ? 'DRAFT' : `Invoice ${invoice.invoiceNum}`;
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    info: {
      Title: winAnsiText(title),
      Author: winAnsiText(accountName),
      CreationDate: createdAt,
      ModDate: createdAt,
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const text = (value: string) => winAnsiText(value);
  const bottom = () => doc.page.height - MARGIN;

  // Heading: who bills, and which invoice.
  doc.font('Helvetica-Bold').fontSize(18).text(text(accountName), MARGIN, MARGIN, { width: 300 });
  doc.fontSize(18).text(title, 350, MARGIN, { width: RIGHT_EDGE - 350, align: 'right' });
  if (invoice.isCancelled) {
    doc.fontSize(12).text('CANCELLED', 350, doc.y, { width: RIGHT_EDGE - 350, align: 'right' });
  }
  const facts: [string, string][] = [
    ['Invoice date', invoice.invoiceDate],
    ['Due date', invoice.dueDate],
    ['Currency', currency],
  ];
  if (invoice.reference) facts.push(['Reference', invoice.reference]);
  if (invoice.poNumber) facts.push(['PO number', invoice.poNumber]);
  let y = Math.max(doc.y, MARGIN + 40) + 10;
  doc.font('Helvetica').fontSize(10);
  const factsTop = y;
  for (const [label, value] of facts) {
    doc.font('Helvetica-Bold').text(`${label}:`, 350, y, { width: 80 });
    doc.font('Helvetica').text(text(value), 430, y, { width: RIGHT_EDGE - 430, align: 'right' });
    y = doc.y + 2;
  }
  const factsBottom = y;

  // The customer billed.
  y = factsTop;
  doc.font('Helvetica-Bold').text('Bill to', MARGIN, y, { width: 260 });
  doc.font('Helvetica');
  for (const line of customerLines(invoice)) doc.text(text(line), MARGIN, doc.y, { width: 260 });
  y = Math.max(doc.y, factsBottom) + 20;

  // The lines.
  const header = () => {
    doc.font('Helvetica-Bold').fontSize(10);
    doc.text('Description', COLUMNS.descrip.x, y, { width: COLUMNS.descrip.width });
    doc.text('Qty', COLUMNS.qty.x, y, { width: COLUMNS.qty.width, align: 'right' });
    doc.text('Unit price', COLUMNS.unit.x, y, { width: COLUMNS.unit.width, align: 'right' });
    doc.text('Amount ex', COLUMNS.ex.x, y, { width: COLUMNS.ex.width, align: 'right' });
    doc.text('Amount inc', COLUMNS.inc.x, y, { width: COLUMNS.inc.width, align: 'right' });
    y = doc.y + 4;
    doc.moveTo(MARGIN, y).lineTo(RIGHT_EDGE, y).stroke();
    y += 4;
    doc.font('Helvetica');
  };
  header();
  for (const charge of invoice.charges) {
    const cells = {
      descrip: text(charge.descrip),
      qty: decimalForDocument(charge.qty, 0),
      unit: decimalForDocument(charge.unitCostEx, digits),
      ex: money(charge.amountExMinor),
      inc: money(charge.amountIncMinor),
    };
    const height = Math.max(
      ...Object.entries(cells).map(([key, value]) =>
        doc.heightOfString(value, { width: COLUMNS[key as keyof typeof COLUMNS].width }),
      ),
    );
    if (y + height > bottom()) {
      doc.addPage();
      y = MARGIN;
      header();
    }
    for (const [key, value] of Object.entries(cells)) {
      const column = COLUMNS[key as keyof typeof COLUMNS];
      doc.text(value, column.x, y, { width: column.width, align: column.align });
    }
    y += height + 4;
  }
  doc.moveTo(MARGIN, y).lineTo(RIGHT_EDGE, y).stroke();
  y += 8;

  // The totals: every figure is a stored sum of rounded lines (invoiceMath), shown as is.
  const totals: [string, string, boolean][] = [['Subtotal (excl. tax)', money(invoice.exTotalMinor), false]];
  for (const tax of invoice.taxes) {
    totals.push([`${text(tax.name)} (${percentText(tax.perc)}%)`, money(tax.totalMinor), false]);
  }
  totals.push([`Total ${currency}`, money(invoice.money.totalMinor), true]);
  const paidMinor = invoice.money.paidActualMinor + invoice.money.paidPendingMinor;
  if (paidMinor !== 0) totals.push(['Paid', money(paidMinor), false]);
  if (invoice.money.negativeAdjsMinor !== 0)
    totals.push(['Credits', money(invoice.money.negativeAdjsMinor), false]);
  totals.push([`Balance due ${currency}`, money(invoice.balances.balanceMinor), true]);
  for (const [label, value, strong] of totals) {
    if (y + 14 > bottom()) {
      doc.addPage();
      y = MARGIN;
    }
    doc.font(strong ? 'Helvetica-Bold' : 'Helvetica');
    doc.text(label, 245, y, { width: 215, align: 'right' });
    doc.text(value, COLUMNS.inc.x, y, { width: COLUMNS.inc.width, align: 'right' });
    y = doc.y + 4;
  }

  // Notes and terms, flowing onto further pages as needed.
  doc.font('Helvetica').fontSize(10);
  for (const [label, value] of [
    ['Notes', invoice.notes],
    ['Terms', invoice.terms],
  ] as const) {
    if (!value) continue;
    if (y + 30 > bottom()) {
      doc.addPage();
      y = MARGIN;
    }
    doc.font('Helvetica-Bold').text(label, MARGIN, y + 10, { width: RIGHT_EDGE - MARGIN });
    doc.font('Helvetica').text(text(value), MARGIN, doc.y, { width: RIGHT_EDGE - MARGIN });
    y = doc.y;
  }
  doc.end();
  return done;
}

/** GET /v1/invoices/{id}/pdf. */
export async function renderInvoicePdf(
  ctx: ServiceContext,
  invoiceId: number,
): Promise<{ invoice: Invoice; pdf: Buffer }> {
  const invoice = await getInvoice(ctx, invoiceId);
  return { invoice, pdf: await invoicePdf(invoice, ctx.account.name, ctx.clock.now()) };
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
  const ctx: ServiceContext = {
    account,
    db: deps.db,
    clock: deps.clock,
    log: deps.log,
    secrets: deps.secrets,
    mailQueued: () => {},
  };
  const { invoice, pdf } = await renderInvoicePdf(ctx, Number(mail.ref));
  return { filename: invoicePdfFilename(invoice), contentType: 'application/pdf', content: pdf };
};
