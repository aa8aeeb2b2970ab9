import { today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { checkedWireDate, dateAt, daysBetween } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { ageingOf, statementOf } from './statements.ts';
import type { Ageing, StatementEntry } from './statements.ts';
import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { getCustomer } from '../customers/index.ts';
import type { Customer } from '../customers/index.ts';
import { debitDatesOf, pendingDebitWords, statementInvoicesOf } from '../invoicing/index.ts';
import { statementMoneyRecordsOf, taxCreditNotesOfSources } from '../ledger/index.ts';
import { statementCreditRecordsOf } from '../credits/index.ts';
import type { StatementMoneyRecord, TaxCreditNote } from '../ledger/index.ts';
import { unopenedPaymentMethodsByIds } from '../paymentMethods/index.ts';

/** The longest range one statement covers, in days, both ends included (docs/spec-decisions.md, "Statements"). */
export const STATEMENT_MAX_DAYS = 366;

/** A record as a statement line shows it. */
export interface StatementRecord extends StatementEntry {
  /** Invoice: its invoiceNum; payment and adjustment: its Ref; credit note: its CreditNumber. */
  reference: string | null;
  description: string;
  /** An invoice's DueDate, a positive adjustment's (its date when it has none); null for credits. */
  dueDate: PlainDate | null;
  /**
   * The tax credit note of a credit note or a negative credit_note adjustment (docs/tax.md, "Tax credit notes"):
   * its id (its PDF's) and number; null for every other line.
   */
  taxCreditNote: { id: number; creditNumber: string } | null;
}

export interface Statement {
  customer: Customer;
  currencyCode: string;
  startDate: PlainDate;
  endDate: PlainDate;
  openingMinor: number;
  lines: { record: StatementRecord; balanceMinor: number }[];
  closingMinor: number;
  /** What is owed at endDate, aged by days past due. */
  ageing: Ageing;
  /** Credit dated by endDate and not yet allocated: payments, credit notes, negative adjustments. */
  unappliedMinor: number;
  /**
   * Payments dated by endDate the bank has not paid yet: the closing balance counts them as paid, as Balance does;
   * the statement shows them as still due (docs/spec-decisions.md, "Pending debits on documents").
   */
  pendingMinor: number;
}

export interface StatementRange {
  /** Wire dates, as the query string gave them. */
  startDate?: string | undefined;
  endDate?: string | undefined;
}

const KIND_NAMES = { payment: 'Payment', credit_note: 'Credit note', adjustment: 'Adjustment' } as const;

/**
 * Prepaid credit pays invoices as payments do (docs/credits.md, "Tax"): its consumptions and releases are lines. A
 * cancelled invoice is not listed, nor the credit it took and gave back (their sum is 0).
 */
async function creditRecordsOf(
  ctx: ServiceContext,
  customerId: number,
  currencyCode: string,
  invoices: readonly { id: number; invoiceNum: number | null }[],
): Promise<StatementRecord[]> {
  const invoiceNums = new Map(invoices.map((invoice) => [invoice.id, invoice.invoiceNum ?? invoice.id]));
  const credit = await statementCreditRecordsOf(ctx, customerId, currencyCode);
  return credit
    .filter((record) => invoiceNums.has(record.invoiceId))
    .map((record) => ({
      kind: 'prepaid_credit' as const,
      id: record.id,
      date: record.date,
      amountMinor: record.amountMinor,
      reference: null,
      taxCreditNote: null,
      description: `${record.givenBack ? 'Prepaid credit given back' : 'Prepaid credit applied'} · invoice ${invoiceNums.get(record.invoiceId)!}`,
      dueDate: null,
    }));
}

/** The customer's statement of account over a range (docs/spec-decisions.md, "Statements"). */
export async function getStatement(
  ctx: ServiceContext,
  customerId: number,
  range: StatementRange,
): Promise<Statement> {
  const customer = await getCustomer(ctx, customerId);
  const { startDate, endDate } = checkedRange(ctx, customer, range);
  return statementFor(ctx, customer, startDate, endDate);
}

/** The statement of a customer already read, over a range already checked (the bill run's statement e-mails). */
export async function statementFor(
  ctx: ServiceContext,
  customer: Customer,
  startDate: PlainDate,
  endDate: PlainDate,
): Promise<Statement> {
  const currencyCode = customer.currencyCode;
  const invoices = await statementInvoicesOf(ctx, customer.id, currencyCode);
  const money = await statementMoneyRecordsOf(ctx, customer.id, currencyCode);
  const pendingWords = await pendingPaymentWords(ctx, money);
  const documents = await taxCreditNotesOfLines(ctx, money, startDate, endDate);
  const records: StatementRecord[] = [
    ...invoices.map((invoice) => ({
      kind: 'invoice' as const,
      id: invoice.id,
      date: invoice.invoiceDate,
      amountMinor: invoice.totalMinor,
      reference: invoice.invoiceNum === null ? null : String(invoice.invoiceNum),
      description: `Invoice ${invoice.invoiceNum ?? invoice.id}${invoice.reference ? ` (${invoice.reference})` : ''}`,
      dueDate: invoice.dueDate,
      taxCreditNote: null,
    })),
    ...money.map((record) => {
      const document = documents.get(`${record.kind} ${record.id}`);
      return {
        kind: record.kind,
        id: record.id,
        date: record.date,
        amountMinor: record.direction === 'positive' ? record.amountMinor : -record.amountMinor,
        reference: record.reference,
        description:
          (record.kind === 'payment' ? pendingWords.get(record.id) : undefined) ??
          (document ? taxCreditNoteWords(document, record.memo) : undefined) ??
          [
            record.kind === 'adjustment'
              ? `${record.direction === 'positive' ? 'Debit' : 'Credit'} adjustment`
              : KIND_NAMES[record.kind],
            record.kind === 'credit_note' ? record.reference : record.detail?.replaceAll('_', ' '),
            record.memo,
          ]
            .filter(Boolean)
            .join(' · '),
        dueDate: record.direction === 'positive' ? (record.dueDate ?? record.date) : null,
        taxCreditNote: document ? { id: document.id, creditNumber: document.creditNumber } : null,
      };
    }),
    ...(await creditRecordsOf(ctx, customer.id, currencyCode, invoices)),
  ];
  const body = statementOf(records, startDate, endDate);
  const owed = [
    ...invoices
      .filter((invoice) => invoice.invoiceDate <= endDate)
      .map((invoice) => ({ dueDate: invoice.dueDate, openMinor: invoice.openMinor })),
    ...money
      .filter((record) => record.direction === 'positive' && record.date <= endDate)
      .map((record) => ({ dueDate: record.dueDate ?? record.date, openMinor: record.openMinor })),
  ];
  const unappliedMinor = money
    .filter((record) => record.direction === 'negative' && record.date <= endDate)
    .reduce((sum, record) => sum + record.openMinor, 0);
  return {
    customer,
    currencyCode,
    startDate,
    endDate,
    openingMinor: body.openingMinor,
    lines: body.lines.map((line) => ({ record: line.entry, balanceMinor: line.balanceMinor })),
    closingMinor: body.closingMinor,
    ageing: ageingOf(owed, endDate),
    unappliedMinor,
    pendingMinor: money
      .filter((record) => record.pending && record.date <= endDate)
      .reduce((sum, record) => sum + record.amountMinor, 0),
  };
}

/**
 * The tax credit notes of the credit notes and adjustments dated within the range, by `kind id` (docs/tax.md, "Tax
 * credit notes"): only lines are named, so what the opening balance sums is not read. An adjustment that is no tax
 * credit note (a bad debt, a charge) has none.
 */
async function taxCreditNotesOfLines(
  ctx: ServiceContext,
  records: readonly StatementMoneyRecord[],
  startDate: PlainDate,
  endDate: PlainDate,
): Promise<Map<string, TaxCreditNote>> {
  const documents = new Map<string, TaxCreditNote>();
  for (const kind of ['credit_note', 'adjustment'] as const) {
    const ids = records
      .filter((record) => record.kind === kind && record.date >= startDate && record.date <= endDate)
      .map((record) => record.id);
    if (ids.length === 0) continue;
    for (const [id, document] of await taxCreditNotesOfSources(ctx, kind, ids))
      documents.set(`${kind} ${id}`, document);
  }
  return documents;
}

/**
 * A credit's line named by its tax credit note, with the invoices it corrects by number and the credit's Memo:
 * "Credit note CN-0003 · invoice 7 · Two days of outage" (docs/spec-decisions.md, "Statements"). A credit note not
 * yet applied corrects no invoice.
 */
function taxCreditNoteWords(document: TaxCreditNote, memo: string | null): string {
  const numbers = document.lines.map((line) => String(line.invoiceNum ?? line.invoiceId));
  const invoices =
    numbers.length === 0 ? null : `${numbers.length === 1 ? 'invoice' : 'invoices'} ${numbers.join(', ')}`;
  return [`Credit note ${document.creditNumber}`, invoices, memo].filter(Boolean).join(' · ');
}

/**
 * A pending payment's line in words, by payment id: "Pending debit: to be debited on 25 Jan 2027 from account
 * ending 0001" (invoicing's pendingDebitWords), never as if it were paid; dated by its batch's action date, the day
 * the bank takes it, as the invoice's documents date it (docs/spec-decisions.md, "Pending debits on documents").
 */
async function pendingPaymentWords(
  ctx: ServiceContext,
  records: readonly StatementMoneyRecord[],
): Promise<Map<number, string>> {
  const pending = records.filter((record) => record.kind === 'payment' && record.pending);
  if (pending.length === 0) return new Map();
  const [methods, debitDates] = await Promise.all([
    unopenedPaymentMethodsByIds(
      ctx,
      pending.flatMap((record) => record.paymentMethodId ?? []),
    ),
    debitDatesOf(
      ctx,
      pending.map((record) => record.id),
    ),
  ]);
  return new Map(
    pending.map((record) => {
      const method = record.paymentMethodId === null ? undefined : methods.get(record.paymentMethodId);
      const words = pendingDebitWords({
        date: debitDates.get(record.id) ?? record.date,
        accountLastFour: method?.bankAccount?.lastFour ?? null,
      });
      return [record.id, `Pending debit: ${words.charAt(0).toLowerCase()}${words.slice(1)}`];
    }),
  );
}

/**
 * startDate and endDate as calendar dates in the account's zone. Defaults: endDate today; startDate the day the
 * last statement was sent when that is not after endDate (its period ended the day before), else the first day
 * of endDate's month.
 */
function checkedRange(
  ctx: ServiceContext,
  customer: Customer,
  range: StatementRange,
): { startDate: PlainDate; endDate: PlainDate } {
  const problems: FieldProblem[] = [];
  const zone = ctx.account.timeZone;
  const read = (text: string | undefined, field: string): PlainDate | undefined => {
    if (text === undefined || text.trim() === '') return undefined;
    return checkedWireDate(text, zone, field, problems);
  };
  const givenStart = read(range.startDate, 'startDate');
  const givenEnd = read(range.endDate, 'endDate');
  if (problems.length) throw new ValidationError(problems);
  const endDate = givenEnd ?? today(ctx);
  const lastSent = customer.statementLastSentAt === null ? null : dateAt(customer.statementLastSentAt, zone);
  const startDate =
    givenStart ?? (lastSent !== null && lastSent <= endDate ? lastSent : `${endDate.slice(0, 8)}01`);
  if (startDate > endDate) {
    problems.push({ field: 'startDate', message: `must not be after endDate (${startDate} > ${endDate})` });
  } else if (daysBetween(startDate, endDate) + 1 > STATEMENT_MAX_DAYS) {
    problems.push({
      field: 'endDate',
      message: `must be at most ${STATEMENT_MAX_DAYS} days from startDate, both included (${startDate} to ${endDate})`,
    });
  }
  if (problems.length) throw new ValidationError(problems);
  return { startDate, endDate };
}
