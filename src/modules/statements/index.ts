/**
 * Statements of account: a customer's invoices, payments, credit notes and adjustments over a period with a
 * running balance and the ageing of what is owed, as JSON and PDF, and e-mailed by the bill run to
 * autoSendStatement customers on their StatementDate. Routes: statements.routes.ts.
 */
export type { Statement, StatementRange } from './statement.service.ts';
export { getStatement } from './statement.service.ts';
export type { StatementRunSummary } from './statementMail.service.ts';
export { sendDueStatements } from './statementMail.service.ts';
export {
  STATEMENT_PDF_ATTACHMENT,
  STATEMENT_DOCUMENT,
  drawStatementDocument,
  renderStatementPdf,
  renderStatementPdfAttachment,
  statementPdfFilename,
} from './statementPdf.ts';
export type { StatementDocument } from './statementPdf.ts';
