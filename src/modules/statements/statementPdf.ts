import { contextFor, documentFor } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { findCountry, findState } from '../../core/countries.ts';
import { minorToGroupedText } from '../../core/money.ts';
import { PdfTable } from '../../pdf/pdfTable.ts';
import type { PdfColumn } from '../../pdf/pdfTable.ts';
import { openPdf } from '../../pdf/pdfWriter.ts';
import type { DrawingTurns } from '../../pdf/drawingTurns.ts';
import { documentRenderer } from '../../pdf/documentPool.ts';
import { ValidationError } from '../../errors.ts';
import { documentSeller, getAccount, sellerLines, sellerName } from '../auth/index.ts';
import type { DocumentSeller } from '../auth/index.ts';
import type { Customer } from '../customers/index.ts';
import { getCustomer } from '../customers/index.ts';
import { dateForDocument } from '../invoicing/index.ts';
import type { AttachmentRenderer, RenderedAttachment } from '../mail/index.ts';
import { getStatement, statementFor } from './statement.service.ts';
import type { Statement, StatementRange } from './statement.service.ts';

/**
 * The statement of account as a PDF (A4), drawn as the invoice is, with the same helpers of src/pdf/ (the page and
 * its footers, the fonts, the seller block, the document's head, the table): the seller; the customer; the period and currency;
 * the opening balance, every line with its running balance, the closing balance; the ageing of what is owed and
 * the credit not yet applied; the payment instructions; page numbers. Amounts are the exact stored figures
 * (minorToDecimalText).
 */
const MARGIN = 50;
const RIGHT_EDGE = 545;
const HEADER_RIGHT_X = 330;
const COLUMNS = {
  date: { x: 50, width: 78, align: 'left' },
  descrip: { x: 132, width: 183, align: 'left' },
  due: { x: 320, width: 70, align: 'left' },
  amount: { x: 395, width: 70, align: 'right' },
  balance: { x: 470, width: 75, align: 'right' },
} as const satisfies Record<string, PdfColumn>;
const HEADS = { date: 'Date', descrip: 'Description', due: 'Due', amount: 'Amount', balance: 'Balance' };
const GREY = '#555555';

export function statementPdfFilename(statement: Statement): string {
  return `statement-${statement.customer.id}-${statement.endDate}.pdf`;
}

function customerLines(c: Customer): string[] {
  const state = c.state || (c.countryStateId === null ? null : findState(c.countryStateId)?.name);
  const country = c.country || (c.countryId === null ? null : findCountry(c.countryId)?.name);
  const person = [c.name, c.lastName].filter(Boolean).join(' ');
  return [
    c.company,
    c.company && person ? `Attn: ${person}` : person,
    c.reference && `Account: ${c.reference}`,
    c.address1,
    c.address2,
    [c.city, state, c.zipCode].filter(Boolean).join(', '),
    country,
    c.email,
  ].filter((line): line is string => Boolean(line));
}

/**
 * Draws a statement PDF from its model, in a worker thread (src/documentWorker.ts) in turns with the thread's other
 * drawings; `createdAt` (from the clock) is the document's creation date.
 */
