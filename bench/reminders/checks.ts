/** The reminder benchmark's check of what the day's pass did, before any figure is printed. */
import type { Db } from '../../src/storage/database.ts';
import { problemList } from '../common.ts';
import type { Seeded } from './population.ts';
import { FLOOR_AT, PAYMENT_INSTRUCTIONS, PUBLIC_URL, REMIND_AT, REMIND_DATE, SELLER_NAME } from './shared.ts';

/** Problems beyond this many are counted, not listed. */
const LISTED = 20;

/** What the two passes reported: the reminders each sent. */
export interface PassesSent {
  first: number;
  second: number;
}

type Mail = { recipient: string; cc: string | null; subject: string; created_at: string; has_html: boolean };

/** The e-mails the passes queued (the seeding's are earlier, the floor's later), by recipient. */
async function remindersByRecipient(db: Db, accountId: number): Promise<Map<string, Mail[]>> {
  const rows = await db
    .selectFrom('mail_outbox')
    .select(['recipient', 'cc', 'subject', 'created_at', 'status'])
    .select((eb) => eb('html_sealed', 'is not', null).as('has_html'))
    .where('account_id', '=', accountId)
    .where('created_at', '>', `${REMIND_DATE}T08:59:59.999Z`)
    .where('created_at', '<', FLOOR_AT)
    .execute();
  const byRecipient = new Map<string, Mail[]>();
  for (const row of rows) {
    const mail = { ...row, has_html: Boolean(row.has_html) };
    byRecipient.set(row.recipient, [...(byRecipient.get(row.recipient) ?? []), mail]);
  }
  return byRecipient;
}

/** The `invoice.payment_reminder` events of the account, by invoice id. */
async function reminderEvents(db: Db, accountId: number): Promise<Map<number, string[]>> {
  const rows = await db
    .selectFrom('events')
    .select(['resource_id', 'occurred_at'])
    .where('account_id', '=', accountId)
    .where('type', '=', 'invoice.payment_reminder')
    .execute();
  const byInvoice = new Map<number, string[]>();
  for (const row of rows) {
    const id = Number(row.resource_id);
    byInvoice.set(id, [...(byInvoice.get(id) ?? []), row.occurred_at]);
  }
  return byInvoice;
}

/**
 * Every invoice reminded once, on the day of the schedule it is past due by: one `invoice_reminders` row (its day
 * offset, sent on REMIND_DATE), one `invoice.payment_reminder` event at the pass's instant, and one queued e-mail
 * per recipient (its customer's Email with its EmailCC, its contact's), saying it is overdue, how to pay and where;
 * the second pass of the day sent nothing (nothing more was written: the counts are still one).
 */
export async function verify(db: Db, seeded: Seeded, sent: PassesSent): Promise<number> {
  const { problem, expect, failIfAny } = problemList(LISTED);
  const n = seeded.invoices.length;
  expect('reminders sent by the pass', sent.first, n);
  expect('reminders sent by the second pass of the day', sent.second, 0);

  const reminderRows = await db
    .selectFrom('invoice_reminders')
    .select(['invoice_id', 'day_offset', 'sent_on'])
    .where('account_id', '=', seeded.accountId)
    .execute();
  expect('invoice_reminders rows', reminderRows.length, n);
  const rowsByInvoice = new Map<number, (typeof reminderRows)[number][]>();
  for (const row of reminderRows) {
    rowsByInvoice.set(row.invoice_id, [...(rowsByInvoice.get(row.invoice_id) ?? []), row]);
  }
  const events = await reminderEvents(db, seeded.accountId);
  const mails = await remindersByRecipient(db, seeded.accountId);
  let expectedMails = 0;

  for (const invoice of seeded.invoices) {
    const at = `invoice ${invoice.id}`;
    const rows = rowsByInvoice.get(invoice.id) ?? [];
    expect(`${at} reminder rows`, rows.length, 1);
    if (rows[0]) {
      expect(`${at} reminder day`, Number(rows[0].day_offset), invoice.daysPastDue);
      expect(`${at} reminder sent on`, rows[0].sent_on, REMIND_DATE);
    }
    const invoiceEvents = events.get(invoice.id) ?? [];
    expect(`${at} invoice.payment_reminder events`, invoiceEvents.length, 1);
    if (invoiceEvents[0] !== undefined) expect(`${at} event time`, invoiceEvents[0], REMIND_AT);
    for (const recipient of invoice.recipients) {
      expectedMails += 1;
      const theirs = mails.get(recipient.to) ?? [];
      expect(`${at} e-mails to ${recipient.to}`, theirs.length, 1);
      const mail = theirs[0];
      if (!mail) continue;
      expect(`${at} e-mail to ${recipient.to} queued at`, mail.created_at, REMIND_AT);
      expect(`${at} e-mail to ${recipient.to} cc`, mail.cc, recipient.cc);
      expect(
        `${at} e-mail subject`,
        mail.subject,
        `Invoice ${invoice.invoiceNum} from ${SELLER_NAME} is overdue`,
      );
      if (!mail.has_html) problem(`${at} e-mail to ${recipient.to}: no HTML alternative`);
    }
  }
  const allMails = [...mails.values()].reduce((total, list) => total + list.length, 0);
  expect('e-mails queued by the passes', allMails, expectedMails);
  failIfAny('the reminder pass reminded wrong');
  return expectedMails;
}

/**
 * The words of a sample of the reminders (opened: the bodies are sealed): overdue since the due date by the right
 * number of days, the seller's payment instructions, and a pay link under PUBLIC_URL.
 */
export async function verifyWords(
  db: Db,
  seeded: Seeded,
  open: (sealed: string) => string,
  sample = 200,
): Promise<void> {
  const { problem, failIfAny } = problemList(LISTED);
  const step = Math.max(1, Math.floor(seeded.invoices.length / sample));
  for (let i = 0; i < seeded.invoices.length; i += step) {
    const invoice = seeded.invoices[i]!;
    const row = await db
      .selectFrom('mail_outbox')
      .select(['body_sealed'])
      .where('account_id', '=', seeded.accountId)
      .where('recipient', '=', invoice.recipients[0]!.to)
      .where('created_at', '=', REMIND_AT)
      .executeTakeFirst();
    if (!row) {
      problem(`invoice ${invoice.id}: no reminder to ${invoice.recipients[0]!.to}`);
      continue;
    }
    const text = open(row.body_sealed);
    for (const words of [
      `Invoice ${invoice.invoiceNum} is overdue since `,
      `(${invoice.daysPastDue} days)`,
      `How to pay: ${PAYMENT_INSTRUCTIONS}`,
      `${PUBLIC_URL}/pay/`,
    ]) {
      if (!text.includes(words)) problem(`invoice ${invoice.id}: its reminder does not say "${words}"`);
    }
  }
  failIfAny("the reminders' words are wrong");
}

/** The floor queued as many e-mails as the pass, at its own instant. */
export async function verifyFloor(
  db: Db,
  accountId: number,
  expected: number,
  queued: number,
): Promise<void> {
  const { expect, failIfAny } = problemList(LISTED);
  const row = await db
    .selectFrom('mail_outbox')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('created_at', '=', FLOOR_AT)
    .executeTakeFirstOrThrow();
  expect('e-mails the floor queued (its count)', queued, expected);
  expect('e-mails the floor queued (in the outbox)', Number(row.n), expected);
  failIfAny('the floor queued wrong');
}
