import type { Static } from '@sinclair/typebox';
import type { Note } from './customer.ts';
import type { NoteInput } from './note.service.ts';
import type { NoteBody, NoteOut } from './notes.schemas.ts';

export function toNoteDto(note: Note): Static<typeof NoteOut> {
  return {
    customerNoteID: note.id,
    customerID: note.customerId,
    DateUTC: note.createdAt,
    Note: note.note,
    NoteType: note.noteType,
  };
}

export function noteInputFromWire(body: NoteBody): NoteInput {
  return { customerId: body.customerID, note: body.Note, noteType: body.NoteType };
}
