import { createRequire } from 'node:module';
import type Nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.ts';
import type { Ports } from '../../context.ts';
import type { DocumentRenderer } from '../../pdf/documentPool.ts';
import { ServiceBusyError } from '../../http/customerQueue.ts';
import type { Db } from '../../storage/database.ts';
import type { SecretBox } from '../../security/secretBox.ts';
import * as repo from './mail.repository.ts';
import type { NewMail, StoredMail } from './mail.mapper.ts';

/** A document the worker renders when it delivers the message: `kind` names the renderer, `ref` the record. */
export interface AttachmentRef {
  kind: string;
  ref: string;
}

export interface OutgoingMail {
  to: string;
  /** A copy recipient. */
  cc?: string | null;
  subject: string;
  text: string;
  /** An HTML version of `text`, sent with the text as its plain-text alternative. */
  html?: string | null;
  attachment?: AttachmentRef | null;
}

export interface RenderedAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface SendableMail {
  /** MAIL_FROM's address, under the account's sender name when it has one. */
  from: string | { name: string; address: string };
  replyTo?: string;
  to: string;
  cc?: string;
  subject: string;
  text: string;
  html?: string;
  attachments?: RenderedAttachment[];
}

export interface MailTransport {
  send(message: SendableMail): Promise<void>;
}

/** What a renderer may use: the worker's own handles (there is no request, hence no context). */
export interface RenderDeps {
  db: Db;
  clock: Clock;
  /** The wall clock, for the context a renderer makes (ServiceContext.wallClock). */
  wallClock: Clock;
  secrets: SecretBox;
  log: Logger;
  /** The process's PDF threads, which draw the documents attached (docs/operations.md, "PDF documents"). */
  documents?: DocumentRenderer;
  /** The renderers of attachments by kind (ports.ts), and what a renderer's context needs of the others. */
  ports: Ports;
}

// Bounded SMTP waits (nodemailer's defaults run to minutes), so that a send always ends within its lease.
const SMTP_TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 };

export function smtpTransport(smtpUrl: string): MailTransport {
  // Loaded here, by the one process part that sends mail (the mail worker), rather than by every process that only
  // queues it (a `billing run`: docs/benchmarks.md, "Bill run").
  const nodemailer = createRequire(import.meta.url)('nodemailer') as typeof Nodemailer;
  const transporter = nodemailer.createTransport(smtpUrl, SMTP_TIMEOUTS);
  return {
    async send(message) {
      await transporter.sendMail(message);
    },
  };
}

function newMail(deps: { clock: Clock; secrets: SecretBox }, accountId: number, mail: OutgoingMail): NewMail {
  return {
    accountId,
    recipient: mail.to,
    cc: mail.cc ?? null,
    subject: mail.subject,
    bodySealed: deps.secrets.seal(mail.text),
    htmlSealed: mail.html ? deps.secrets.seal(mail.html) : null,
    attachment: mail.attachment ?? null,
    createdAt: deps.clock.now().toISOString(),
  };
}

/** Puts a message in the outbox. Call it inside the transaction of the change it reports, so both land or neither. */
export async function queueMail(
  db: Db,
  deps: { clock: Clock; secrets: SecretBox },
  accountId: number,
  mail: OutgoingMail,
): Promise<number> {
  return repo.insertMail(db, newMail(deps, accountId, mail));
}

/** Many messages at once, in a few statements (a bill run's invoices); same transaction rule as queueMail. */
export async function queueMails(
  db: Db,
  deps: { clock: Clock; secrets: SecretBox },
  mails: readonly { accountId: number; mail: OutgoingMail }[],
): Promise<void> {
  await repo.insertMails(
    db,
    mails.map(({ accountId, mail }) => newMail(deps, accountId, mail)),
  );
}

async function renderAttachments(deps: DeliveryDeps, mail: StoredMail): Promise<RenderedAttachment[]> {
  if (mail.attachment === null) return [];
  const render = deps.ports.mail.attachments[mail.attachment.kind];
  if (!render) throw new Error(`no renderer for attachments of kind ${mail.attachment.kind}`);
  return [await render(deps, { accountId: mail.accountId, ref: mail.attachment.ref })];
}

export interface DeliveryDeps {
  db: Db;
  clock: Clock;
  /** Passed on to attachment renderers (RenderDeps). */
  wallClock: Clock;
  secrets: SecretBox;
  /** Undefined when no SMTP server is configured: messages are then kept, readable, as skipped. */
  transport: MailTransport | undefined;
  from: string;
  /**
   * The account's sender name and Reply-To (auth's findMailSender, passed in by the composition root: this module
   * sits below accounts), read when a message is sent, so that every e-mail of the account comes from one name.
   */
  senderOf?: (db: Db, accountId: number) => Promise<MailSender | undefined>;
  log: Logger;
  /** Passed on to attachment renderers (RenderDeps). */
  documents?: DocumentRenderer;
  /** Passed on to attachment renderers (RenderDeps). */
  ports: Ports;
}

export interface MailSender {
  name: string;
  replyTo: string | null;
}

