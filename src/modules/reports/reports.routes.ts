import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { vatReportFromWire } from './vatReport.service.ts';
import { VatReportOut, VatReportQuery } from './reports.schemas.ts';
import { toVatReportDto, vatReportCsv } from './reports.serializer.ts';

const tags = ['Reports'];

/** Beyond the spec (docs/tax.md, "The VAT report"). */
export function registerReportsRoutes(app: App): void {
  app.get(
    '/reports/vat',
    {
      schema: {
        summary: 'The VAT report of a tax period',
        operationId: 'getVatReport',
        description:
          "What the VAT201 return asks of sales for the period from `from` to `to` (inclusive, in the account's " +
          'time zone): standard-rated supplies and their output tax, zero-rated supplies at home and exported, ' +
          'exempt and non-supplies, and the tax credit notes netted in them, per currency, with every document ' +
          'the figures sum. `basis` invoice reads documents by their date; payments, money by the date it came.',
        tags,
        querystring: VatReportQuery,
        response: { 200: VatReportOut },
      },
    },
    async (request) => {
      const { from, to, basis } = request.query;
      const report = await vatReportFromWire(request.ctx, { from, to, ...(basis ? { basis } : {}) });
      return toVatReportDto(report, request.ctx.account.timeZone);
    },
  );

  app.get(
    '/reports/vat.csv',
    {
      schema: {
        summary: 'The VAT report of a tax period, as CSV',
        operationId: 'getVatReportCsv',
        description:
          'GET /v1/reports/vat as CSV: a row per document (currency, kind, number, date, invoice, customer, VAT ' +
          'number, category, rates, amount ex, VAT, amount inc), then the totals of each box and the VAT201 fields.',
        tags,
        querystring: VatReportQuery,
        produces: ['text/csv'],
        response: { 200: Type.String({ description: 'The report, RFC 4180' }) },
      },
    },
    async (request, reply) => {
      const { from, to, basis } = request.query;
      const report = await vatReportFromWire(request.ctx, { from, to, ...(basis ? { basis } : {}) });
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="vat-${report.from}-${report.to}.csv"`)
        .send(vatReportCsv(report));
    },
  );
}
