import type { Instant, Id } from '../../storage/columnTypes.ts';

// The tables the mail module owns (docs/architecture.md, "Tables and their owners"): only its own queries name them.

export interface MailOutboxTable {
  id: Id;
  account_id: number;
  recipient: string;
  subject: string;
  /** AES-256-GCM sealed text: messages can carry credentials. */
  body_sealed: string;
  /** An HTML alternative of the body, sealed the same way (0024); null: plain text only. */
  html_sealed: string | null;
  status: 'pending' | 'sent' | 'skipped' | 'failed';
  attempts: number;
  next_attempt_at: Instant;
  lease_until: Instant | null;
  last_error: string | null;
  created_at: Instant;
  delivered_at: Instant | null;
  /** A copy recipient. */
  cc: string | null;
  /** An attachment rendered at delivery by the renderer registered for its kind, from its ref (an id). */
  attachment_kind: string | null;
  attachment_ref: string | null;
}

/** The mail module's tables, as Kysely's Database type holds them. */
export interface MailTables {
  mail_outbox: MailOutboxTable;
}