export async function drawStatementDocument(model: StatementDocument, turns: DrawingTurns): Promise<Buffer> {
  const { statement, seller, createdAt } = model;
  const currency = statement.currencyCode;
  const money = (minor: number) => minorToGroupedText(minor, currency);
  const period = `${dateForDocument(statement.startDate)} – ${dateForDocument(statement.endDate)}`;
  const { w, end } = openPdf({
    title: `Statement of account, ${period}`,
    author: sellerName(seller),
    createdAt,
  });

  const left = w.sellerBlock(
    { name: sellerName(seller), lines: sellerLines(seller), logo: seller.logo },
    MARGIN,
    MARGIN,
  );
  const facts: [string, string][] = [
    ['From', dateForDocument(statement.startDate)],
    ['To', dateForDocument(statement.endDate)],
    ['Currency', currency],
    ['Balance due', money(statement.closingMinor)],
  ];
  const top = w.documentHead(
    { kind: 'STATEMENT OF ACCOUNT', title: 'Statement', facts },
    HEADER_RIGHT_X,
    MARGIN,
    RIGHT_EDGE,
  );

  let y =
    w.partyBlock('Statement for', customerLines(statement.customer), MARGIN, Math.max(left, top) + 20) + 20;

  const table = new PdfTable(w, COLUMNS, HEADS, y);
  table.row(
    {
      date: dateForDocument(statement.startDate),
      descrip: 'Opening balance',
      due: '',
      amount: '',
      balance: money(statement.openingMinor),
    },
    'bold',
  );
  for (const { record, balanceMinor } of statement.lines) {
    table.row({
      date: dateForDocument(record.date),
      descrip: record.description,
      due: record.dueDate === null ? '' : dateForDocument(record.dueDate),
      amount: money(record.amountMinor),
      balance: money(balanceMinor),
    });
    await turns.next();
  }
  table.row(
    {
      date: dateForDocument(statement.endDate),
      descrip: 'Closing balance',
      due: '',
      amount: '',
      balance: money(statement.closingMinor),
    },
    'bold',
  );
  y = table.end() + 12;

  // The ageing, kept together: what is owed by days past due at the end date.
  const { ageing } = statement;
  const buckets: [string, number][] = [
    ['Current', ageing.currentMinor],
    ['1–30 days', ageing.overdue1To30Minor],
    ['31–60 days', ageing.overdue31To60Minor],
    ['61–90 days', ageing.overdue61To90Minor],
    ['Over 90 days', ageing.overdueOver90Minor],
    ['Total owed', ageing.totalMinor],
  ];
  const cellWidth = (RIGHT_EDGE - MARGIN) / buckets.length;
  const ageingHeight = 3 * w.height('Current', cellWidth, 'bold') + 30;
  if (!w.fits(y, ageingHeight)) y = w.newPage();
  y =
    w.text(`Amounts owed by days past due, ${currency}`, MARGIN, y, {
      width: RIGHT_EDGE - MARGIN,
      weight: 'bold',
      size: 11,
    }) + 4;
  let next = y;
  buckets.forEach(([label], i) => {
    next = Math.max(
      next,
      w.text(label, MARGIN + i * cellWidth, y, { width: cellWidth - 4, align: 'right', color: GREY }),
    );
  });
  y = next + 2;
  buckets.forEach(([, minor], i) => {
    next = Math.max(
      next,
      w.text(money(minor), MARGIN + i * cellWidth, y, {
        width: cellWidth - 4,
        align: 'right',
        weight: i === buckets.length - 1 ? 'bold' : 'regular',
      }),
    );
  });
  y = next + 6;
  if (statement.unappliedMinor !== 0) {
    y =
      w.text(
        `Credit not yet applied to an invoice: ${currency} ${money(statement.unappliedMinor)}`,
        MARGIN,
        y,
        { width: RIGHT_EDGE - MARGIN },
      ) + 2;
  }

  if (statement.pendingMinor !== 0) {
    // docs/spec-decisions.md, "Pending debits on documents": the closing balance counts a pending debit as paid
    // (as the customer's Balance does); the statement says it is not.
    y =
      w.text(
        `Pending debits, not yet collected: ${currency} ${money(statement.pendingMinor)}. Balance due including them: ${currency} ${money(statement.closingMinor + statement.pendingMinor)}`,
        MARGIN,
        y,
        { width: RIGHT_EDGE - MARGIN },
      ) + 2;
  }

  const instructions = seller.details.paymentInstructions;
  if (instructions && statement.closingMinor > 0) {
    y += 12;
    if (!w.fits(y, 30)) y = w.newPage();
    y = w.text('Payment instructions', MARGIN, y, { width: RIGHT_EDGE - MARGIN, weight: 'bold' }) + 2;
    w.text(instructions, MARGIN, y, { width: RIGHT_EDGE - MARGIN });
  }

  return end();
}

/** The kind of document the worker threads draw with drawStatementDocument. */
export const STATEMENT_DOCUMENT = 'statement';

/** What a statement PDF is drawn from: plain data, read on the main thread and drawn in a worker thread. */
export interface StatementDocument {
  statement: Statement;
  seller: DocumentSeller;
  createdAt: Date;
}

/** GET /v1/customers/{customerID}/statement.pdf. */
export async function renderStatementPdf(
  ctx: ServiceContext,
  customerId: number,
  range: StatementRange,
): Promise<{ statement: Statement; pdf: Buffer }> {
  let statement: Statement | undefined;
  const pdf = await drawnStatement(ctx, async () => (statement = await getStatement(ctx, customerId, range)));
  return { statement: statement!, pdf };
}

/**
 * The statement drawn in the account's turn. docs/operations.md, "PDF documents": a statement PDF holds at most
 * PDF_MAX_STATEMENT_LINES lines; a range with more is refused, naming startDate, which a shorter range moves.
 */
async function drawnStatement(ctx: ServiceContext, readStatement: () => Promise<Statement>): Promise<Buffer> {
  const documents = documentRenderer(ctx);
  return documents.render(documentFor(ctx), async () => {
    const statement = await readStatement();
    const maxLines = documents.limits.maxStatementLines;
    if (statement.lines.length > maxLines) {
      throw ValidationError.field(
        'startDate',
        `A statement PDF holds at most ${maxLines} lines; this range holds ${statement.lines.length}: ` +
          'choose a later startDate or an earlier endDate',
        'document_too_large',
      );
    }
    const model: StatementDocument = {
      statement,
      seller: await documentSeller(ctx),
      createdAt: ctx.clock.now(),
    };
    return { kind: STATEMENT_DOCUMENT, model };
  });
}

/** The attachment kind of statement e-mails; its ref is the customer and the range (statementAttachmentRef). */
export const STATEMENT_PDF_ATTACHMENT = 'statement_pdf';

export function statementAttachmentRef(customerId: number, startDate: string, endDate: string): string {
  return JSON.stringify({ customerId, startDate, endDate });
}

/**
 * The mail worker's renderer for statement e-mails: the statement of the queued range, as the records stand at
 * delivery (the bill run queues it the day the period ends, so this is that day's figures but for what was
 * recorded since with a date in the range).
 */
export const renderStatementPdfAttachment: AttachmentRenderer = async (
  deps,
  mail,
): Promise<RenderedAttachment> => {
  const account = await getAccount(deps.db, mail.accountId);
  const ctx = contextFor(deps, account);
  const ref = JSON.parse(mail.ref) as { customerId: number; startDate: string; endDate: string };
  let statement: Statement | undefined;
  const pdf = await drawnStatement(ctx, async () => {
    const customer = await getCustomer(ctx, ref.customerId);
    return (statement = await statementFor(ctx, customer, ref.startDate, ref.endDate));
  });
  return { filename: statementPdfFilename(statement!), contentType: 'application/pdf', content: pdf };
};
