import crypto from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import { minorToDecimalText } from '../../core/money.ts';
import { localDateText } from '../../core/calendar.ts';
import type { ServiceContext } from '../../context.ts';
import { pendingDebitsOf, pendingDebitWords } from '../invoicing/index.ts';
import type { Invoice, InvoiceWithFigures, PendingDebit } from '../invoicing/index.ts';
import type { Emandate } from '../mandates/index.ts';
import type { PaymentMethod } from '../paymentMethods/index.ts';

/**
 * The portal's templates and style sheet, beside this file in templates/ (scripts/build.mjs copies them into
 * dist/ with the compiled code).
 */
export const TEMPLATES_DIR = fileURLToPath(new URL('./templates', import.meta.url));

/** One engine for the process: templates are compiled once and cached. */
export const eta = new Eta({ views: TEMPLATES_DIR, cache: true, autoEscape: true });

export const PORTAL_CSS = fs.readFileSync(new URL('./templates/portal.css', import.meta.url), 'utf8');

/** An amount with its currency in text (docs/design/portal.md, "Accessibility"). */
export function money(amountMinor: number, currencyCode: string): string {
  const negative = amountMinor < 0;
  const text = minorToDecimalText(Math.abs(amountMinor), currencyCode);
  const [whole = '0', fraction] = text.split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '−' : ''}${currencyCode} ${fraction === undefined ? grouped : `${grouped}.${fraction}`}`;
}

/** A page number from the query: 1 unless it is a whole number of at most 5 digits. */
export const pageNumber = (page: string | undefined) =>
  /^\d{1,5}$/.test(page ?? '') ? Math.max(1, Number(page)) : 1;

/**
 * A pay form's own random token, new on every page shown: the form sent twice is one payment, a form of another
 * page (a later visit with the same session) another one (payPage.ts, payKey).
 */
export const payAttempt = () => crypto.randomBytes(16).toString('base64url');

const statusClass = (status: string) => status.toLowerCase().replace(/\s+/g, '-');

export interface InvoiceRowView {
  id: number;
  number: string;
  date: string;
  dueDate: string;
  status: string;
  statusClass: string;
  total: string;
  /** The API's Balance, net of pending payments: what the pay forms take. */
  balance: string;
  /** What is still due, pending debits included (docs/spec-decisions.md, "Pending debits on documents"). */
  due: string;
  /** "To be debited on 25 Jan 2027 from account ending 0001: ZAR 100.00", for each pending debit. */
  debits: string[];
}

/**
 * The one rule of the portal's tax labels (docs/portal.md, "Prices and tax"): a catalogue or unit price says
 * whether tax is in it, from its rate's (or else the account's) tax-inclusiveness; line amounts are before tax;
 * what is charged or due (totals, balances, credits) is after tax.
 */
export const taxLabel = (inclusive: boolean): string => (inclusive ? 'incl. tax' : 'excl. tax');

/** An amount that tax is in: a total, a balance, a charge. */
export const withTax = (text: string): string => `${text} ${taxLabel(true)}`;

/**
 * How the portal names an invoice: its number, or "Draft of <date>" before it has one; never its internal id
 * (docs/portal.md, "What the portal shows").
 */
export const invoiceName = (invoice: Pick<Invoice, 'invoiceNum' | 'invoiceDate'>): string =>
  invoice.invoiceNum !== null ? String(invoice.invoiceNum) : `Draft of ${invoice.invoiceDate}`;

export function invoiceRow(invoice: Invoice): InvoiceRowView {
  return {
    id: invoice.id!,
    number: invoiceName(invoice),
    date: invoice.invoiceDate,
    dueDate: invoice.dueDate,
    status: invoice.status,
    statusClass: statusClass(invoice.status),
    total: money(invoice.money.totalMinor, invoice.currencyCode),
    balance: money(invoice.balances.balanceMinor, invoice.currencyCode),
    due: money(invoice.balances.actualBalanceMinor, invoice.currencyCode),
    debits: [],
  };
}

const debitText = (debit: PendingDebit, currencyCode: string) =>
  `${pendingDebitWords(debit)}: ${money(debit.amountMinor, currencyCode)}`;

/** The invoices as rows, each with its pending debits in words: one read for them all. */
export async function invoiceRowsOf(
  ctx: ServiceContext,
  invoices: readonly Invoice[],
): Promise<InvoiceRowView[]> {
  const pending = await pendingDebitsOf(
    ctx,
    invoices.map((invoice) => invoice.id!),
  );
  return invoices.map((invoice) => ({
    ...invoiceRow(invoice),
    debits: (pending.get(invoice.id!) ?? []).map((debit) => debitText(debit, invoice.currencyCode)),
  }));
}

/** A fraction as a percentage: "0.15" → "15%". */
function percent(fraction: string): string {
  const value = Number(fraction) * 100;
  return `${Number.isFinite(value) ? Number(value.toFixed(4)) : fraction}%`;
}

/** One invoice as its page shows it; `pending`: its pending debits (pendingDebitsOf). */
export function invoiceDetail(invoice: InvoiceWithFigures, pending: readonly PendingDebit[] = []) {
  const currency = invoice.currencyCode;
  const pendingOf = new Map(pending.map((debit) => [debit.paymentId, debit]));
  return {
    ...invoiceRow(invoice),
    debits: pending.map((debit) => debitText(debit, currency)),
    exTotal: money(invoice.exTotalMinor, currency),
    lines: [...invoice.charges]
      .sort((a, b) => a.displayOrder - b.displayOrder || a.line - b.line)
      .map((charge) => ({
        description: charge.descrip,
        period:
          charge.periodStart && charge.periodEnd ? `${charge.periodStart} to ${charge.periodEnd}` : null,
        qty: charge.qty,
        // A tax-inclusive price is shown as quoted, saying so: its Amount is the part before tax.
        unit: `${currency} ${charge.unitCostEx} ${taxLabel(charge.isTaxInclusive)}`,
        amount: money(charge.amountExMinor, currency),
      })),
    taxes: invoice.taxes.map((tax) => ({
      name: tax.name,
      perc: percent(tax.perc),
      amount: money(tax.totalMinor, currency),
    })),
    applied: [
      // In words, without our ids: a customer knows neither (docs/portal.md, "What customers can do").
      ...invoice.paymentsApplied.map((p) => {
        const debit = pendingOf.get(p.paymentId);
        return {
          kind: debit ? `Pending debit: ${pendingDebitWords(debit)}` : 'Payment',
          amount: money(p.amountMinor, currency),
        };
      }),
      ...invoice.negativeAdjustmentsApplied.map((a) => ({
        kind: a.creditNoteId ? 'Credit note' : 'Credit',
        amount: money(a.amountMinor, currency),
      })),
    ],
  };
}

/** A mandate's status as its signee reads it. */
export const MANDATE_STATUS: Record<Emandate['status'], string> = {
  pending_signature: 'Waiting for your signature',
  signed: 'Signed',
  expired: 'Expired before it was signed',
  rejected: 'Declined',
  cancelled: 'Cancelled',
};

/**
 * A method as a person reads it, masked: a card's brand, last four digits and expiry; a bank account's bank and
 * last digits. The vault's token and the sealed numbers never reach the page.
 */
export function methodView(method: PaymentMethod, mandate?: Emandate, timeZone = 'UTC') {
  const card = method.creditCard;
  const bank = method.bankAccount;
  return {
    id: method.id,
    isPrimary: method.isPrimary,
    isValid: method.isValid,
    name: card
      ? `${card.cardType} ending ${card.lastFour}`
      : `${bank!.bank} account ending ${bank!.lastFour}`,
    detail: card
      ? `Expires ${String(card.expiryMonth).padStart(2, '0')}/${card.expiryYear}`
      : `Account holder ${bank!.accountHolder}`,
    mandate: mandate && {
      status: MANDATE_STATUS[mandate.status],
      signedOn: mandate.signing ? localDateText(mandate.signing.signedAt, timeZone) : null,
    },
  };
}
