import { describe, expect, it } from 'vitest';
import { remindInvoice } from '../../src/modules/collections/index.ts';
import { invoicesByIds } from '../../src/modules/invoicing/index.ts';
import { ok } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { useTestService } from '../helpers/testService.ts';
import {
  advance,
  deliveredTo,
  eventTypes,
  expectSameContent,
  noticeSetup,
  plusDays,
} from './notices.fixtures.ts';

// Reminders of the invoices customers pay themselves (docs/gateways.md, "The collection loop"): one on each day of
// the account's InvoiceReminderDays, queued by the daily bill run that the test clock drives, once per invoice and
// day however often the run repeats, stopping once the invoice is paid; a jump over several days sends the latest.

const t = useTestService({ smtp: true });
const { smtp } = t;

const longDate = (date: string) => {
  const [y, m, d] = date.split('-').map(Number);
  const month = new Date(Date.UTC(y!, m! - 1, d!)).toLocaleString('en-GB', {
    month: 'long',
    timeZone: 'UTC',
  });
  return `${d} ${month} ${y}`;
};

describe('reminders of invoices the customer pays', () => {
  it('reminds an EFT customer before, on and after the due date, then stops once it pays', async () => {
    const s = await noticeSetup(t, {
      dueInDays: 5,
      settings: {
        InvoiceReminderDays: [-3, 0, 7, 14],
        PaymentInstructions: 'Pay into FNB 62000000001, ref INV',
      },
    });
    const due = plusDays(s.today, 5);
    // Before the first day of the schedule nothing goes.
    await advance(s.account, `${plusDays(due, -4)}T12:00:00Z`);
    expect(await deliveredTo(t, smtp, s.account.accountId, s.email)).toEqual([]);
    await advance(s.account, `${plusDays(due, -3)}T12:00:00Z`);
    // The same day's run again sends nothing more.
    await advance(s.account, `${plusDays(due, -3)}T18:00:00Z`);
    await advance(s.account, `${due}T12:00:00Z`);
    await advance(s.account, `${plusDays(due, 7)}T12:00:00Z`);
    const mails = await deliveredTo(t, smtp, s.account.accountId, s.email);
    expect(mails.map((mail) => mail.subject)).toEqual([
      `Invoice ${s.invoiceNum} from Coffee Co Ltd is due on ${longDate(due)}`,
      `Invoice ${s.invoiceNum} from Coffee Co Ltd is due today`,
      `Invoice ${s.invoiceNum} from Coffee Co Ltd is overdue`,
    ]);
    expect(mails[0]!.text).toContain(`Invoice ${s.invoiceNum} of USD 100.00 is due on ${longDate(due)}.`);
    expect(mails[1]!.text).toContain(`Invoice ${s.invoiceNum} of USD 100.00 is due today, ${longDate(due)}.`);
    expect(mails[2]!.text).toContain(
      `Invoice ${s.invoiceNum} is overdue since ${longDate(due)} (7 days): USD 100.00 is still owed.`,
    );
    for (const mail of mails) {
      expect(mail.text).toContain('How to pay: Pay into FNB 62000000001, ref INV');
      expect(mail.text).toMatch(/\/pay\/[A-Za-z0-9_-]+\./);
      expectSameContent(mail);
    }
    expect(
      (await eventTypes(s.account, s.invoiceId)).filter((type) => type === 'invoice.payment_reminder'),
    ).toHaveLength(3);

    // Paid: the day 14 reminder never comes.
    await ok(s.account, 'POST', '/v1/payments', {
      customerID: s.customerId,
      Amount: 100,
      CurrencyCode: 'USD',
      Date: plusDays(due, 8),
      Method: 'eft',
      Allocations: [{ invoiceID: s.invoiceId, amountApplied: 100 }],
    });
    await advance(s.account, `${plusDays(due, 20)}T12:00:00Z`);
    expect(await deliveredTo(t, smtp, s.account.accountId, s.email)).toHaveLength(3);
    expect(
      (await eventTypes(s.account, s.invoiceId)).filter((type) => type === 'invoice.payment_reminder'),
    ).toHaveLength(3);
  });

  it('names a partly paid invoice by its total and says what it still owes', async () => {
    const s = await noticeSetup(t, { dueInDays: 3, settings: { InvoiceReminderDays: [-1, 0, 7] } });
    const due = plusDays(s.today, 3);
    await ok(s.account, 'POST', '/v1/payments', {
      customerID: s.customerId,
      Amount: 40,
      CurrencyCode: 'USD',
      Date: s.today,
      Method: 'eft',
      Allocations: [{ invoiceID: s.invoiceId, amountApplied: 40 }],
    });
    await advance(s.account, `${plusDays(due, -1)}T12:00:00Z`);
    await advance(s.account, `${due}T12:00:00Z`);
    await advance(s.account, `${plusDays(due, 7)}T12:00:00Z`);
    // 100.00 less the 40.00 paid: 60.00 still owed, on each day of the schedule.
    const mails = await deliveredTo(t, smtp, s.account.accountId, s.email);
    expect(mails.map((mail) => mail.text.match(/Invoice \d+ (of|is) [^\n]*/)?.[0])).toEqual([
      `Invoice ${s.invoiceNum} of USD 100.00 is due on ${longDate(due)}: USD 60.00 is still owed.`,
      `Invoice ${s.invoiceNum} of USD 100.00 is due today, ${longDate(due)}: USD 60.00 is still owed.`,
      `Invoice ${s.invoiceNum} is overdue since ${longDate(due)} (7 days): USD 60.00 is still owed.`,
    ]);
  });

  it('sends nothing for an invoice paid after the day’s pass read it: it is read again under the lock', async () => {
    const s = await noticeSetup(t, { settings: { InvoiceReminderDays: [7] } });
    const other = await ok(s.account, 'POST', '/v1/invoices', {
      customerID: s.customerId,
      InvoiceDate: s.today,
      DueDate: s.today,
      CollectionMethod: 'eft',
      Charges: [{ Descrip: 'Filters', Qty: 1, UnitCostEx: 20 }],
    });
    const ctx = await accountContext(t, s.account.accountId);
    const on = plusDays(s.today, 7);
    // As the pass read them, before the customer paid the first.
    const stale = await invoicesByIds(ctx, [s.invoiceId, other.invoiceID]);
    await ok(s.account, 'POST', '/v1/payments', {
      customerID: s.customerId,
      Amount: 100,
      CurrencyCode: 'USD',
      Date: plusDays(s.today, 6),
      Method: 'eft',
      Allocations: [{ invoiceID: s.invoiceId, amountApplied: 100 }],
    });
    expect(await remindInvoice(ctx, stale.get(s.invoiceId)!, 7, on)).toBe(false);
    // The one still owed is reminded from the same read.
    expect(await remindInvoice(ctx, stale.get(other.invoiceID)!, 7, on)).toBe(true);
    const mails = await deliveredTo(t, smtp, s.account.accountId, s.email);
    expect(mails.map((mail) => mail.subject)).toEqual([
      `Invoice ${other.invoiceNum} from Coffee Co Ltd is overdue`,
    ]);
    expect(await eventTypes(s.account, s.invoiceId)).not.toContain('invoice.payment_reminder');
    expect(await eventTypes(s.account, other.invoiceID)).toContain('invoice.payment_reminder');
  });

  it('sends no reminder on the day the invoice is issued: its own e-mail tells it', async () => {
    const s = await noticeSetup(t, { settings: { InvoiceReminderDays: [-3, 0] } });
    await advance(s.account, `${s.today}T12:00:00Z`);
    expect(await deliveredTo(t, smtp, s.account.accountId, s.email)).toEqual([]);
    expect(await eventTypes(s.account, s.invoiceId)).not.toContain('invoice.payment_reminder');
  });

  it('sends only the latest reminder due after a jump of a month, not one for each day passed', async () => {
    const s = await noticeSetup(t, { settings: { InvoiceReminderDays: [-3, 0, 7, 14, 30] } });
    await advance(s.account, `${plusDays(s.today, 31)}T12:00:00Z`);
    await advance(s.account, `${plusDays(s.today, 45)}T12:00:00Z`);
    const mails = await deliveredTo(t, smtp, s.account.accountId, s.email);
    expect(mails.map((mail) => mail.subject)).toEqual([
      `Invoice ${s.invoiceNum} from Coffee Co Ltd is overdue`,
    ]);
    expect(mails[0]!.text).toContain('(31 days)');
  });

  it('reminds no backlog: an invoice whose schedule ended more than 7 days before the run gets none', async () => {
    // Last day 30: on day 37 the day-30 reminder still goes (the runs missed it); on day 38 it is a backlog.
    const late = await noticeSetup(t, { settings: { InvoiceReminderDays: [0, 30] } });
    await advance(late.account, `${plusDays(late.today, 37)}T12:00:00Z`);
    expect(await deliveredTo(t, smtp, late.account.accountId, late.email)).toHaveLength(1);
    const backlog = await noticeSetup(t, { settings: { InvoiceReminderDays: [0, 30] } });
    await advance(backlog.account, `${plusDays(backlog.today, 38)}T12:00:00Z`);
    expect(await deliveredTo(t, smtp, backlog.account.accountId, backlog.email)).toEqual([]);
    expect(await eventTypes(backlog.account, backlog.invoiceId)).not.toContain('invoice.payment_reminder');
  });

  it('tells the staff once of an invoice left past due when its last reminder goes, sent to customers or not', async () => {
    for (const sendReminders of [true, false]) {
      const staff = `books.${sendReminders}@coffee.example`;
      const s = await noticeSetup(t, {
        dueInDays: 1,
        settings: {
          SendInvoiceReminders: sendReminders,
          InvoiceReminderDays: [0, 7],
          StaffEmail: staff,
        },
      });
      const due = plusDays(s.today, 1);
      await advance(s.account, `${due}T12:00:00Z`);
      // The reminder of the due date is not the last: the staff hear nothing yet.
      expect(await deliveredTo(t, smtp, s.account.accountId, staff)).toEqual([]);
      await advance(s.account, `${plusDays(due, 7)}T12:00:00Z`);
      await advance(s.account, `${plusDays(due, 8)}T12:00:00Z`);
      const [notice, ...more] = await deliveredTo(t, smtp, s.account.accountId, staff);
      // Before: the invoice stayed past due for good, and the staff were never told.
      expect(more).toEqual([]);
      expect(notice!.subject).toBe(`Invoice ${s.invoiceNum} is past due and its reminders have ended`);
      expect(notice!.text).toContain(
        `Invoice ${s.invoiceNum} of Ada Lovelace (customer ${s.customerId}) is overdue since ${longDate(due)} (7 days): USD 100.00 is still owed.`,
      );
      expect(notice!.text).toContain(
        sendReminders
          ? 'Its last reminder went to the customer today.'
          : 'Its reminders have ended (the account does not e-mail them to customers).',
      );
      expectSameContent(notice!);
    }
  });

  it('tells the staff of a small leftover with its first overdue reminder, then when the reminders end', async () => {
    const staff = 'leftovers@coffee.example';
    const s = await noticeSetup(t, {
      dueInDays: 1,
      settings: { InvoiceReminderDays: [0, 7, 14], StaffEmail: staff, SmallInvoiceAmount: 5 },
    });
    const due = plusDays(s.today, 1);
    // 100.00 less 97.70 paid: 2.30 left, below the account's 5.00.
    await ok(s.account, 'POST', '/v1/payments', {
      customerID: s.customerId,
      Amount: 97.7,
      CurrencyCode: 'USD',
      Date: s.today,
      Method: 'eft',
      Allocations: [{ invoiceID: s.invoiceId, amountApplied: 97.7 }],
    });
    await advance(s.account, `${due}T12:00:00Z`);
    expect(await deliveredTo(t, smtp, s.account.accountId, staff)).toEqual([]);
    await advance(s.account, `${plusDays(due, 7)}T12:00:00Z`);
    const [leftover, ...none] = await deliveredTo(t, smtp, s.account.accountId, staff);
    // Before: nobody heard of it until it stayed past due for good.
    expect(none).toEqual([]);
    expect(leftover!.subject).toBe(`Invoice ${s.invoiceNum} is past due with a small amount left: USD 2.30`);
    expect(leftover!.text).toContain(
      `USD 2.30 is still owed, less than the USD 5.00 the account counts as a small leftover.`,
    );
    await advance(s.account, `${plusDays(due, 14)}T12:00:00Z`);
    expect((await deliveredTo(t, smtp, s.account.accountId, staff)).map((m) => m.subject)).toEqual([
      `Invoice ${s.invoiceNum} is past due with a small amount left: USD 2.30`,
      `Invoice ${s.invoiceNum} is past due and its reminders have ended`,
    ]);
  });

  it('tells the staff nothing when the last reminder falls before the due date', async () => {
    const s = await noticeSetup(t, {
      dueInDays: 5,
      settings: { InvoiceReminderDays: [-3], StaffEmail: 'early@coffee.example' },
    });
    await advance(s.account, `${plusDays(s.today, 2)}T12:00:00Z`);
    expect(await deliveredTo(t, smtp, s.account.accountId, s.email)).toHaveLength(1);
    expect(await deliveredTo(t, smtp, s.account.accountId, 'early@coffee.example')).toEqual([]);
  });

  it('sends no reminder when the account turns them off, and still emits each event', async () => {
    const s = await noticeSetup(t, {
      dueInDays: 1,
      settings: { SendInvoiceReminders: false, InvoiceReminderDays: [0, 7] },
    });
    await advance(s.account, `${plusDays(s.today, 1)}T12:00:00Z`);
    await advance(s.account, `${plusDays(s.today, 8)}T12:00:00Z`);
    expect(await deliveredTo(t, smtp, s.account.accountId, s.email)).toEqual([]);
    expect(
      (await eventTypes(s.account, s.invoiceId)).filter((type) => type === 'invoice.payment_reminder'),
    ).toHaveLength(2);
  });

  it('reminds a card invoice once its collection stopped, and never one that is still being collected', async () => {
    const auth = await noticeSetup(t, {
      card: '4000002500003155',
      settings: { SendInvoiceReminders: true, SendPaymentFailedEmails: false, InvoiceReminderDays: [1] },
    });
    await advance(auth.account, `${auth.today}T12:00:00Z`);
    await advance(auth.account, `${plusDays(auth.today, 1)}T12:00:00Z`);
    const mails = await deliveredTo(t, smtp, auth.account.accountId, auth.email);
    expect(mails.map((mail) => mail.subject)).toEqual([
      `Invoice ${auth.invoiceNum} from Coffee Co Ltd is overdue`,
    ]);

    const retrying = await noticeSetup(t, {
      card: '4000000000009995',
      settings: { SendInvoiceReminders: true, SendPaymentFailedEmails: false, InvoiceReminderDays: [1] },
    });
    await advance(retrying.account, `${plusDays(retrying.today, 1)}T12:00:00Z`);
    // Its retries are planned: nothing to remind.
    expect(await deliveredTo(t, smtp, retrying.account.accountId, retrying.email)).toEqual([]);
  });
});
