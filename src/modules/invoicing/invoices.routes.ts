import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { NoContent, NoQuery, PagingQuery, emptyBodyAsObject, pageOf } from '../../http/schemas.ts';
import { invoiceWithFigures, withInvoiceFigures } from '../../readModels/invoices.view.ts';
import { currencyProblems } from '../catalogue/index.ts';
import { createInvoice, deleteInvoice, editInvoice, finalizeInvoice } from './invoice.service.ts';
import { sendInvoice } from './invoiceMail.service.ts';
import { invoicePdfFilename, renderInvoicePdf } from './invoicePdf.ts';
import { getInvoice, listInvoices, listInvoicesOfCustomer } from './invoiceReads.service.ts';
import {
  CreateInvoiceBody,
  CustomerIdParams,
  EditInvoiceBody,
  InvoiceIdParams,
  InvoiceListQuery,
  InvoiceOut,
} from './invoices.schemas.ts';
import { invoiceInputFromWire, toInvoiceDto } from './invoices.serializer.ts';

const tags = ['Invoices'];

export function registerInvoicesRoutes(app: App): void {
  app.get(
    '/customers/:customerID/invoices',
    {
      schema: {
        summary: "List a customer's invoices",
        operationId: 'listCustomerInvoices',
        tags,
        description: "The customer's invoices, in creation order.",
        params: CustomerIdParams,
        querystring: PagingQuery,
        response: { 200: Type.Array(InvoiceOut) },
      },
    },
    async (request) => {
      const { ctx } = request;
      const list = await listInvoicesOfCustomer(ctx, request.params.customerID, pageOf(request.query));
      return (await withInvoiceFigures(ctx, list)).map((invoice) =>
        toInvoiceDto(invoice, ctx.account.timeZone),
      );
    },
  );

  app.get(
    '/invoices',
    {
      schema: {
        summary: 'List invoices',
        operationId: 'listInvoices',
        tags,
        description:
          "The account's invoices in creation order; startDate and endDate are inclusive bounds on InvoiceDate.",
        querystring: InvoiceListQuery,
        response: { 200: Type.Array(InvoiceOut) },
      },
    },
    async (request) => {
      const { startDate, endDate } = request.query;
      const list = await listInvoices(request.ctx, pageOf(request.query), { startDate, endDate });
      return (await withInvoiceFigures(request.ctx, list)).map((invoice) =>
        toInvoiceDto(invoice, request.ctx.account.timeZone),
      );
    },
  );

  app.get(
    '/invoices/:invoiceID',
    {
      schema: {
        summary: 'Get an invoice',
        operationId: 'getInvoice',
        description: 'One invoice with its lines, taxes, totals, balance and status.',
        tags,
        params: InvoiceIdParams,
        response: { 200: InvoiceOut },
      },
    },
    async (request) =>
      toInvoiceDto(
        await invoiceWithFigures(request.ctx, await getInvoice(request.ctx, request.params.invoiceID)),
        request.ctx.account.timeZone,
      ),
  );

  app.post(
    '/invoices',
    {
      schema: {
        summary: 'Create an invoice',
        operationId: 'createInvoice',
        tags,
        description:
          'Creates an invoice, issued and numbered unless isDraft is true. Charges: Descrip, Qty, UnitCostEx; ' +
          'Taxes: Name, Perc (each applies to every line).',
        body: CreateInvoiceBody,
        response: { 201: InvoiceOut },
      },
      config: {
        checksBesideSchema: (request, reported) => currencyProblems(request.ctx, request.body, reported),
      },
    },
    async (request, reply) => {
      const input = invoiceInputFromWire(request.body);
      const invoice = await createInvoice(request.ctx, {
        ...input,
        customerId: request.body.customerID,
      });
      return reply
        .code(201)
        .send(toInvoiceDto(await invoiceWithFigures(request.ctx, invoice), request.ctx.account.timeZone));
    },
  );

  app.put(
    '/invoices/:invoiceID',
    {
      schema: {
        summary: 'Edit a draft invoice',
        operationId: 'editInvoice',
        tags,
        description:
          'Changes a draft (409 otherwise): fields left out keep their values; Charges and Taxes, when sent, ' +
          'replace the lists; isDraft false issues it.',
        params: InvoiceIdParams,
        body: EditInvoiceBody,
        response: NoContent,
      },
      config: {
        checksBesideSchema: (request, reported) => currencyProblems(request.ctx, request.body, reported),
      },
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) => {
      await editInvoice(request.ctx, request.params.invoiceID, invoiceInputFromWire(request.body));
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/invoices/:invoiceID/finalize',
    {
      schema: {
        summary: 'Issue a draft invoice',
        operationId: 'finalizeInvoice',
        tags,
        description: 'Issues a draft: it takes the next invoice number (409 when it is not a draft).',
        params: InvoiceIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await finalizeInvoice(request.ctx, request.params.invoiceID);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/invoices/:invoiceID/send',
    {
      schema: {
        summary: 'E-mail an invoice',
        operationId: 'sendInvoice',
        tags,
        description:
          "E-mails the invoice with its PDF to the customer's Email, copied to EmailCC, and sets DateSent " +
          '(409 for a draft or a cancelled invoice; 422 when the customer has no e-mail).',
        params: InvoiceIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await sendInvoice(request.ctx, request.params.invoiceID);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/invoices/:invoiceID',
    {
      schema: {
        summary: 'Delete or cancel an invoice',
        operationId: 'deleteInvoice',
        tags,
        description:
          'Deletes a draft; cancels an issued invoice (isCancelled true). 409 when it is cancelled already or ' +
          'money is allocated to it.',
        params: InvoiceIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await deleteInvoice(request.ctx, request.params.invoiceID);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/invoices/:invoiceID/pdf',
    {
      schema: {
        summary: 'Download an invoice as PDF',
        operationId: 'getInvoicePdf',
        tags,
        description: 'The invoice as a PDF document.',
        params: InvoiceIdParams,
        querystring: NoQuery,
        produces: ['application/pdf'],
        response: {
          200: {
            description: 'The invoice as PDF',
            content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
          },
        },
      },
    },
    async (request, reply) => {
      const { invoice, pdf } = await renderInvoicePdf(request.ctx, request.params.invoiceID);
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="${invoicePdfFilename(invoice)}"`)
        .send(pdf);
    },
  );
}
