import { withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { Page } from '../../core/paging.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import * as repo from './note.repository.ts';
import type { Note } from './customer.ts';
import { assertCustomerExists } from './customer.service.ts';

/** The original service's note types (public-service notes); General is the default. */
export const NOTE_TYPES = [
  'General',
  'Follow Up',
  'Query',
  'Alert',
  'Dispute',
  'Issue',
  'Request',
  'Meeting',
  'Phone Call',
  'Email',
] as const;

export interface NoteInput {
  customerId: number;
  note: string;
  noteType?: string | null;
}

/** Case and spacing are forgiven (`phone call`, `FollowUp`); the stored spelling is the canonical one. */
function noteTypeOf(value: string): string {
  const key = (text: string) => text.replace(/[\s_-]/g, '').toLowerCase();
  const match = NOTE_TYPES.find((type) => key(type) === key(value));
  if (!match) throw ValidationError.field('NoteType', `must be one of ${NOTE_TYPES.join(', ')}`);
  return match;
}

function checkedNote(text: string): string {
  const note = text.trim();
  if (note === '') throw ValidationError.field('Note', 'must not be blank');
  return note;
}

export async function getNote(ctx: ServiceContext, noteId: number): Promise<Note> {
  const note = await repo.findNote(ctx.db, ctx.account.id, noteId);
  if (!note) throw new NotFoundError('Customer note', noteId);
  return note;
}

export async function listNotes(ctx: ServiceContext, page: Page, customerId?: number): Promise<Note[]> {
  if (customerId !== undefined) await assertCustomerExists(ctx, customerId);
  return repo.listNotes(ctx.db, ctx.account.id, page, customerId);
}

/** Spec: DateUTC is set by the service when the note is added. */
export async function createNote(ctx: ServiceContext, input: NoteInput): Promise<Note> {
  const note = checkedNote(input.note);
  const noteType = input.noteType ? noteTypeOf(input.noteType) : 'General';
  await assertCustomerExists(ctx, input.customerId);
  const id = await withTransaction(ctx, async (tctx) => {
    const noteId = await repo.insertNote(tctx.db, {
      account_id: ctx.account.id,
      customer_id: input.customerId,
      note,
      note_type: noteType,
      created_at: ctx.clock.now().toISOString(),
    });
    await emitEvent(tctx, 'customer_note.created', noteRef(noteId));
    return noteId;
  });
  return getNote(ctx, id);
}

/** A NoteType left out keeps the note's type. DateUTC stays the date the note was added. */
export async function editNote(ctx: ServiceContext, noteId: number, input: NoteInput): Promise<void> {
  const current = await getNote(ctx, noteId);
  const note = checkedNote(input.note);
  const noteType = input.noteType ? noteTypeOf(input.noteType) : current.noteType;
  if (input.customerId !== current.customerId) await assertCustomerExists(ctx, input.customerId);
  await withTransaction(ctx, async (tctx) => {
    const before = await snapshotResource(tctx, noteRef(noteId));
    const updated = await repo.updateNote(tctx.db, ctx.account.id, noteId, {
      customer_id: input.customerId,
      note,
      note_type: noteType,
    });
    if (!updated) throw new NotFoundError('Customer note', noteId);
    await emitEvent(tctx, 'customer_note.updated', noteRef(noteId), { before });
  });
}

export async function deleteNote(ctx: ServiceContext, noteId: number): Promise<void> {
  await withTransaction(ctx, async (tctx) => {
    const before = await snapshotResource(tctx, noteRef(noteId));
    if (!(await repo.deleteNote(tctx.db, ctx.account.id, noteId))) {
      throw new NotFoundError('Customer note', noteId);
    }
    await emitEvent(tctx, 'customer_note.deleted', noteRef(noteId), { before });
  });
}

const noteRef = (id: number) => ({ type: 'customer_note', id });

/** The account's notes with these ids, by id (ids it cannot see are left out). */
export async function notesByIds(
  ctx: ServiceContext,
  noteIds: readonly number[],
): Promise<Map<number, Note>> {
  const notes = await repo.findNotes(ctx.db, ctx.account.id, noteIds);
  return new Map(notes.map((note) => [note.id, note]));
}
