import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { NoContent, PagingQuery, emptyBodyAsObject, pageOf } from '../../http/schemas.ts';
import {
  cancelRecurringInvoice,
  createRecurringInvoice,
  deleteRecurringInvoice,
  editRecurringInvoice,
  reactivateRecurringInvoice,
} from './recurringInvoice.service.ts';
import { unparkRecurringInvoice } from './recurringInvoiceBilling.service.ts';
import { getRecurringInvoice, listRecurringInvoices } from './recurringInvoiceReads.service.ts';
import {
  CreateRecurringInvoiceBody,
  CustomerIdParams,
  EditRecurringInvoiceBody,
  RecurringInvoiceIdParams,
  RecurringInvoiceOut,
} from './recurringInvoices.schemas.ts';
import { recurringInvoiceInputFromWire, toRecurringInvoiceDto } from './recurringInvoices.serializer.ts';

const tags = ['Recurring invoices'];

export function registerRecurringInvoicesRoutes(app: App): void {
  app.get(
    '/customers/:customerID/recurring-invoices',
    {
      schema: {
        summary: "List a customer's recurring invoices",
        operationId: 'listCustomerRecurringInvoices',
        tags,
        description: "The customer's recurring invoices, in creation order.",
        params: CustomerIdParams,
        querystring: PagingQuery,
        response: { 200: Type.Array(RecurringInvoiceOut) },
      },
    },
    async (request) =>
      (await listRecurringInvoices(request.ctx, pageOf(request.query), request.params.customerID)).map(
        (invoice) => toRecurringInvoiceDto(invoice, request.ctx.account.timeZone),
      ),
  );

  app.get(
    '/recurring-invoices',
    {
      schema: {
        summary: 'List recurring invoices',
        operationId: 'listRecurringInvoices',
        tags,
        description: "The account's recurring invoices, in creation order.",
        querystring: PagingQuery,
        response: { 200: Type.Array(RecurringInvoiceOut) },
      },
    },
    async (request) =>
      (await listRecurringInvoices(request.ctx, pageOf(request.query))).map((invoice) =>
        toRecurringInvoiceDto(invoice, request.ctx.account.timeZone),
      ),
  );

  app.get(
    '/recurring-invoices/:recurInvoiceID',
    {
      schema: {
        summary: 'Get a recurring invoice',
        operationId: 'getRecurringInvoice',
        description: 'One recurring invoice with its charges, taxes and renewal dates.',
        tags,
        params: RecurringInvoiceIdParams,
        response: { 200: RecurringInvoiceOut },
      },
    },
    async (request) =>
      toRecurringInvoiceDto(
        await getRecurringInvoice(request.ctx, request.params.recurInvoiceID),
        request.ctx.account.timeZone,
      ),
  );

  app.post(
    '/recurring-invoices',
    {
      schema: {
        summary: 'Create a recurring invoice',
        operationId: 'createRecurringInvoice',
        tags,
        description:
          'Creates a recurring invoice: one invoice per period from StartDate, dated numDaysBeforeToInv days ' +
          'before the period starts.',
        body: CreateRecurringInvoiceBody,
        response: { 201: RecurringInvoiceOut },
      },
    },
    async (request, reply) => {
      const input = recurringInvoiceInputFromWire(request.body);
      const created = await createRecurringInvoice(request.ctx, {
        ...input,
        customerId: request.body.customerID,
        startDate: request.body.StartDate,
      });
      return reply.code(201).send(toRecurringInvoiceDto(created, request.ctx.account.timeZone));
    },
  );

  app.put(
    '/recurring-invoices/:recurInvoiceID',
    {
      schema: {
        summary: 'Edit a recurring invoice',
        operationId: 'editRecurringInvoice',
        tags,
        description:
          'Changes the fields sent; fields left out keep their values and null clears one. RecurInvoiceCharges ' +
          'and Taxes, when sent, replace the lists. StartDate, Term and TermType change only until the first ' +
          'invoice is made (409 after).',
        params: RecurringInvoiceIdParams,
        body: EditRecurringInvoiceBody,
        response: NoContent,
      },
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) => {
      await editRecurringInvoice(
        request.ctx,
        request.params.recurInvoiceID,
        recurringInvoiceInputFromWire(request.body),
      );
      return reply.code(204).send(null);
    },
  );

  const stateRoute = (
    path: string,
    doc: { summary: string; operationId: string; description: string },
    change: typeof cancelRecurringInvoice,
  ) =>
    app.put(
      `/recurring-invoices/:recurInvoiceID/${path}`,
      { schema: { ...doc, tags, params: RecurringInvoiceIdParams, response: NoContent } },
      async (request, reply) => {
        await change(request.ctx, request.params.recurInvoiceID);
        return reply.code(204).send(null);
      },
    );
  stateRoute(
    'cancel',
    {
      summary: 'Cancel a recurring invoice',
      operationId: 'cancelRecurringInvoice',
      description:
        'Cancels it: no more invoices (isCancelled true, comp_Status Cancelled); 409 if already cancelled.',
    },
    cancelRecurringInvoice,
  );
  stateRoute(
    'reactivate',
    {
      summary: 'Reactivate a recurring invoice',
      operationId: 'reactivateRecurringInvoice',
      description:
        'Resumes a cancelled one with the first period whose invoice is dated today or later; periods that fell ' +
        'due while cancelled are not billed. 409 unless cancelled.',
    },
    reactivateRecurringInvoice,
  );
  stateRoute(
    'unpark',
    {
      summary: 'Unpark a recurring invoice',
      operationId: 'unparkRecurringInvoice',
      description:
        'Takes a parked one (its record broke an invariant, see ParkedReason) back into billing. 409 unless parked.',
    },
    unparkRecurringInvoice,
  );

  app.delete(
    '/recurring-invoices/:recurInvoiceID',
    {
      schema: {
        summary: 'Delete a recurring invoice',
        operationId: 'deleteRecurringInvoice',
        tags,
        description: 'Deletes one that has made no invoice; one that has is a 409 (cancel it instead).',
        params: RecurringInvoiceIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await deleteRecurringInvoice(request.ctx, request.params.recurInvoiceID);
      return reply.code(204).send(null);
    },
  );
}
