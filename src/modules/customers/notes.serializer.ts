import type { Static } from '@sinclair/typebox';
import type { Note, NoteInput } from './note.service.ts';
import type { NoteBody, NoteOut } from './notes.schemas.ts';

export function toNoteDto(note: Note): Static<typeof NoteOut> {
  return {
    customerNoteID: note.id,
    customerID: note.customer_id,
    DateUTC: note.created_at,
    Note: note.note,
    NoteType: note.note_type,
  };
}

export function noteInputFromWire(body: NoteBody): NoteInput {
  return { customerId: body.customerID, note: body.Note, noteType: body.NoteType };
}
