import crypto from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import { minorToDecimalText } from '../../core/money.ts';
import type { Invoice, InvoiceWithFigures } from '../invoicing/index.ts';
import type { Emandate } from '../mandates/index.ts';
import type { PaymentMethod } from '../paymentMethods/index.ts';

/**
 * The portal's templates and style sheet, beside this file in templates/ (scripts/build.mjs copies them into
 * dist/ with the compiled code).
 */
export const TEMPLATES_DIR = fileURLToPath(new URL('./templates/', import.meta.url));

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
 * page (a later visit with the same session) another one (pay.pages.ts, payKey).
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
  balance: string;
}

export function invoiceRow(invoice: Invoice): InvoiceRowView {
  return {
    id: invoice.id!,
    number: String(invoice.invoiceNum ?? invoice.id),
    date: invoice.invoiceDate,
    dueDate: invoice.dueDate,
    status: invoice.status,
    statusClass: statusClass(invoice.status),
    total: money(invoice.money.totalMinor, invoice.currencyCode),
    balance: money(invoice.balances.balanceMinor, invoice.currencyCode),
  };
}

/** A fraction as a percentage: "0.15" → "15%". */
function percent(fraction: string): string {
  const value = Number(fraction) * 100;
  return `${Number.isFinite(value) ? Number(value.toFixed(4)) : fraction}%`;
}

export function invoiceDetail(invoice: InvoiceWithFigures) {
  const currency = invoice.currencyCode;
  return {
    ...invoiceRow(invoice),
    exTotal: money(invoice.exTotalMinor, currency),
    lines: [...invoice.charges]
      .sort((a, b) => a.displayOrder - b.displayOrder || a.line - b.line)
      .map((charge) => ({
        description: charge.descrip,
        period:
          charge.periodStart && charge.periodEnd ? `${charge.periodStart} to ${charge.periodEnd}` : null,
        qty: charge.qty,
        // A tax-inclusive price is shown as quoted, saying so: its Amount is the part before tax.
        unit: `${currency} ${charge.unitCostEx}${charge.isTaxInclusive ? ' incl. tax' : ''}`,
        amount: money(charge.amountExMinor, currency),
      })),
    taxes: invoice.taxes.map((tax) => ({
      name: tax.name,
      perc: percent(tax.perc),
      amount: money(tax.totalMinor, currency),
    })),
    applied: [
      ...invoice.paymentsApplied.map((p) => ({
        kind: `Payment ${p.paymentId}`,
        amount: money(p.amountMinor, currency),
      })),
      ...invoice.negativeAdjustmentsApplied.map((a) => ({
        kind: a.creditNoteId ? `Credit note ${a.creditNoteId}` : `Adjustment ${a.negativeAdjustmentId}`,
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
export function methodView(method: PaymentMethod, mandate?: Emandate) {
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
      signedOn: mandate.signing ? mandate.signing.signedAt.slice(0, 10) : null,
    },
  };
}
