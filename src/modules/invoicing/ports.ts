import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';

/** An invoice just issued: whose, and in which currency. */
export interface IssuedInvoice {
  invoiceId: number;
  customerId: number;
  currencyCode: string;
}

export type InvoicesIssuedListener = (ctx: ServiceContext, issued: readonly IssuedInvoice[]) => Promise<void>;
export type BeforeInvoiceCancel = (ctx: ServiceContext, invoice: IssuedInvoice) => Promise<void>;

/** What an invoice's documents say of credit and its VAT (docs/tax.md, "What an invoice shows"). */
export interface InvoiceCreditWords {
  /** What prepaid credit pays on it now. */
  prepaidCreditMinor: number;
  /** It sells prepaid credit: with VAT (a tax invoice), or taxed when used (a receipt, no supply); null otherwise. */
  sale: 'when_sold' | 'when_used' | null;
  /** Each credit that took VAT off it, in words, with what it took and the VAT in it. */
  vatCredits: { label: string; amountMinor: number; taxMinor: number }[];
}

/** What the documents of each invoice say of credit, by id (an invoice with nothing to say is absent). */
export type InvoiceCreditReader = (
  ctx: ServiceContext,
  invoiceIds: readonly number[],
) => Promise<Map<number, InvoiceCreditWords>>;

/**
 * A payment allocated to an invoice that the bank has not yet paid (a debit order in a batch, or any payment still
 * Pending): the invoice's documents show it as still due, with when and from where it will be taken
 * (docs/spec-decisions.md, "Pending debits on documents").
 */
export interface PendingDebit {
  invoiceId: number;
  paymentId: number;
  /** What of the payment is allocated to the invoice. */
  amountMinor: number;
  /** The payment's date: for a batch's line, the batch's action date. */
  date: PlainDate;
  /** The last four digits of the bank account debited; null for a pending payment not taken from one. */
  accountLastFour: string | null;
}

export type PendingDebitsReader = (
  ctx: ServiceContext,
  invoiceIds: readonly number[],
) => Promise<PendingDebit[]>;

/**
 * The date each pending payment is presented to the bank: its batch's action date, which a late batch's re-dating
 * moves (docs/spec-decisions.md, "Pending debits on documents"). Batches, a higher module, answer; a payment in no batch is left out, and its line keeps the
 * payment's own date.
 */
export type DebitDatesReader = (
  ctx: ServiceContext,
  paymentIds: readonly number[],
) => Promise<ReadonlyMap<number, PlainDate>>;

/**
 * What invoicing asks of the modules above it at moments only it knows (`ctx.ports.invoicing`, filled by
 * src/modulePorts.ts): prepaid credit (credits) pays invoices in the transaction that issues them and takes its
 * money back before one is cancelled (docs/credits.md, "Consumption order"); an invoice's documents say what credit
 * paid and which debits are pending (the ledger's payments, dated by batches); a statement's pending payments are
 * dated by the same answer (`debitDates`).
 */
export interface InvoicingPorts {
  invoicesIssued: InvoicesIssuedListener;
  beforeCancel: BeforeInvoiceCancel;
  creditWords: InvoiceCreditReader;
  pendingDebits: PendingDebitsReader;
  debitDates: DebitDatesReader;
}

declare module '../../context.ts' {
  interface Ports {
    invoicing: InvoicingPorts;
  }
}
