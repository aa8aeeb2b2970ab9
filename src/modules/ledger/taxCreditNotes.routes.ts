import { Type } from '@sinclair/typebox';
import { NoQuery, pageOf } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { getTaxCreditNote, listTaxCreditNotesFromWire } from './taxCreditNote.service.ts';
import { renderTaxCreditNotePdf, taxCreditNotePdfFilename } from './taxCreditNotePdf.ts';
import { TaxCreditNoteIdParams, TaxCreditNoteOut, TaxCreditNotesQuery } from './taxCreditNotes.schemas.ts';
import { toTaxCreditNoteDto } from './taxCreditNotes.serializer.ts';

const tags = ['Tax credit notes'];

/** Beyond the spec (docs/tax.md, "Tax credit notes"): the register of tax credit notes, and each one's PDF. */
export function registerTaxCreditNotesRoutes(app: App): void {
  app.get(
    '/tax-credit-notes',
    {
      schema: {
        summary: 'List tax credit notes',
        operationId: 'listTaxCreditNotes',
        description:
          "The account's tax credit notes in the order they were made: credit notes, negative adjustments that " +
          "reduce a supply (a subscription's credit for unused time) and prepaid credit that took the VAT off an " +
          'invoice after its issue, each with the tax invoices it corrects and the VAT it takes off them. ' +
          'customerID, from and to (inclusive, on Date) narrow the list.',
        tags,
        querystring: TaxCreditNotesQuery,
        response: { 200: Type.Array(TaxCreditNoteOut) },
      },
    },
    async (request) => {
      const { customerID, from, to } = request.query;
      const notes = await listTaxCreditNotesFromWire(
        request.ctx,
        { customerId: customerID, from, to },
        pageOf(request.query),
      );
      return notes.map((note) => toTaxCreditNoteDto(note, request.ctx.account.timeZone));
    },
  );

  app.get(
    '/tax-credit-notes/:taxCreditNoteID',
    {
      schema: {
        summary: 'Get a tax credit note',
        operationId: 'getTaxCreditNote',
        description: 'One tax credit note with the tax invoices it corrects.',
        tags,
        params: TaxCreditNoteIdParams,
        response: { 200: TaxCreditNoteOut },
      },
    },
    async (request) =>
      toTaxCreditNoteDto(
        await getTaxCreditNote(request.ctx, request.params.taxCreditNoteID),
        request.ctx.account.timeZone,
      ),
  );

  app.get(
    '/tax-credit-notes/:taxCreditNoteID/pdf',
    {
      schema: {
        summary: 'Download a tax credit note as PDF',
        operationId: 'getTaxCreditNotePdf',
        description: 'The tax credit note as a PDF document, as the customer receives it.',
        tags,
        params: TaxCreditNoteIdParams,
        querystring: NoQuery,
        produces: ['application/pdf'],
        response: {
          200: {
            description: 'The tax credit note as PDF',
            content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
          },
        },
      },
    },
    async (request, reply) => {
      const { note, pdf } = await renderTaxCreditNotePdf(request.ctx, request.params.taxCreditNoteID);
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="${taxCreditNotePdfFilename(note)}"`)
        .send(pdf);
    },
  );
}
