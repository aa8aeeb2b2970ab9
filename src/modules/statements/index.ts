/**
 * Statements of account: a customer's invoices, payments, credit notes and adjustments over a period with a
 * running balance and the ageing of what is owed, as JSON and PDF. Routes: statements.routes.ts.
 */
export type { Statement, StatementRange } from './statement.service.ts';
export { getStatement } from './statement.service.ts';
