import { nowInstant, today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { addDays, dateAt, startOfDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { nextStatementDate, statementPeriodBefore } from './statements.ts';
import { documentSeller, sellerLines, mailSenderName } from '../auth/index.ts';
import type { DocumentSeller } from '../auth/index.ts';
import { listStatementCustomers, moveStatementDate } from '../customers/index.ts';
import type { Customer } from '../customers/index.ts';
import { dateForDocument } from '../invoicing/index.ts';
import { messageBody, queueMail } from '../mail/index.ts';
import type { OutgoingMail } from '../mail/index.ts';
import { statementFor } from './statement.service.ts';
import type { Statement } from './statement.service.ts';
import { STATEMENT_PDF_ATTACHMENT, statementAttachmentRef } from './statementPdf.ts';

export interface StatementRunSummary {
  /** Statements queued for e-mail. */
  sent: number;
  /** Customers whose first StatementDate was set. */
  scheduled: number;
}

/** The first day of the month after `date`. */
function firstOfNextMonth(date: PlainDate): PlainDate {
  const [year, month] = date.split('-').map(Number) as [number, number];
  return month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`;
}

/**
 * The message, in plain text and in HTML with the same content: the period, what is owed and how much of it is
 * past due (or the credit), the ageing, and the seller's details as its documents print them (name, address, tax
 * and company numbers, contact; documentSeller). The PDF carries the lines.
 */
export function statementMail(
  statement: Statement,
  seller: DocumentSeller,
): { subject: string; text: string; html: string } {
  const c = statement.customer;
  const name = [c.name, c.lastName].filter(Boolean).join(' ');
  const from = mailSenderName(seller);
  const period = `${dateForDocument(statement.startDate)} to ${dateForDocument(statement.endDate)}`;
  const amount = (minor: number) =>
    `${statement.currencyCode} ${minorToDecimalText(minor, statement.currencyCode)}`;
  const { ageing } = statement;
  const closing = statement.closingMinor;
  const summary =
    closing > 0
      ? `Balance due: ${amount(closing)}, of which ${amount(ageing.totalMinor - ageing.currentMinor)} is past due.`
      : closing < 0
        ? `You are in credit by ${amount(-closing)}.`
        : 'Nothing is owed.';
  const buckets: [string, number][] = [
    ['Current', ageing.currentMinor],
    ['1–30 days past due', ageing.overdue1To30Minor],
    ['31–60 days past due', ageing.overdue31To60Minor],
    ['61–90 days past due', ageing.overdue61To90Minor],
    ['Over 90 days past due', ageing.overdueOver90Minor],
  ];
  const owedBuckets = buckets.filter(([, minor]) => minor !== 0);
  const { text, html } = messageBody({
    title: `Statement of account, ${period}`,
    greeting: `Dear ${name},`,
    blocks: [
      { paragraph: `Please find attached your statement of account for ${period}.` },
      { paragraph: summary, strong: true },
      ...(owedBuckets.length
        ? [{ figures: owedBuckets.map(([label, minor]): [string, string] => [label, amount(minor)]) }]
        : []),
    ],
    signature: [from, ...sellerLines(seller)],
  });
  return { subject: `Statement of account from ${from}, ${period}`, text, html };
}

/**
 * The bill run's statement step for the account's day (docs/architecture.md, "A renewal, step by step"): each
 * active autoSendStatement customer whose StatementDate has come gets the statement of the period before it
 * e-mailed with its PDF to Email (copied to EmailCC), StatementLastSentDate set and StatementDate moved to the next
 * period of the account's StatementPeriod, all in one transaction per customer. The move is conditional on the
 * date read, so a run repeated (or two processes) sends once per customer and date. A customer with no
 * StatementDate is given the first day of next month, without a statement.
 */
export async function sendDueStatements(ctx: ServiceContext): Promise<StatementRunSummary> {
  const summary: StatementRunSummary = { sent: 0, scheduled: 0 };
  const zone = ctx.account.timeZone;
  const on = today(ctx);
  for (;;) {
    const unscheduled = await listStatementCustomers(ctx, { unscheduled: true });
    for (const customer of unscheduled) {
      const to = startOfDate(firstOfNextMonth(on), zone);
      if (await moveStatementDate(ctx, customer.id, { from: null, to, sentAt: null })) summary.scheduled += 1;
    }
    if (unscheduled.length === 0) break;
  }
  const before = startOfDate(addDays(on, 1), zone);
  for (;;) {
    const due = await listStatementCustomers(ctx, { before });
    for (const customer of due) {
      if (await sendStatement(ctx, customer, on)) summary.sent += 1;
    }
    if (due.length === 0) break;
  }
  if (summary.sent > 0) ctx.mailQueued();
  return summary;
}

/** One customer's statement, in its own transaction; whether an e-mail was queued. */
async function sendStatement(ctx: ServiceContext, customer: Customer, on: PlainDate): Promise<boolean> {
  const zone = ctx.account.timeZone;
  const from = customer.statementDate!;
  const date = dateAt(from, zone);
  const period = ctx.account.statementPeriod;
  const next = startOfDate(nextStatementDate(date, period, on), zone);
  const range = statementPeriodBefore(date, period);
  return withTransaction(ctx, async (tctx) => {
    // NOTE: without an address the date still moves on (else the run would find the customer every day), and
    // StatementLastSentDate stays as it was: nothing was sent.
    const sending = Boolean(customer.email);
    const moved = await moveStatementDate(tctx, customer.id, {
      from,
      to: next,
      sentAt: sending ? nowInstant(tctx) : null,
    });
    if (!moved || !sending) return false;
    const statement = await statementFor(tctx, customer, range.startDate, range.endDate);
    const mail: OutgoingMail = {
      to: customer.email!,
      cc: customer.emailCc,
      ...statementMail(statement, await documentSeller(tctx)),
      attachment: {
        kind: STATEMENT_PDF_ATTACHMENT,
        ref: statementAttachmentRef(customer.id, range.startDate, range.endDate),
      },
    };
    await queueMail(tctx.db, tctx, ctx.account.id, mail);
    return true;
  });
}
