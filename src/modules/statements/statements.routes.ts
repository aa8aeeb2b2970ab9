import type { App } from '../../http/types.ts';
import { getStatement } from './statement.service.ts';
import { renderStatementPdf, statementPdfFilename } from './statementPdf.ts';
import { StatementOut, StatementParams, StatementQuery } from './statements.schemas.ts';
import { toStatementDto } from './statements.serializer.ts';

const tags = ['Statements'];

const RANGE_RULES =
  'startDate and endDate are calendar dates in the account time zone, both included, at most 366 days apart; ' +
  'endDate defaults to today, startDate to the day the last statement was sent (else the first day of the month). ' +
  "Only the customer's currency is counted; drafts and cancelled invoices and failed payments are left out.";

export function registerStatementsRoutes(app: App): void {
  app.get(
    '/customers/:customerID/statement',
    {
      schema: {
        summary: "Get a customer's statement of account",
        operationId: 'getCustomerStatement',
        tags,
        description:
          "The opening balance, every invoice, payment, credit note and adjustment dated in the range with the running balance after it, the closing balance (the customer's Balance when endDate is today), and what is owed aged by days past due. " +
          RANGE_RULES,
        params: StatementParams,
        querystring: StatementQuery,
        response: { 200: StatementOut },
      },
    },
    async (request) => {
      const { ctx } = request;
      const statement = await getStatement(ctx, request.params.customerID, request.query);
      return toStatementDto(statement, ctx.account.timeZone);
    },
  );

  app.get(
    '/customers/:customerID/statement.pdf',
    {
      schema: {
        summary: "Download a customer's statement of account as PDF",
        operationId: 'getCustomerStatementPdf',
        tags,
        description: `The statement as a PDF document, with the seller details and fonts of the invoices. ${RANGE_RULES}`,
        params: StatementParams,
        querystring: StatementQuery,
        produces: ['application/pdf'],
        response: {
          200: {
            description: 'The statement as PDF',
            content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
          },
        },
      },
    },
    async (request, reply) => {
      const { statement, pdf } = await renderStatementPdf(
        request.ctx,
        request.params.customerID,
        request.query,
      );
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="${statementPdfFilename(statement)}"`)
        .send(pdf);
    },
  );
}
