import { Type } from '@sinclair/typebox';
import { idempotentCreate } from '../../http/idempotency.ts';
import { NoContent, PagingQuery, pageOf } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import * as credits from './creditNote.service.ts';
import {
  CreateCreditNoteBody,
  CreditNoteIdParams,
  CreditNoteOut,
  CustomerIdParams,
  EditCreditNoteBody,
} from './creditNotes.schemas.ts';
import {
  creditNoteInputFromWire,
  newCreditNoteInputFromWire,
  toCreditNoteDto,
} from './creditNotes.serializer.ts';

const tags = ['Credit notes'];

export function registerCreditNotesRoutes(app: App): void {
  app.get(
    '/customers/:customerID/credits',
    {
      schema: {
        summary: "List a customer's credit notes",
        operationId: 'listCustomerCreditNotes',
        description: "The customer's credit notes in creation order, with their allocations.",
        tags,
        params: CustomerIdParams,
        querystring: PagingQuery,
        response: { 200: Type.Array(CreditNoteOut) },
      },
    },
    async (request) =>
      (await credits.listCreditNotes(request.ctx, pageOf(request.query), request.params.customerID)).map(
        (c) => toCreditNoteDto(c, request.ctx.account.timeZone),
      ),
  );

  app.get(
    '/credits',
    {
      schema: {
        summary: 'List credit notes',
        operationId: 'listCreditNotes',
        description: "The account's credit notes in creation order, with their allocations.",
        tags,
        querystring: PagingQuery,
        response: { 200: Type.Array(CreditNoteOut) },
      },
    },
    async (request) =>
      (await credits.listCreditNotes(request.ctx, pageOf(request.query))).map((c) =>
        toCreditNoteDto(c, request.ctx.account.timeZone),
      ),
  );

  app.get(
    '/credits/:creditNoteID',
    {
      schema: {
        summary: 'Get a credit note',
        operationId: 'getCreditNote',
        description: 'One credit note with its allocations.',
        tags,
        params: CreditNoteIdParams,
        response: { 200: CreditNoteOut },
      },
    },
    async (request) =>
      toCreditNoteDto(
        await credits.getCreditNote(request.ctx, request.params.creditNoteID),
        request.ctx.account.timeZone,
      ),
  );

  app.post(
    '/credits',
    {
      schema: {
        summary: 'Issue a credit note',
        operationId: 'createCreditNote',
        tags,
        description:
          'Issues a credit note to a customer. CreditNumber is unique per account (409 when taken); without ' +
          "one, the credit note takes the next number of the account's sequence (`CN-0001`, `CN-0002`, ...). " +
          'AutoApply ' +
          '(or isAutoApply) applies it to the earliest open invoices (InvoiceDate, then invoiceID) until it is ' +
          'spent; otherwise the Allocations list (or allocations) is required. On an invoice, credit notes ' +
          'count in TotalNegativeAdjs and are listed in NegativeAdjustmentsApplied with their creditNoteID.',
        body: CreateCreditNoteBody,
        response: { 201: CreditNoteOut },
      },
    },
    async (request, reply) => {
      const input = newCreditNoteInputFromWire(request.body, request.ctx.account.timeZone);
      return idempotentCreate(
        request,
        reply,
        (ctx) => credits.createCreditNote(ctx, input),
        (created) => created.rendered,
        { customerId: input.customerId },
      );
    },
  );

  app.put(
    '/credits/:creditNoteID',
    {
      schema: {
        summary: 'Replace a credit note',
        operationId: 'editCreditNote',
        tags,
        description:
          'Replaces the credit note and its allocations: an allocation with allocationID is edited, one ' +
          'without is added, one left out is deleted. customerID must stay the credit note’s customer; ' +
          'without CreditNumber the credit note keeps its own.',
        params: CreditNoteIdParams,
        body: EditCreditNoteBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await credits.updateCreditNote(
        request.ctx,
        request.params.creditNoteID,
        creditNoteInputFromWire(request.body, request.ctx.account.timeZone),
      );
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/credits/:creditNoteID',
    {
      schema: {
        summary: 'Delete a credit note',
        operationId: 'deleteCreditNote',
        tags,
        description: 'Deletes the credit note and its allocations; what it credited is owed again.',
        params: CreditNoteIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await credits.deleteCreditNote(request.ctx, request.params.creditNoteID);
      return reply.code(204).send(null);
    },
  );
}
