import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Id, Nullable, Text } from '../../http/schemas.ts';
import { NOTE_TYPES } from './note.service.ts';

export const NoteBody = Type.Object({
  customerID: Id(),
  Note: Text(10_000, { minLength: 1 }),
  NoteType: Type.Optional(
    Nullable(Text(50, { description: `One of ${NOTE_TYPES.join(', ')}; default General` })),
  ),
});
export type NoteBody = Static<typeof NoteBody>;

export const NoteOut = Type.Object(
  {
    customerNoteID: Type.Integer(),
    customerID: Type.Integer(),
    DateUTC: Type.String({ format: 'date-time' }),
    Note: Type.String(),
    NoteType: Type.String(),
  },
  { $id: 'CustomerNote' },
);

export const NoteIdParams = Type.Object({ customerNoteID: Id() });
export const NotesOfCustomerParams = Type.Object({ customerID: Id() });