/** The address of MAIL_FROM, which may be written "Name <address>" or as the address alone. */
function addressOf(from: string): string {
  return /<([^<>]+)>\s*$/.exec(from)?.[1]?.trim() ?? from.trim();
}

/**
 * Who the message is from (docs/operations.md, "E-mail"): MAIL_FROM's address, the one the deployment may send
 * from, under the account's sender name; answers go to its Reply-To when it set one.
 */
async function senderFields(
  deps: DeliveryDeps,
  accountId: number,
): Promise<Pick<SendableMail, 'from' | 'replyTo'>> {
  const sender = deps.senderOf ? await deps.senderOf(deps.db, accountId) : undefined;
  if (!sender) return { from: deps.from };
  return {
    from: { name: sender.name, address: addressOf(deps.from) },
    ...(sender.replyTo ? { replyTo: sender.replyTo } : {}),
  };
}

/** Messages sent per round of the mail worker at most; the rest wait for its next round (a wake or its timer). */
const MESSAGES_PER_ROUND = 20;
/** Longer than the SMTP timeouts together, so a lease never runs out while its message is being sent. */
const LEASE_MS = 5 * 60_000;
const MAX_ATTEMPTS = 6;
/** How long a message whose attachment found its account's documents busy waits before it is tried again. */
const BUSY_RETRY_MS = 30_000;

/** Backoff between attempts: 1, 2, 4, 8, 16 minutes. */
function retryDelayMs(attempt: number): number {
  return 60_000 * 2 ** (attempt - 1);
}

/**
 * Sends what is due, leasing one message at a time just before sending it, so that no lease waits behind other
 * sends; returns how many messages it settled (sent, skipped or given up on).
 */
export async function deliverDueMail(deps: DeliveryDeps): Promise<number> {
  let settled = 0;
  for (let round = 0; round < MESSAGES_PER_ROUND; round++) {
    const now = deps.clock.now();
    const leaseUntil = new Date(now.getTime() + LEASE_MS).toISOString();
    const [mail] = await repo.leaseDueMail(deps.db, now.toISOString(), leaseUntil, 1);
    if (!mail) break;
    const lease = { id: mail.id, leaseUntil };
    if (!deps.transport) {
      await repo.recordDelivery(deps.db, lease, { status: 'skipped', reason: 'SMTP_URL is not configured' });
      settled++;
      continue;
    }
    try {
      // Rendered inside the attempt: a document that cannot be made now is retried like a failed send.
      const attachments = await renderAttachments(deps, mail);
      await deps.transport.send({
        ...(await senderFields(deps, mail.accountId)),
        to: mail.recipient,
        ...(mail.cc ? { cc: mail.cc } : {}),
        subject: mail.subject,
        text: deps.secrets.open(mail.bodySealed),
        ...(mail.htmlSealed ? { html: deps.secrets.open(mail.htmlSealed) } : {}),
        ...(attachments.length ? { attachments } : {}),
      });
      await repo.recordDelivery(deps.db, lease, { status: 'sent', at: deps.clock.now().toISOString() });
      settled++;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof ServiceBusyError && error.code === 'documents_busy') {
        // Its account's documents are busy (docs/operations.md, "PDF documents"): not a failed attempt, so it never
        // counts towards giving up; the message waits for the line to move.
        const retryAt = new Date(deps.clock.now().getTime() + BUSY_RETRY_MS).toISOString();
        await repo.recordDelivery(deps.db, lease, {
          status: 'pending',
          error: message,
          retryAt,
          uncounted: true,
        });
        continue;
      }
      deps.log.warn({ mailId: mail.id, attempt: mail.attempts, err: message }, 'mail delivery failed');
      if (mail.attempts >= MAX_ATTEMPTS) {
        await repo.recordDelivery(deps.db, lease, { status: 'failed', error: message });
        settled++;
      } else {
        const retryAt = new Date(deps.clock.now().getTime() + retryDelayMs(mail.attempts)).toISOString();
        await repo.recordDelivery(deps.db, lease, { status: 'pending', error: message, retryAt });
      }
    }
  }
  return settled;
}

export interface ReadableMail {
  id: number;
  accountId: number;
  to: string;
  cc: string | null;
  subject: string;
  text: string;
  /** `kind:ref` of the attachment rendered at delivery, if any. */
  attachment: string | null;
  status: string;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

export async function listMail(
  db: Db,
  secrets: SecretBox,
  filter: { accountId?: number; limit: number },
): Promise<ReadableMail[]> {
  const rows = await repo.listMail(db, filter);
  return rows.map((row) => ({
    id: row.id,
    accountId: row.accountId,
    to: row.recipient,
    cc: row.cc,
    subject: row.subject,
    text: secrets.open(row.bodySealed),
    attachment: row.attachment === null ? null : `${row.attachment.kind}:${row.attachment.ref}`,
    status: row.status,
    attempts: row.attempts,
    lastError: row.lastError,
    createdAt: row.createdAt,
    deliveredAt: row.deliveredAt,
  }));
}
