import { startOfDate } from '../../core/calendar.ts';
import { minorToWireNumber } from '../../core/money.ts';
import type { Statement } from './statement.service.ts';
import type { StatementOut } from './statements.schemas.ts';

/** Dates as the wire shows them: the start of the day in the account's time zone. */
export function toStatementDto(statement: Statement, timeZone: string): StatementOut {
  const money = (minor: number) => minorToWireNumber(minor, statement.currencyCode);
  const day = (date: string) => startOfDate(date, timeZone);
  const { ageing } = statement;
  return {
    customerID: statement.customer.id,
    CurrencyCode: statement.currencyCode,
    StartDate: day(statement.startDate),
    EndDate: day(statement.endDate),
    OpeningBalance: money(statement.openingMinor),
    Lines: statement.lines.map(({ record, balanceMinor }) => ({
      Type: record.kind,
      ID: record.id,
      Date: day(record.date),
      DueDate: record.dueDate === null ? null : day(record.dueDate),
      Reference: record.reference,
      Description: record.description,
      Amount: money(record.amountMinor),
      Balance: money(balanceMinor),
      taxCreditNoteID: record.taxCreditNote?.id ?? null,
    })),
    ClosingBalance: money(statement.closingMinor),
    Ageing: {
      Current: money(ageing.currentMinor),
      Overdue1To30: money(ageing.overdue1To30Minor),
      Overdue31To60: money(ageing.overdue31To60Minor),
      Overdue61To90: money(ageing.overdue61To90Minor),
      OverdueOver90: money(ageing.overdueOver90Minor),
      Total: money(ageing.totalMinor),
    },
    Unapplied: money(statement.unappliedMinor),
    PendingDebits: money(statement.pendingMinor),
  };
}
