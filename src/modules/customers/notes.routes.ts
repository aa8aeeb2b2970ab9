import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { NoContent, PagingQuery, pageOf } from '../../http/schemas.ts';
import * as notes from './note.service.ts';
import { NoteBody, NoteIdParams, NoteOut, NotesOfCustomerParams } from './notes.schemas.ts';
import { noteInputFromWire, toNoteDto } from './notes.serializer.ts';

const tags = ['Customer notes'];

export function registerNoteRoutes(app: App): void {
  app.get(
    '/customers/:customerID/customernotes',
    {
      schema: {
        summary: "List a customer's notes",
        operationId: 'listCustomerNotes',
        description: "The customer's notes in creation order.",
        tags,
        params: NotesOfCustomerParams,
        querystring: PagingQuery,
        response: { 200: Type.Array(NoteOut) },
      },
    },
    async (request) =>
      (await notes.listNotes(request.ctx, pageOf(request.query), request.params.customerID)).map(toNoteDto),
  );

  app.get(
    '/customernotes',
    {
      schema: {
        summary: 'List notes',
        operationId: 'listNotes',
        description: "The account's customer notes in creation order.",
        tags,
        querystring: PagingQuery,
        response: { 200: Type.Array(NoteOut) },
      },
    },
    async (request) => (await notes.listNotes(request.ctx, pageOf(request.query))).map(toNoteDto),
  );

  app.get(
    '/customernotes/:customerNoteID',
    {
      schema: {
        summary: 'Get a note',
        operationId: 'getNote',
        description: 'One customer note.',
        tags,
        params: NoteIdParams,
        response: { 200: NoteOut },
      },
    },
    async (request) => toNoteDto(await notes.getNote(request.ctx, request.params.customerNoteID)),
  );

  app.post(
    '/customernotes',
    {
      schema: {
        summary: 'Create a note',
        operationId: 'createNote',
        description:
          "Adds a note to a customer (customerID in the body; another account's customer is a 404).",
        tags,
        body: NoteBody,
        response: { 201: NoteOut },
      },
    },
    async (request, reply) =>
      reply.code(201).send(toNoteDto(await notes.createNote(request.ctx, noteInputFromWire(request.body)))),
  );

  app.put(
    '/customernotes/:customerNoteID',
    {
      schema: {
        summary: 'Edit a note',
        operationId: 'editNote',
        description: "Changes the note's text or type.",
        tags,
        params: NoteIdParams,
        body: NoteBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await notes.editNote(request.ctx, request.params.customerNoteID, noteInputFromWire(request.body));
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/customernotes/:customerNoteID',
    {
      schema: {
        summary: 'Delete a note',
        operationId: 'deleteNote',
        description: 'Deletes the note.',
        tags,
        params: NoteIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await notes.deleteNote(request.ctx, request.params.customerNoteID);
      return reply.code(204).send(null);
    },
  );
}
