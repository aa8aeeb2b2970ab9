/**
 * The measured processes: one runs the day's reminder pass and nothing else (again for the second pass of the same
 * day), another the floor, each in a process of its own (started the same way, loading the same code), so that the
 * peak RSS and CPU of each are its own.
 */
import { pino } from 'pino';
import { billingContext } from '../../src/billing/billRun.ts';
import { fixedClock, systemClock } from '../../src/clock.ts';
import type { DatabaseTarget } from '../../src/config.ts';
import { getAccount } from '../../src/modules/auth/index.ts';
import { sendDueReminders } from '../../src/modules/collections/index.ts';
import { queueMail } from '../../src/modules/mail/index.ts';
import type { OutgoingMail } from '../../src/modules/mail/index.ts';
import { createSecretBox } from '../../src/security/secretBox.ts';
import type { SecretBox } from '../../src/security/secretBox.ts';
import { openStorage } from '../../src/storage/database.ts';
import type { Db } from '../../src/storage/database.ts';
import {
  MB,
  MeasuredProcess,
  StatementCounter,
  peakRssMb,
  timed,
  watchEventLoopStalls,
} from '../measuredProcess.ts';
import { FLOOR_AT, PUBLIC_URL, REMIND_AT } from './shared.ts';
import { modulePorts } from '../../src/modulePorts.ts';

export interface ChildInput {
  /** `remind`: the day's pass; `again`: the same day's pass once more; `floor`: the reminders' e-mails bare. */
  mode: 'remind' | 'again' | 'floor';
  target: DatabaseTarget;
  accountId: number;
  /** The instant the work happens at (the context's clock). */
  at: string;
  encryptionKey: string;
}

/** The measured processes: the benchmark's entry point, which calls `child` when BENCH_REMINDERS_CHILD is set. */
export const reminderProcesses = new MeasuredProcess<ChildInput>(
  new URL('../reminders.ts', import.meta.url),
  'BENCH_REMINDERS_CHILD',
);

export interface ChildResult {
  /** Reminders the pass sent (`sendDueReminders`), or e-mails the floor queued. */
  done: number;
  seconds: number;
  /** CPU seconds (user + system) of the process during the work; steadier than wall time on a busy machine. */
  cpuSeconds: number;
  /** VmHWM of the process (Linux): the peak resident set, start-up included. */
  peakRssMb: number;
  rssBeforeMb: number;
  /** The longest the event loop went without running a timer during the work (ms). */
  longestStallMs: number;
  /** BENCH_STATEMENTS=1 only: the statements run during the work, and how many of each SQL text. */
  statements?: number;
  statementCounts?: [string, number][];
}

/** The reminders' e-mails, as queued by the pass (REMIND_AT), opened: what the floor queues again. */
async function reminderMails(db: Db, secrets: SecretBox, accountId: number): Promise<OutgoingMail[]> {
  const rows = await db
    .selectFrom('mail_outbox')
    .select(['recipient', 'cc', 'subject', 'body_sealed', 'html_sealed'])
    .where('account_id', '=', accountId)
    .where('created_at', '=', REMIND_AT)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    to: row.recipient,
    cc: row.cc,
    subject: row.subject,
    text: secrets.open(row.body_sealed),
    html: row.html_sealed === null ? null : secrets.open(row.html_sealed),
  }));
}

/**
 * The floor's work: the reminders' e-mails queued again, each by the mail module's one queueing call (`queueMail`:
 * its body and HTML sealed, one outbox row), each its own statement, as a reminder queues its e-mails in its own
 * transaction. Nothing else of a reminder: no candidates read, no invoice, lock, claim, event or words. The e-mails
 * are read (and opened) before the timing.
 */
async function floorWork(
  db: Db,
  secrets: SecretBox,
  accountId: number,
  at: string,
): Promise<() => Promise<number>> {
  const mails = await reminderMails(db, secrets, accountId);
  const deps = { clock: fixedClock(at), secrets };
  return async () => {
    for (const mail of mails) await queueMail(db, deps, accountId, mail);
    return mails.length;
  };
}

/** The pass or the floor, measured: what the process prints as its result. */
export async function child(input: ChildInput): Promise<ChildResult> {
  // As every entry point: the reminders' events render through the ports it plugs in.
  const statements = new StatementCounter<'work'>();
  const storage = openStorage(input.target, statements.storageOptions());
  const db: Db = storage.db;
  const secrets = createSecretBox(Buffer.from(input.encryptionKey, 'base64'));
  let work: () => Promise<number>;
  if (input.mode === 'floor') work = await floorWork(db, secrets, input.accountId, FLOOR_AT);
  else {
    // The context the bill run gives each account (src/billing/billRun.ts), its links under PUBLIC_URL.
    const ctx = billingContext(
      {
        ports: modulePorts(),
        db,
        clock: systemClock,
        wallClock: systemClock,
        log: pino({ level: 'warn' }, pino.destination(2)),
        secrets,
        mailQueued: () => {},
        publicUrl: PUBLIC_URL,
      },
      await getAccount(db, input.accountId),
      input.at,
    );
    work = async () => (await sendDueReminders(ctx)).sent;
  }
  const rssBefore = process.memoryUsage.rss();
  const stalls = watchEventLoopStalls();
  statements.phase = 'work';
  const { value: done, time } = await timed(work);
  statements.phase = undefined;
  const longestStallMs = stalls.stop();
  await storage.close();
  const counts = statements.enabled ? statements.totals('work') : undefined;
  return {
    done,
    seconds: time.ms / 1000,
    cpuSeconds: time.cpuMs / 1000,
    peakRssMb: peakRssMb(),
    rssBeforeMb: rssBefore / MB,
    longestStallMs,
    statements: counts?.total,
    statementCounts: counts?.bySql,
  };
}

export function runChild(input: ChildInput): Promise<ChildResult> {
  return reminderProcesses.run(input, input.mode === 'floor' ? 'floor' : 'reminder pass');
}
