import { today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { addDays, daysBetween } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import {
  DEFAULT_REMINDER_DAYS,
  documentSeller,
  getSellerDetails,
  sellerLines,
  mailSenderName,
} from '../auth/index.ts';
import { emitEvents } from '../events/index.ts';
import {
  dueDatesOfUnpaidInvoices,
  invoicesByIds,
  unpaidInvoicesDueOn,
  withEffectiveCollection,
} from '../invoicing/index.ts';
import type { Invoice } from '../invoicing/index.ts';
import { withLockedCustomer } from '../ledger/index.ts';
import type { MessageBlock } from '../mail/index.ts';
import { messageBody } from '../mail/index.ts';
import { payLinkFor, queueCustomerMails } from './customerMails.ts';
import type { MailRecipient } from './customerMails.ts';
import { amountText, longDate } from './noticeWords.ts';
import { invoicesInFlight } from './collection.service.ts';
import type { CollectionOptions } from './collection.service.ts';
import * as repo from './reminder.repository.ts';
import { invoicesWithSalesInFlight } from './salesInFlightOf.ts';
import { queueStaffMail } from './staffNotices.ts';

/**
 * Reminders of the invoices the customer pays itself (docs/gateways.md, "The collection loop"): on each day of the
 * account's InvoiceReminderDays (relative to the due date), once per invoice and day, queued by the daily bill run.
 * A day the run did not reach (a test clock's jump) is not made up: only the latest day due is sent. Reminders are
 * for invoices as they fall due, not for a backlog found later (reminders switched on, old invoices imported, a
 * catch-up run billing months at once): an invoice whose schedule ended more than BACKLOG_DAYS before is not
 * reminded.
 */

/** How late the schedule's last reminder may still go when the runs missed its day. */
const BACKLOG_DAYS = 7;

/** Invoices read in one page of the daily pass. */
const PAGE = 200;
/** Collection methods that leave paying to the customer (the rest collect on their own while they can). */
const AUTOMATIC = new Set(['credit_card', 'debit_order']);

/** Sends the reminders due today for the account; how many invoices were reminded (their events count too). */
export async function sendDueReminders(
  ctx: ServiceContext,
  options: Pick<CollectionOptions, 'catchingUpTo'> = {},
): Promise<{ sent: number }> {
  const on = today(ctx);
  if (options.catchingUpTo !== undefined && options.catchingUpTo > on) return { sent: 0 };
  const days = [...(ctx.account.collectionLoop.reminderDays ?? DEFAULT_REMINDER_DAYS)].sort((a, b) => a - b);
  const first = days[0];
  const last = days[days.length - 1];
  if (first === undefined || last === undefined) return { sent: 0 };
  let sent = 0;
  // Due day by due day: a day's invoices are one range of an index, and all at the same day of the schedule.
  const window = { from: addDays(on, -(last + BACKLOG_DAYS)), to: addDays(on, -first) };
  for (const dueDate of await dueDatesOfUnpaidInvoices(ctx, window)) {
    // Never undefined: every due day of the range is at least `first` days before today.
    const offset = latestDayDue(days, daysBetween(dueDate, on))!;
    // The invoice's own e-mail tells it on its issue day: a reminder day not after it is not sent.
    const remindOn = addDays(dueDate, offset);
    for (let afterId = 0; ;) {
      const page = await unpaidInvoicesDueOn(ctx, dueDate, afterId, PAGE);
      if (page.length === 0) break;
      afterId = page[page.length - 1]!.id;
      const issuedBefore = page
        .filter((invoice) => invoice.invoiceDate < remindOn)
        .map((invoice) => invoice.id);
      sent += await remindPage(ctx, issuedBefore, offset, on, offset === last);
    }
  }
  return { sent };
}

/**
 * Whether the customer is the one to pay the invoice: a manual method (eft, cash, cheque, none), or automatic
 * collection that stopped (its tries ran out or need the customer, or the settings cannot collect it).
 */
function customerPays(invoice: Invoice): boolean {
  if (invoice.collectionMethod === null || !AUTOMATIC.has(invoice.collectionMethod)) return true;
  return invoice.nextTryDate === null && (invoice.numTries > 0 || invoice.collectionProblem !== null);
}

/** The latest day of the schedule on or before `daysSinceDue`, if any. */
function latestDayDue(days: readonly number[], daysSinceDue: number): number | undefined {
  return days.filter((day) => day <= daysSinceDue).pop();
}

/**
 * Reminds these invoices of the schedule's day `offset`, but those reminded of it or of a later day already, decided
 * before the rest are read whole (a month of a test clock's days over 20,000 invoices read every invoice of the
 * window each day: docs/benchmarks.md, "A test-clock advance"). How many were reminded.
 */
async function remindPage(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
  offset: number,
  on: PlainDate,
  isLast: boolean,
): Promise<number> {
  const done = await repo.listInvoicesRemindedFrom(ctx.db, ctx.account.id, invoiceIds, offset);
  const ids = invoiceIds.filter((id) => !done.has(id));
  if (ids.length === 0) return 0;
  const invoices = await invoicesByIds(ctx, ids);
  const resolved = await withEffectiveCollection(ctx, [...invoices.values()], new Set());
  let sent = 0;
  for (const invoice of resolved) {
    if (!customerPays(invoice)) continue;
    try {
      if (await remindInvoice(ctx, invoice, offset, on, isLast)) sent += 1;
    } catch (error) {
      // One invoice must not hold back the others; the next run tries it again.
      ctx.log.error({ err: error, invoiceId: invoice.id }, 'an invoice reminder failed');
    }
  }
  return sent;
}

/**
 * One reminder of the invoice as read for the day's pass (`invoice`), in its own transaction under the customer's
 * lock, which payments and collection take too (ledger's withLockedCustomer): the invoice is read again there and
 * nothing goes when it is settled or being collected by now (paid, a debit pending, a charge waiting for its
 * answer, a try planned). Then it is claimed (the unique key makes it once), its event emitted, and the e-mail
 * queued when the account sends reminders. The schedule's last reminder of an invoice past due also tells the
 * staff (tellStaffOfLastReminder). False when nothing was sent.
 */
export async function remindInvoice(
  ctx: ServiceContext,
  invoice: Invoice,
  offset: number,
  on: string,
  isLast = false,
): Promise<boolean> {
  const invoiceId = invoice.id!;
  const sentOffsets = await repo.listSentOffsets(ctx.db, ctx.account.id, invoiceId);
  // A later day's reminder went already (the schedule changed since): an earlier one is not sent after it.
  if (sentOffsets.some((sent) => sent >= offset)) return false;
  return withLockedCustomer(ctx, invoice.customer.id, async (tctx) => {
    const now = await stillToRemind(tctx, invoiceId);
    if (!now) return false;
    const claimed = await repo.claimReminder(tctx.db, {
      accountId: tctx.account.id,
      invoiceId,
      dayOffset: offset,
      sentOn: on,
      createdAt: tctx.clock.now().toISOString(),
    });
    if (!claimed) return false;
    await emitEvents(tctx, [{ type: 'invoice.payment_reminder', ref: { type: 'invoice', id: invoiceId } }]);
    const firstOverdue = daysBetween(now.dueDate, on) > 0 && sentOffsets.every((sent) => sent <= 0);
    const staffTold =
      firstOverdue && isSmallLeftover(tctx, now)
        ? await tellStaffOfSmallLeftover(tctx, now, on)
        : isLast && (await tellStaffOfLastReminder(tctx, now, on));
    if (!tctx.account.collectionLoop.sendReminders) {
      if (staffTold) tctx.mailQueued();
      return true;
    }
    const content = await reminderContent(tctx, now, on);
    const queued = await queueCustomerMails(tctx, now.customer.id, (to) => reminderMail(tctx, content, to));
    if (queued || staffTold) tctx.mailQueued();
    return true;
  });
}

/** Whether what the invoice still owes is below the account's SmallInvoiceAmount (in its currency). */
function isSmallLeftover(ctx: ServiceContext, invoice: Invoice): boolean {
  const below = ctx.account.collectionLoop.smallInvoiceMinor;
  return (
    below !== null &&
    invoice.currencyCode === ctx.account.currencyCode &&
    invoice.balances.balanceMinor < below
  );
}

/**
 * A small leftover past due (docs/gateways.md, "Small leftovers"): the staff are told with its first overdue
 * reminder, rather than after a month of reminders for an amount a person settles faster (writing it off, or adding
 * it to the customer's next invoice). True when the notice was queued.
 */
async function tellStaffOfSmallLeftover(ctx: ServiceContext, invoice: Invoice, on: string): Promise<boolean> {
  const late = daysBetween(invoice.dueDate, on);
  const number = invoice.invoiceNum ?? invoice.id!;
  const customer = [invoice.customer.name, invoice.customer.lastName].filter(Boolean).join(' ');
  const owed = amountText(invoice.currencyCode, invoice.balances.balanceMinor);
  const below = amountText(ctx.account.currencyCode, ctx.account.collectionLoop.smallInvoiceMinor!);
  return queueStaffMail(ctx, {
    subject: `Invoice ${number} is past due with a small amount left: ${owed}`,
    blocks: [
      {
        paragraph: `Invoice ${number} of ${customer} (customer ${invoice.customer.id}) is overdue since ${longDate(invoice.dueDate)} (${late} ${late === 1 ? 'day' : 'days'}): ${owed} is still owed, less than the ${below} the account counts as a small leftover.`,
        strong: true,
      },
      {
        paragraph:
          'The service keeps reminding the customer on the account’s reminder days. To settle it sooner, write it ' +
          'off with an adjustment, or add it to the customer’s next invoice as a line and credit this one.',
      },
    ],
  });
}

/**
 * The staff are told of an invoice left past due once its reminders end (docs/gateways.md, "The collection loop"):
 * with the schedule's last reminder, claimed once like it, when that day is after the due date (a schedule ending
 * on or before it has no such day). Whether or not the account e-mails reminders, the service does nothing more
 * for the invoice on its own. True when the notice was queued.
 */
async function tellStaffOfLastReminder(ctx: ServiceContext, invoice: Invoice, on: string): Promise<boolean> {
  const late = daysBetween(invoice.dueDate, on);
  if (late <= 0) return false;
  const number = invoice.invoiceNum ?? invoice.id!;
  const customer = [invoice.customer.name, invoice.customer.lastName].filter(Boolean).join(' ');
  const owed = amountText(invoice.currencyCode, invoice.balances.balanceMinor);
  return queueStaffMail(ctx, {
    subject: `Invoice ${number} is past due and its reminders have ended`,
    blocks: [
      {
        paragraph: `Invoice ${number} of ${customer} (customer ${invoice.customer.id}) is overdue since ${longDate(invoice.dueDate)} (${late} ${late === 1 ? 'day' : 'days'}): ${owed} is still owed.`,
        strong: true,
      },
      {
        paragraph: ctx.account.collectionLoop.sendReminders
          ? 'Its last reminder went to the customer today. The service sends no more reminders and will not collect it on its own.'
          : 'Its reminders have ended (the account does not e-mail them to customers). The service will not collect it on its own.',
      },
      {
        paragraph:
          'Contact the customer, or record what settles it: a payment, a credit note, or an adjustment writing it off.',
      },
    ],
  });
}

/** The invoice as it is now, under the customer's lock, when it is still the customer's to pay; else undefined. */
async function stillToRemind(ctx: ServiceContext, invoiceId: number): Promise<Invoice | undefined> {
  const invoice = (await invoicesByIds(ctx, [invoiceId])).get(invoiceId);
  if (!invoice || invoice.isDraft || invoice.isCancelled) return undefined;
  if (invoice.balances.balanceMinor <= 0 || invoice.money.paidPendingMinor > 0) return undefined;
  const charging = new Set([
    ...(await invoicesInFlight(ctx, [invoiceId])),
    ...(await invoicesWithSalesInFlight(ctx, [invoiceId])),
  ]);
  if (charging.size > 0) return undefined;
  const [resolved] = await withEffectiveCollection(ctx, [invoice], charging);
  return resolved && customerPays(resolved) ? resolved : undefined;
}

interface ReminderContent {
  invoiceId: number;
  subject: string;
  first: string;
  instructions: string | null;
  signature: string[];
}

/**
 * The reminder's words, by the day it goes (not its schedule's day, which a test clock's jump may have passed):
 * "due on …" before the due date, "due today" on it, "overdue since … (N days)" after. An invoice partly paid (by
 * credit, say: docs/credits.md, "Consumption order") is named by its total and says what is still owed.
 */
async function reminderContent(ctx: ServiceContext, invoice: Invoice, on: string): Promise<ReminderContent> {
  const seller = await documentSeller(ctx);
  const signature = [mailSenderName(seller), ...sellerLines(seller)];
  const number = invoice.invoiceNum ?? invoice.id!;
  const owed = amountText(invoice.currencyCode, invoice.balances.balanceMinor);
  const total = amountText(invoice.currencyCode, invoice.money.totalMinor);
  const stillOwed = invoice.balances.balanceMinor < invoice.money.totalMinor ? `: ${owed} is still owed` : '';
  const of = stillOwed === '' ? owed : total;
  const due = longDate(invoice.dueDate);
  const late = daysBetween(invoice.dueDate, on);
  const [subject, first] =
    late < 0
      ? [
          `Invoice ${number} from ${signature[0]} is due on ${due}`,
          `Invoice ${number} of ${of} is due on ${due}${stillOwed}.`,
        ]
      : late === 0
        ? [
            `Invoice ${number} from ${signature[0]} is due today`,
            `Invoice ${number} of ${of} is due today, ${due}${stillOwed}.`,
          ]
        : [
            `Invoice ${number} from ${signature[0]} is overdue`,
            `Invoice ${number} is overdue since ${due} (${late} ${late === 1 ? 'day' : 'days'}): ${owed} is still owed.`,
          ];
  const manualTransfer = invoice.collectionMethod === null || invoice.collectionMethod === 'eft';
  const instructions = manualTransfer ? (await getSellerDetails(ctx)).paymentInstructions : null;
  return { invoiceId: invoice.id!, subject, first, instructions, signature };
}

function reminderMail(ctx: ServiceContext, content: ReminderContent, to: MailRecipient) {
  const link = payLinkFor(ctx, to, content.invoiceId);
  const blocks: MessageBlock[] = [
    { paragraph: content.first, strong: true },
    ...(content.instructions ? [{ paragraph: `How to pay: ${content.instructions}` }] : []),
    ...(link ? [{ link, text: 'Pay the invoice online' }] : []),
    { paragraph: 'If you have paid it already, thank you, and please ignore this reminder.' },
  ];
  return {
    subject: content.subject,
    ...messageBody({
      title: content.subject,
      greeting: `Dear ${to.name},`,
      blocks,
      signature: content.signature,
    }),
  };
}
