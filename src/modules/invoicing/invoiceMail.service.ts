import { inTransaction, nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { mailSenderNameOf } from '../auth/index.ts';
import { customersByIds, getCustomer } from '../customers/index.ts';
import type { Customer } from '../customers/index.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import { queueMail, queueMails } from '../mail/index.ts';
import type { OutgoingMail } from '../mail/index.ts';
import * as repo from './invoice.repository.ts';
import { invoicesWithInclusivePrices } from './invoiceMail.repository.ts';
import type { InvoiceRecord } from './invoice.ts';
import { getInvoiceRecord } from './invoiceReads.service.ts';
import { invoiceRef } from './invoicingEvents.ts';
import { automaticCollectionNotes, collectionOfRecord } from './invoiceCollection.service.ts';
import { pendingDebitsOf, pendingDebitWords } from './pendingDebits.ts';
import type { PendingDebit } from './ports.ts';
import { NO_CREDIT_WORDS, creditWordsOf, creditWordsOfInvoices } from './invoiceCredit.ts';
import type { InvoiceCreditWords } from './ports.ts';
import { invoiceBalances } from './invoiceMath.ts';

/** The attachment kind of invoice e-mails; its renderer is registered by this module (see invoicePdf.ts). */
export const INVOICE_PDF_ATTACHMENT = 'invoice_pdf';

interface MailFacts {
  /** The name the account's e-mails come from (auth's mailSenderName). */
  senderName: string;
  customerName: string;
  invoiceNum: number | null;
  currencyCode: string;
  totalMinor: number;
  invoiceDate: PlainDate;
  dueDate: PlainDate;
  /** How the service will collect it, when it will (automaticCollectionNotes). */
  collectionNote: string | undefined;
  /** Some of its prices include tax (docs/pricing.md, "Tax-inclusive prices"). */
  pricesIncludeTax: boolean;
  /** Its payments the bank has not paid yet: still due, to be debited (docs/spec-decisions.md, "Pending debits on documents"). */
  pendingDebits: readonly PendingDebit[];
  /** What already pays it: prepaid credit, and the rest (payments received, credit notes). */
  prepaidCreditMinor: number;
  otherPaidMinor: number;
  /** What is still owed, pending debits included (ActualBalance). */
  owedMinor: number;
  /** It sells prepaid credit (docs/credits.md, "Paid top-ups"). */
  sellsCredit: boolean;
}

/**
 * The message text, as the invoice stands when it is queued (docs/tax.md, "What customers are told"): its Total,
 * and, when something already pays it, what does and what is still owed; an invoice paid in full says so and asks
 * for nothing. The PDF, drawn when the message is delivered, carries the balance then.
 */
function invoiceMailText(facts: MailFacts): { subject: string; text: string } {
  const money = (minor: number) => `${facts.currencyCode} ${minorToDecimalText(minor, facts.currencyCode)}`;
  const what = facts.sellsCredit
    ? `invoice ${facts.invoiceNum} (prepaid credit)`
    : `invoice ${facts.invoiceNum}`;
  const paidBy = [
    ...(facts.prepaidCreditMinor > 0 ? [`${money(facts.prepaidCreditMinor)} from your prepaid credit`] : []),
    ...(facts.otherPaidMinor > 0 ? [`${money(facts.otherPaidMinor)} already received or credited`] : []),
  ].join(' and ');
  const owing: string[] =
    facts.owedMinor <= 0
      ? [`It is paid in full${paidBy ? `: ${paidBy}` : ''}. There is nothing to pay.`]
      : [
          ...(paidBy
            ? [`Already paid: ${paidBy}. Still owed: ${money(facts.owedMinor)}, due on ${facts.dueDate}.`]
            : []),
          ...facts.pendingDebits.map((debit) => `${pendingDebitWords(debit)}: ${money(debit.amountMinor)}.`),
          ...(facts.collectionNote && facts.pendingDebits.length === 0 ? [facts.collectionNote] : []),
        ];
  const figures = paidBy || facts.owedMinor <= 0 ? '' : `, due on ${facts.dueDate}`;
  return {
    subject: `${facts.sellsCredit ? 'Prepaid credit: invoice' : 'Invoice'} ${facts.invoiceNum} from ${facts.senderName}`,
    text: [
      `Dear ${facts.customerName},`,
      '',
      `Please find attached ${what} of ${facts.invoiceDate} for ${money(facts.totalMinor)}${figures}.`,
      ...(facts.pricesIncludeTax ? ['The prices on it include tax.'] : []),
      ...owing,
      '',
      facts.senderName,
    ].join('\n'),
  };
}

function invoiceMail(
  senderName: string,
  customer: Customer,
  invoice: InvoiceRecord,
  collectionNote: string | undefined,
  pricesIncludeTax: boolean,
  pendingDebits: readonly PendingDebit[] = [],
  credit: InvoiceCreditWords = NO_CREDIT_WORDS,
): OutgoingMail {
  const customerName = [customer.name, customer.lastName].filter(Boolean).join(' ');
  const { actualBalanceMinor } = invoiceBalances(invoice);
  return {
    to: customer.email!,
    cc: customer.emailCc,
    ...invoiceMailText({
      senderName,
      customerName,
      invoiceNum: invoice.invoiceNum,
      currencyCode: invoice.currencyCode,
      totalMinor: invoice.totalMinor,
      invoiceDate: invoice.invoiceDate,
      dueDate: invoice.dueDate,
      collectionNote,
      pricesIncludeTax,
      pendingDebits,
      prepaidCreditMinor: credit.prepaidCreditMinor,
      otherPaidMinor: invoice.paidActualMinor + invoice.negativeAdjsMinor - credit.prepaidCreditMinor,
      owedMinor: actualBalanceMinor,
      sellsCredit: credit.sale !== null,
    }),
    attachment: { kind: INVOICE_PDF_ATTACHMENT, ref: String(invoice.id) },
  };
}

/**
 * PUT /v1/invoices/{id}/send: queues the invoice e-mail (with its PDF) to the customer's Email, copied to EmailCC,
 * and sets DateSent. A draft is not sent (it has no number yet), nor a cancelled invoice.
 */
export async function sendInvoice(ctx: ServiceContext, invoiceId: number): Promise<void> {
  const invoice = await getInvoiceRecord(ctx, invoiceId);
  if (invoice.isDraft)
    throw new ConflictError('invoice_draft', `Invoice ${invoiceId} is a draft; finalize it first`);
  if (invoice.isCancelled) throw new ConflictError('invoice_cancelled', `Invoice ${invoiceId} is cancelled`);
  const customer = await getCustomer(ctx, invoice.customerId);
  if (!customer.email) {
    throw ValidationError.field(
      'Customer.Email',
      `customer ${customer.id} has no e-mail address to send the invoice to`,
      'customer_without_email',
    );
  }
  await ctx.db.transaction().execute(async (trx) => {
    const tctx = inTransaction(ctx, trx);
    const ref = invoiceRef(invoiceId);
    await repo.holdInvoice(trx, ctx.account.id, invoiceId);
    const before = await snapshotResource(tctx, ref);
    const [note] = await automaticCollectionNotes(tctx, [collectionOfRecord(invoice, customer)]);
    const inclusive = await invoicesWithInclusivePrices(trx, ctx.account.id, [invoiceId]);
    const pending = (await pendingDebitsOf(tctx, [invoiceId])).get(invoiceId);
    const credit = await creditWordsOf(tctx, invoiceId);
    await queueMail(
      trx,
      ctx,
      ctx.account.id,
      invoiceMail(
        await mailSenderNameOf(tctx),
        customer,
        invoice,
        note,
        inclusive.has(invoiceId),
        pending,
        credit,
      ),
    );
    await repo.markInvoicesSent(trx, ctx.account.id, [invoiceId], nowInstant(ctx));
    await emitEvent(tctx, 'invoice.sent', ref, { before });
  });
  ctx.mailQueued();
}

/** Ids per statement when reading a bill run's invoices back. */
const MAIL_CHUNK = 1000;

/**
 * Queues the invoice e-mails (with PDF) for invoices whose customer has autoSendInvoice and an e-mail; call inside
 * the transaction that made them, and ctx.mailQueued() after it commits. Sets their DateSent. The PDFs are
 * rendered by the mail worker when it delivers each message, not here: a bill run stays a few statements per
 * thousand invoices. Returns the ids of the invoices it sent (their `invoice.sent` is the caller's, with its batch
 * of events).
 */
export async function queueInvoiceMails(ctx: ServiceContext, invoiceIds: number[]): Promise<number[]> {
  const sent: number[] = [];
  for (let at = 0; at < invoiceIds.length; at += MAIL_CHUNK) {
    const invoices = (
      await repo.findInvoices(ctx.db, ctx.account.id, invoiceIds.slice(at, at + MAIL_CHUNK))
    ).filter((invoice) => !invoice.isDraft && !invoice.isCancelled);
    const customers = await customersByIds(ctx, [...new Set(invoices.map((invoice) => invoice.customerId))]);
    const sending = invoices.flatMap((invoice) => {
      const customer = customers.get(invoice.customerId);
      return customer?.autoSendInvoice && customer.email ? [{ invoice, customer }] : [];
    });
    const notes = await automaticCollectionNotes(
      ctx,
      sending.map(({ invoice, customer }) => collectionOfRecord(invoice, customer)),
    );
    const inclusive = await invoicesWithInclusivePrices(
      ctx.db,
      ctx.account.id,
      sending.map(({ invoice }) => invoice.id),
    );
    const pending = await pendingDebitsOf(
      ctx,
      sending.map(({ invoice }) => invoice.id),
    );
    const credits = await creditWordsOfInvoices(
      ctx,
      sending.map(({ invoice }) => invoice.id),
    );
    const senderName = await mailSenderNameOf(ctx);
    const mails = sending.map(({ invoice, customer }, i) => ({
      invoice,
      mail: invoiceMail(
        senderName,
        customer,
        invoice,
        notes[i],
        inclusive.has(invoice.id),
        pending.get(invoice.id),
        credits.get(invoice.id),
      ),
    }));
    if (mails.length === 0) continue;
    await queueMails(
      ctx.db,
      ctx,
      mails.map(({ mail }) => ({ accountId: ctx.account.id, mail })),
    );
    await repo.markInvoicesSent(
      ctx.db,
      ctx.account.id,
      mails.map(({ invoice }) => invoice.id),
      nowInstant(ctx),
    );
    sent.push(...mails.map(({ invoice }) => invoice.id));
  }
  return sent;
}
