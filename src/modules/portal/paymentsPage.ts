import type { ServiceContext } from '../../context.ts';
import { adjustmentsByIds, listCreditNotes, listPayments } from '../ledger/index.ts';
import type { CreditNote, Payment } from '../ledger/index.ts';
import type { SignedInPage } from './portalHttp.ts';
import { invoiceName, money, pageNumber } from './portalViews.ts';
import { everyRecord, issuedInvoicesOf } from './signedInCustomer.ts';

const ENTRIES_PER_PAGE = 25;

/** Spec, Payment.Method, as a customer reads it. */
const METHOD_NAMES: Record<string, string> = {
  cash: 'Cash',
  cheque: 'Cheque',
  credit_card: 'Card',
  bank_account: 'Bank account',
  eft: 'Bank transfer (EFT)',
  debit_order: 'Debit order',
  ach: 'ACH debit',
  sepa: 'SEPA direct debit',
  other: 'Other',
};

interface AppliedView {
  label: string;
  href: string | null;
  amount: string;
}

interface EntryView {
  date: string;
  id: number;
  kind: 'Payment' | 'Credit note';
  what: string;
  reference: string | null;
  memo: string | null;
  amount: string;
  status: string;
  statusClass: string;
  /** Why a payment failed or was reversed, in words. */
  reason: string | null;
  applied: AppliedView[];
  /** What is left to apply; null for a failed payment, which counts for nothing. */
  unallocated: string | null;
}

/** What names the targets of allocations: the customer's invoices, and the adjustments payments paid. */
interface Targets {
  invoiceNumbers: Map<number, string>;
  adjustmentTypes: Map<number, string>;
}

function appliedOf(
  page: SignedInPage,
  targets: Targets,
  allocations: Payment['allocations'],
  currency: string,
): AppliedView[] {
  return allocations.map((allocation) => {
    const amount = money(allocation.amountMinor, currency);
    if (allocation.targetType === 'invoice') {
      const number = targets.invoiceNumbers.get(allocation.targetId) ?? String(allocation.targetId);
      return {
        label: `Invoice ${number}`,
        href: `${page.portal.base}invoices/${allocation.targetId}`,
        amount,
      };
    }
    // Spec: a refund is a positive adjustment, which the refunded payment is allocated to.
    const type = targets.adjustmentTypes.get(allocation.targetId);
    const label =
      type === 'refund' ? 'Refunded to you' : `Charge (${(type ?? 'adjustment').replaceAll('_', ' ')})`;
    return { label, href: null, amount };
  });
}

function paymentEntry(page: SignedInPage, targets: Targets, payment: Payment): EntryView {
  const currency = payment.currencyCode;
  const failed = payment.state === 'failed';
  return {
    date: payment.date,
    id: payment.id,
    kind: 'Payment',
    what: METHOD_NAMES[payment.method] ?? payment.method,
    reference: payment.ref,
    memo: payment.memo,
    amount: money(payment.amountMinor, currency),
    status: payment.status,
    statusClass: payment.status.toLowerCase(),
    reason: failed ? (payment.failureReason ?? 'not received').replaceAll('_', ' ') : null,
    applied: appliedOf(page, targets, payment.allocations, currency),
    unallocated: failed ? null : money(payment.amountMinor - payment.allocatedMinor, currency),
  };
}

function creditNoteEntry(page: SignedInPage, targets: Targets, creditNote: CreditNote): EntryView {
  const currency = creditNote.currencyCode;
  return {
    date: creditNote.date,
    id: creditNote.id,
    kind: 'Credit note',
    what: `Credit note ${creditNote.creditNumber}`,
    reference: null,
    memo: creditNote.memo,
    amount: money(creditNote.amountMinor, currency),
    status: creditNote.status,
    statusClass: creditNote.status.toLowerCase(),
    reason: null,
    applied: appliedOf(page, targets, creditNote.allocations, currency),
    unallocated: money(creditNote.amountMinor - creditNote.allocatedMinor, currency),
  };
}

/** Newest first: the statement's order reversed (on one day it lists payments, then credit notes, each by id). */
const newestEntriesFirst = (a: EntryView, b: EntryView) =>
  b.date.localeCompare(a.date) || (a.kind === b.kind ? b.id - a.id : a.kind === 'Payment' ? 1 : -1);

/** The customer's payments and credit notes with what each paid, newest first. */
async function entriesOf(page: SignedInPage): Promise<EntryView[]> {
  const ctx: ServiceContext = page.portal.ctx;
  const customerId = page.session.customerId;
  const payments = await everyRecord((slice) => listPayments(ctx, slice, customerId));
  const creditNotes = await everyRecord((slice) => listCreditNotes(ctx, slice, customerId));
  const adjustmentIds = payments.flatMap((p) =>
    p.allocations.filter((a) => a.targetType === 'adjustment').map((a) => a.targetId),
  );
  const adjustments = adjustmentIds.length > 0 ? await adjustmentsByIds(ctx, adjustmentIds) : new Map();
  const targets: Targets = {
    invoiceNumbers: new Map(
      (await issuedInvoicesOf(page)).map((invoice) => [invoice.id!, invoiceName(invoice)]),
    ),
    adjustmentTypes: new Map([...adjustments].map(([id, adjustment]) => [id, adjustment.adjustmentType])),
  };
  return [
    ...payments.map((payment) => paymentEntry(page, targets, payment)),
    ...creditNotes.map((creditNote) => creditNoteEntry(page, targets, creditNote)),
  ].sort(newestEntriesFirst);
}

/** The customer's payments and credit notes, newest first, a page of them at a time. */
export async function paymentsPage(page: SignedInPage, pageOfEntries: string | undefined) {
  const number = pageNumber(pageOfEntries);
  const all = await entriesOf(page);
  const link = (n: number) => `${page.portal.base}payments${n === 1 ? '' : `?page=${n}`}`;
  return page.render(200, 'payments', {
    title: 'Payments',
    current: 'payments',
    entries: all.slice((number - 1) * ENTRIES_PER_PAGE, number * ENTRIES_PER_PAGE),
    previous: number > 1 ? link(number - 1) : undefined,
    next: all.length > number * ENTRIES_PER_PAGE ? link(number + 1) : undefined,
  });
}
