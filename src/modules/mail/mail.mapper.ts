import type { Insertable, Selectable } from 'kysely';
import type { MailOutboxTable } from './tables.ts';

/** A message to queue: its text (and HTML) already sealed, its attachment a reference rendered at delivery. */
export interface NewMail {
  accountId: number;
  recipient: string;
  cc?: string | null;
  subject: string;
  bodySealed: string;
  htmlSealed?: string | null;
  attachment?: { kind: string; ref: string } | null;
  createdAt: string;
}

export type MailStatus = 'pending' | 'sent' | 'skipped' | 'failed';

/** A message of the outbox as the worker and `billing mail` read it; the text still sealed. */
export interface StoredMail {
  id: number;
  accountId: number;
  recipient: string;
  cc: string | null;
  subject: string;
  bodySealed: string;
  htmlSealed: string | null;
  attachment: { kind: string; ref: string } | null;
  status: MailStatus;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

/** The columns a StoredMail is read from. */
export const STORED_MAIL_COLUMNS = [
  'id',
  'account_id',
  'recipient',
  'cc',
  'subject',
  'body_sealed',
  'html_sealed',
  'attachment_kind',
  'attachment_ref',
  'status',
  'attempts',
  'last_error',
  'created_at',
  'delivered_at',
] as const;

type StoredMailRow = Pick<Selectable<MailOutboxTable>, (typeof STORED_MAIL_COLUMNS)[number]>;

export function storedMailFromRow(row: StoredMailRow): StoredMail {
  return {
    id: row.id,
    accountId: row.account_id,
    recipient: row.recipient,
    cc: row.cc,
    subject: row.subject,
    bodySealed: row.body_sealed,
    htmlSealed: row.html_sealed,
    // Both or neither: an attachment is its renderer's kind and the record it renders.
    attachment:
      row.attachment_kind === null || row.attachment_ref === null
        ? null
        : { kind: row.attachment_kind, ref: row.attachment_ref },
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
  };
}

/** A new message's row: pending, due at once. */
export function newMailToRow(mail: NewMail): Insertable<MailOutboxTable> {
  return {
    account_id: mail.accountId,
    recipient: mail.recipient,
    cc: mail.cc ?? null,
    subject: mail.subject,
    body_sealed: mail.bodySealed,
    html_sealed: mail.htmlSealed ?? null,
    attachment_kind: mail.attachment?.kind ?? null,
    attachment_ref: mail.attachment?.ref ?? null,
    status: 'pending',
    attempts: 0,
    next_attempt_at: mail.createdAt,
    created_at: mail.createdAt,
  };
}
