import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../storage/database.ts';
import type { SecretBox } from '../../security/secretBox.ts';
import * as repo from './mail.repository.ts';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export interface MailTransport {
  send(message: OutgoingMail & { from: string }): Promise<void>;
}

// Bounded SMTP waits (nodemailer's defaults run to minutes), so that a send always ends within its lease.
const SMTP_TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 };

export function smtpTransport(smtpUrl: string): MailTransport {
  const transporter = nodemailer.createTransport(smtpUrl, SMTP_TIMEOUTS);
  return {
    async send(message) {
      await transporter.sendMail(message);
    },
  };
}

/** Puts a message in the outbox. Call it inside the transaction of the change it reports, so both land or neither. */
export async function queueMail(
  db: Db,
  deps: { clock: Clock; secrets: SecretBox },
  accountId: number,
  mail: OutgoingMail,
): Promise<number> {
  return repo.insertMail(db, {
    accountId,
    recipient: mail.to,
    subject: mail.subject,
    bodySealed: deps.secrets.seal(mail.text),
    createdAt: deps.clock.now().toISOString(),
  });
}

export interface DeliveryDeps {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
  /** Undefined when no SMTP server is configured: messages are then kept, readable, as skipped. */
  transport: MailTransport | undefined;
  from: string;
  log: Logger;
}

const BATCH = 20;
/** Longer than the SMTP timeouts together, so a lease never runs out while its message is being sent. */
const LEASE_MS = 5 * 60_000;
const MAX_ATTEMPTS = 6;

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
  for (let round = 0; round < BATCH; round++) {
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
      await deps.transport.send({
        from: deps.from,
        to: mail.recipient,
        subject: mail.subject,
        text: deps.secrets.open(mail.body_sealed),
      });
      await repo.recordDelivery(deps.db, lease, { status: 'sent', at: deps.clock.now().toISOString() });
      settled++;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
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
  subject: string;
  text: string;
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
    accountId: row.account_id,
    to: row.recipient,
    subject: row.subject,
    text: secrets.open(row.body_sealed),
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
  }));
}
