import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentSettings, parseDatabaseUrl } from '../../src/config.ts';
import type { Clock } from '../../src/clock.ts';
import { systemClock } from '../../src/clock.ts';
import { deliverDueMail, listMail, queueMail } from '../../src/modules/mail/index.ts';
import type {
  AttachmentRenderer,
  MailTransport,
  OutgoingMail,
  SendableMail,
} from '../../src/modules/mail/index.ts';
import type { Ports } from '../../src/context.ts';
import { createSecretBox } from '../../src/security/secretBox.ts';
import { DocumentPool } from '../../src/pdf/documentPool.ts';
import { openStorage } from '../../src/storage/database.ts';
import type { Storage } from '../../src/storage/database.ts';
import { migrateToLatest } from '../../src/storage/migrate.ts';
import { freshDatabase } from '../helpers/service.ts';
import { modulePorts } from '../../src/modulePorts.ts';

let storage: Storage;
let drop: () => Promise<void>;
let dataDir: string;
let accountId: number;
const secrets = createSecretBox(crypto.randomBytes(32));
const log = pino({ level: 'silent' });

/** A clock the test moves by hand. */
function clockAt(iso: string): Clock & { set(to: string): void } {
  let now = new Date(iso);
  return { now: () => new Date(now.getTime()), set: (to) => (now = new Date(to)) };
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-mail-'));
  const database = await freshDatabase(dataDir);
  drop = database.drop;
  storage = openStorage(parseDatabaseUrl(database.url, dataDir));
  await migrateToLatest(storage.db);
  const row = await storage.db
    .insertInto('accounts')
    .values({ name: 'Mail', time_zone: 'UTC', currency_code: 'USD', created_at: '2026-11-22T00:00:00.000Z' })
    .returning('id')
    .executeTakeFirstOrThrow();
  accountId = row.id;
});
afterAll(async () => {
  await storage.close();
  await drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function statusOf(subject: string) {
  const all = await listMail(storage.db, secrets, { accountId, limit: 100 });
  return all.find((m) => m.subject === subject);
}

/** The service's ports, with one more attachment renderer (the outbox finds renderers by kind in `ports.mail`). */
function withRenderer(kind: string, render: AttachmentRenderer): Ports {
  const ports = modulePorts();
  return { ...ports, mail: { attachments: { ...ports.mail.attachments, [kind]: render } } };
}

describe('mail delivery', () => {
  it('sends due mail once, retries a failure later, and never sends what another worker took over', async () => {
    const clock = clockAt('2026-11-22T10:00:00.000Z');
    await queueMail(storage.db, { clock, secrets }, accountId, {
      to: 'a@x.test',
      subject: 'slow',
      text: 'hello',
    });

    // The first worker's send hangs past its lease; meanwhile a second worker takes the message over and sends it.
    // Its send then fails: unless its lease is checked, it would mark the message for a retry and send it twice.
    let failSlow: () => void = () => {};
    const sentBySecond: OutgoingMail[] = [];
    const slow: MailTransport = {
      send: () => new Promise<void>((_resolve, reject) => (failSlow = () => reject(new Error('timed out')))),
    };
    const fast: MailTransport = { send: async (message) => void sentBySecond.push(message) };
    const deps = { db: storage.db, wallClock: systemClock, secrets, from: 'billing@x.test', log };

    const first = deliverDueMail({ ports: modulePorts(), ...deps, clock, transport: slow });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const later = clockAt('2026-11-22T10:06:00.000Z');
    expect(await deliverDueMail({ ports: modulePorts(), ...deps, clock: later, transport: fast })).toBe(1);
    expect(sentBySecond.map((m) => m.text)).toEqual(['hello']);
    failSlow();
    await first;
    // The first worker's late result does not overwrite the second's.
    expect(await statusOf('slow')).toMatchObject({ status: 'sent', attempts: 2, lastError: null });
  });

  it('backs off after a failed attempt and delivers on the retry', async () => {
    const clock = clockAt('2026-11-22T11:00:00.000Z');
    await queueMail(storage.db, { clock, secrets }, accountId, {
      to: 'b@x.test',
      subject: 'flaky',
      text: 'hi',
    });
    const deps = { db: storage.db, wallClock: systemClock, secrets, from: 'billing@x.test', log };
    const failing: MailTransport = { send: async () => Promise.reject(new Error('451 try later')) };
    await deliverDueMail({ ports: modulePorts(), ...deps, clock, transport: failing });
    expect(await statusOf('flaky')).toMatchObject({
      status: 'pending',
      lastError: '451 try later',
      attempts: 1,
    });

    const sent: OutgoingMail[] = [];
    const working: MailTransport = { send: async (message) => void sent.push(message) };
    await deliverDueMail({ ports: modulePorts(), ...deps, clock, transport: working });
    expect(sent).toEqual([]);
    clock.set('2026-11-22T11:01:00.000Z');
    await deliverDueMail({ ports: modulePorts(), ...deps, clock, transport: working });
    expect(sent.map((m) => m.to)).toEqual(['b@x.test']);
    expect(await statusOf('flaky')).toMatchObject({ status: 'sent', attempts: 2, lastError: null });
  });

  it('sends new mail at once in the order queued, even made on a clock ahead, and a retry only when due', async () => {
    const worker = clockAt('2026-11-22T12:00:00.000Z');
    const deps = { db: storage.db, wallClock: systemClock, secrets, from: 'billing@x.test', log };
    const mail = (subject: string) => ({ to: 'c@x.test', subject, text: subject });
    await queueMail(storage.db, { clock: worker, secrets }, accountId, mail('retried'));
    const failing: MailTransport = { send: async () => Promise.reject(new Error('451 try later')) };
    expect(await deliverDueMail({ ports: modulePorts(), ...deps, clock: worker, transport: failing })).toBe(
      0,
    );

    // A test account's clock stands months ahead of the worker's: its message is due all the same.
    await queueMail(
      storage.db,
      { clock: clockAt('2027-03-01T00:00:00.000Z'), secrets },
      accountId,
      mail('ahead'),
    );
    await queueMail(storage.db, { clock: worker, secrets }, accountId, mail('after'));
    const sent: string[] = [];
    const working: MailTransport = { send: async (message) => void sent.push(message.subject) };
    expect(await deliverDueMail({ ports: modulePorts(), ...deps, clock: worker, transport: working })).toBe(
      2,
    );
    expect(sent).toEqual(['ahead', 'after']);

    worker.set('2026-11-22T12:01:00.000Z');
    expect(await deliverDueMail({ ports: modulePorts(), ...deps, clock: worker, transport: working })).toBe(
      1,
    );
    expect(sent).toEqual(['ahead', 'after', 'retried']);
    expect(await statusOf('ahead')).toMatchObject({ status: 'sent', createdAt: '2027-03-01T00:00:00.000Z' });
  });

  it('keeps mail readable as skipped when no SMTP server is configured', async () => {
    const clock = clockAt('2026-11-22T12:00:00.000Z');
    await queueMail(storage.db, { clock, secrets }, accountId, {
      to: 'c@x.test',
      subject: 'kept',
      text: 'Password: p4ss',
    });
    await deliverDueMail({
      ports: modulePorts(),
      db: storage.db,
      wallClock: systemClock,
      secrets,
      from: 'billing@x.test',
      log,
      clock,
      transport: undefined,
    });
    expect(await statusOf('kept')).toMatchObject({ status: 'skipped', text: 'Password: p4ss' });
    const row = await storage.db
      .selectFrom('mail_outbox')
      .select('body_sealed')
      .where('subject', '=', 'kept')
      .executeTakeFirstOrThrow();
    expect(row.body_sealed).not.toContain('p4ss');
  });

  it('renders an attachment by its registered renderer when it delivers, copying the cc', async () => {
    const clock = clockAt('2026-11-22T13:00:00.000Z');
    const rendered: { accountId: number; ref: string }[] = [];
    const ports = withRenderer('test_doc', async (_deps, mail) => {
      rendered.push(mail);
      return { filename: `doc-${mail.ref}.txt`, contentType: 'text/plain', content: Buffer.from('body') };
    });
    await queueMail(storage.db, { clock, secrets }, accountId, {
      to: 'd@x.test',
      cc: 'e@x.test',
      subject: 'with attachment',
      text: 'see attached',
      attachment: { kind: 'test_doc', ref: '42' },
    });
    // Queuing renders nothing: the document is made when the message is sent.
    expect(rendered).toEqual([]);
    const sent: SendableMail[] = [];
    await deliverDueMail({
      ports,
      db: storage.db,
      wallClock: systemClock,
      secrets,
      from: 'billing@x.test',
      log,
      clock,
      transport: { send: async (message) => void sent.push(message) },
    });
    expect(rendered).toEqual([{ accountId, ref: '42' }]);
    expect(sent).toEqual([
      expect.objectContaining({
        to: 'd@x.test',
        cc: 'e@x.test',
        attachments: [{ filename: 'doc-42.txt', contentType: 'text/plain', content: Buffer.from('body') }],
      }),
    ]);
    expect(await statusOf('with attachment')).toMatchObject({ status: 'sent', attachment: 'test_doc:42' });
  });

  it('retries later a message whose attachment has no renderer, sending nothing without it', async () => {
    const clock = clockAt('2026-11-22T14:00:00.000Z');
    await queueMail(storage.db, { clock, secrets }, accountId, {
      to: 'f@x.test',
      subject: 'unrenderable',
      text: 'x',
      attachment: { kind: 'unknown_kind', ref: '1' },
    });
    const sent: SendableMail[] = [];
    await deliverDueMail({
      ports: modulePorts(),
      db: storage.db,
      wallClock: systemClock,
      secrets,
      from: 'billing@x.test',
      log,
      clock,
      transport: { send: async (message) => void sent.push(message) },
    });
    expect(sent).toEqual([]);
    expect(await statusOf('unrenderable')).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastError: 'no renderer for attachments of kind unknown_kind',
    });
  });

  it("waits without counting an attempt while its account's documents are busy, then tries again", async () => {
    const clock = clockAt('2026-11-22T15:00:00.000Z');
    // The account's own line takes the document being drawn and no more (PDF_QUEUE_PER_ACCOUNT 0).
    const documents = new DocumentPool(
      documentSettings({ PDF_THREADS: '1', PDF_QUEUE_PER_ACCOUNT: '0' }),
      new URL('../../src/documentWorker.ts', import.meta.url),
    );
    const ports = withRenderer('pooled_doc', async (deps, mail) => ({
      filename: 'doc.pdf',
      contentType: 'application/pdf',
      content: await deps.documents!.render({ accountId: mail.accountId, customer: null }, async () => ({
        kind: 'no-such-drawing',
        model: {},
      })),
    }));
    await queueMail(storage.db, { clock, secrets }, accountId, {
      to: 'g@x.test',
      subject: 'busy documents',
      text: 'x',
      attachment: { kind: 'pooled_doc', ref: '1' },
    });
    const deliver = () =>
      deliverDueMail({
        ports,
        db: storage.db,
        wallClock: systemClock,
        secrets,
        from: 'billing@x.test',
        log,
        clock,
        documents,
        transport: { send: async () => {} },
      });
    try {
      const drawing = documents.render({ accountId, customer: null }, async () => ({
        kind: 'test-blocker',
        model: {},
      }));
      await deliver();
      expect(await statusOf('busy documents')).toMatchObject({ status: 'pending', attempts: 0 });
      expect((await statusOf('busy documents'))!.lastError).toMatch(/documents being drawn or waiting/);
      await drawing.catch(() => undefined);
      // Tried again 30 seconds later: this time the drawing itself fails, and that attempt counts.
      await deliver();
      expect((await statusOf('busy documents'))!.attempts).toBe(0);
      clock.set('2026-11-22T15:00:30.000Z');
      await deliver();
      expect(await statusOf('busy documents')).toMatchObject({ status: 'pending', attempts: 1 });
      expect((await statusOf('busy documents'))!.lastError).toMatch(/no drawing for documents of kind/);
    } finally {
      await documents.close();
    }
  });
});
