import { today } from '../../context.ts';
import { addDays } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { ValidationError } from '../../errors.ts';
import { getStatement, renderStatementPdf, statementPdfFilename } from '../statements/index.ts';
import type { Statement, StatementRange } from '../statements/index.ts';
import type { SignedInPage } from './portalHttp.ts';
import { money } from './portalViews.ts';

/** The form's labels, by the query's field names (which getStatement's problems name). */
const FIELD_LABELS = { startDate: 'From', endDate: 'To' } as const;

const KIND_NAMES = {
  invoice: 'Invoice',
  payment: 'Payment',
  credit_note: 'Credit note',
  prepaid_credit: 'Prepaid credit',
} as const;

/** `YYYY-MM-01` of the month `months` after the date's (negative: before). */
function firstOfMonth(date: PlainDate, months = 0): PlainDate {
  const index = Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1 + months;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}-01`;
}

/**
 * The quick choices of the period picker, on the account's calendar (its clock and time zone): this month to date,
 * the whole of last month, the last three months (this one to date and the two before), this year to date
 * (docs/spec-decisions.md, "Customer portal").
 */
function quickPeriods(day: PlainDate): { label: string; startDate: PlainDate; endDate: PlainDate }[] {
  return [
    { label: 'This month', startDate: firstOfMonth(day), endDate: day },
    { label: 'Last month', startDate: firstOfMonth(day, -1), endDate: addDays(firstOfMonth(day), -1) },
    { label: 'Last 3 months', startDate: firstOfMonth(day, -2), endDate: day },
    { label: 'This year', startDate: `${day.slice(0, 4)}-01-01`, endDate: day },
  ];
}

const blank = (text: string | undefined) => text === undefined || text.trim() === '';

/**
 * The range asked for: none (a first visit, or both fields emptied) is this month to date; a field left empty
 * while the other is given is a problem of its own. Whether the dates are dates, in order and at most 366 days
 * apart is getStatement's rule, the API's.
 */
function rangeOf(page: SignedInPage, query: StatementRange): StatementRange | ValidationError {
  if (blank(query.startDate) && blank(query.endDate)) {
    const day = today(page.portal.ctx);
    return { startDate: firstOfMonth(day), endDate: day };
  }
  const missing = (['startDate', 'endDate'] as const).filter((field) => blank(query[field]));
  if (missing.length > 0) {
    return new ValidationError(missing.map((field) => ({ field, message: 'needs a date' })));
  }
  return query;
}

/** getStatement's problems in the form's words: "To must be at most 366 days from From" names both labels. */
function errorsOf(error: ValidationError) {
  const words = (text: string) =>
    text.replace(
      /\b(startDate|endDate)\b/g,
      (field) => `the ${FIELD_LABELS[field as keyof typeof FIELD_LABELS]} date`,
    );
  return error.fields.map((problem) => ({
    field: problem.field,
    message: `${FIELD_LABELS[problem.field as keyof typeof FIELD_LABELS] ?? problem.field} ${words(problem.message)}`,
  }));
}

const periodQuery = (startDate: string, endDate: string) =>
  `startDate=${encodeURIComponent(startDate)}&endDate=${encodeURIComponent(endDate)}`;

function statementView(page: SignedInPage, statement: Statement) {
  const currency = statement.currencyCode;
  const { ageing } = statement;
  return {
    currency,
    startDate: statement.startDate,
    endDate: statement.endDate,
    opening: money(statement.openingMinor, currency),
    closing: money(statement.closingMinor, currency),
    unapplied: statement.unappliedMinor === 0 ? null : money(statement.unappliedMinor, currency),
    pending:
      statement.pendingMinor === 0
        ? null
        : {
            amount: money(statement.pendingMinor, currency),
            due: money(statement.closingMinor + statement.pendingMinor, currency),
          },
    lines: statement.lines.map(({ record, balanceMinor }) => ({
      date: record.date,
      kind: record.taxCreditNote
        ? 'Credit note'
        : record.kind === 'adjustment'
          ? record.amountMinor >= 0
            ? 'Charge'
            : 'Credit'
          : KIND_NAMES[record.kind],
      // The statement's own description, where it says more than the kind and reference do.
      detail: record.kind === 'invoice' ? null : record.description,
      reference: record.kind === 'invoice' ? `Invoice ${record.reference ?? 'draft'}` : record.reference,
      invoiceHref: record.kind === 'invoice' ? `${page.portal.base}invoices/${record.id}` : null,
      // A credit's tax credit note, downloaded through the portal (docs/portal.md, "Credit notes").
      creditNote: record.taxCreditNote && {
        number: record.taxCreditNote.creditNumber,
        href: `${page.portal.base}credit-notes/${record.taxCreditNote.id}/pdf`,
      },
      amount: money(record.amountMinor, currency),
      balance: money(balanceMinor, currency),
    })),
    ageing: [
      { label: 'Current', amount: money(ageing.currentMinor, currency) },
      { label: '1 to 30 days', amount: money(ageing.overdue1To30Minor, currency) },
      { label: '31 to 60 days', amount: money(ageing.overdue31To60Minor, currency) },
      { label: '61 to 90 days', amount: money(ageing.overdue61To90Minor, currency) },
      { label: 'Over 90 days', amount: money(ageing.overdueOver90Minor, currency) },
    ],
    owed: money(ageing.totalMinor, currency),
    pdfHref: `${page.portal.base}statement.pdf?${periodQuery(statement.startDate, statement.endDate)}`,
  };
}

/** The statement page: the picker, and the statement or the problems with the period asked for. */
function renderStatementPage(
  page: SignedInPage,
  shown: { startDate: PlainDate; endDate: PlainDate },
  outcome: { statement: Statement } | { errors: Problems },
) {
  const day = today(page.portal.ctx);
  const errors = 'errors' in outcome ? outcome.errors : [];
  return page.render(errors.length > 0 ? 422 : 200, 'statement', {
    title: 'Statement',
    current: 'statement',
    form: shown,
    invalidFields: errors.map((e) => e.field),
    errors,
    quick: quickPeriods(day).map((period) => ({
      label: period.label,
      href: `${page.portal.base}statement?${periodQuery(period.startDate, period.endDate)}`,
      current: period.startDate === shown.startDate && period.endDate === shown.endDate,
    })),
    statement: 'statement' in outcome ? statementView(page, outcome.statement) : null,
  });
}

type Problems = ReturnType<typeof errorsOf>;

/**
 * What the period asked for gives: `read` of the checked range (the statement, or its PDF), or the problems in the
 * form's words, with the range as it was asked for.
 */
async function forPeriod<T>(
  page: SignedInPage,
  query: StatementRange,
  read: (range: StatementRange) => Promise<T>,
): Promise<{ found: T } | { range: StatementRange; errors: Problems }> {
  const range = rangeOf(page, query);
  if (range instanceof ValidationError) return { range: query, errors: errorsOf(range) };
  try {
    return { found: await read(range) };
  } catch (error) {
    if (error instanceof ValidationError) return { range, errors: errorsOf(error) };
    throw error;
  }
}

const asked = (range: StatementRange) => ({ startDate: range.startDate ?? '', endDate: range.endDate ?? '' });

/** The statement of the period asked for, or the picker with what is wrong with the period. */
export async function statementPage(page: SignedInPage, query: StatementRange) {
  const outcome = await forPeriod(page, query, (range) =>
    getStatement(page.portal.ctx, page.session.customerId, range),
  );
  if ('errors' in outcome) return renderStatementPage(page, asked(outcome.range), outcome);
  const statement = outcome.found;
  return renderStatementPage(page, statement, { statement });
}

/** The statement of the period asked for as a PDF. */
export async function statementPdfPage(page: SignedInPage, query: StatementRange) {
  const outcome = await forPeriod(page, query, (range) =>
    renderStatementPdf(page.portal.ctx, page.session.customerId, range),
  );
  // A period the page would refuse: the page, with the form and what is wrong, instead of a document.
  if ('errors' in outcome) return renderStatementPage(page, asked(outcome.range), outcome);
  return page.sendPdf(statementPdfFilename(outcome.found.statement), outcome.found.pdf);
}
