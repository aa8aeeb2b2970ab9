import { startOfDate } from '../../core/calendar.ts';
import { minorToDecimalText, minorToWireNumber } from '../../core/money.ts';
import { vat201Boxes } from './vatReport.ts';
import type { Figures, ReportDocument } from './vatReport.ts';
import type { VatReport } from './vatReport.service.ts';
import type { VatReportOut } from './reports.schemas.ts';

export function toVatReportDto(report: VatReport, timeZone: string): VatReportOut {
  return {
    From: startOfDate(report.from, timeZone),
    To: startOfDate(report.to, timeZone),
    Basis: report.basis,
    Currencies: report.currencies.map((currency) => {
      const amount = (minor: number) => minorToWireNumber(minor, currency.currencyCode);
      const figures = (f: Figures) => ({
        AmountEx: amount(f.amountExMinor),
        Tax: amount(f.taxMinor),
        AmountInc: amount(f.amountIncMinor),
      });
      const boxes = vat201Boxes(currency);
      return {
        CurrencyCode: currency.currencyCode,
        StandardRated: figures(currency.supplies.standard),
        ZeroRated: figures(currency.supplies.zero_rated),
        Exported: figures(currency.supplies.export),
        Exempt: figures(currency.supplies.exempt),
        NonSupplies: figures(currency.supplies.non_supply),
        CreditNotes: figures(currency.creditNotes),
        OutputTax: amount(currency.outputTaxMinor),
        ByRate: currency.byRate.map((group) => ({ Rates: group.rates, ...figures(group.figures) })),
        Vat201: {
          Field1: amount(boxes['1']),
          Field2: amount(boxes['2']),
          Field2A: amount(boxes['2A']),
          Field3: amount(boxes['3']),
          Field4: amount(boxes['4']),
        },
        Documents: currency.documents.map((d) => ({
          Kind: d.kind,
          Number: d.number,
          Date: startOfDate(d.date, timeZone),
          invoiceID: d.invoiceId,
          invoiceNum: d.invoiceNum,
          taxCreditNoteID: d.taxCreditNoteId,
          paymentID: d.paymentId,
          customerID: d.customerId,
          Customer: d.customerName,
          VatNo: d.vatNo,
          Category: d.category,
          Rates: d.rates,
          AmountEx: amount(d.amountExMinor),
          Tax: amount(d.taxMinor),
          AmountInc: amount(d.amountIncMinor),
        })),
      };
    }),
  };
}

const CSV_HEAD = [
  'Currency',
  'Kind',
  'Number',
  'Date',
  'Invoice',
  'Customer',
  'VAT number',
  'Category',
  'Rates',
  'Amount ex',
  'VAT',
  'Amount inc',
];

/**
 * The report as CSV (RFC 4180): one row per document, then a row per box of each currency (Kind `total`, Category
 * the box or `VAT201 field N`). Amounts are exact decimals with a point; text with commas, quotes or line breaks is
 * quoted, and text a spreadsheet would read as a formula is prefixed with an apostrophe.
 */
export function vatReportCsv(report: VatReport): string {
  const rows: string[][] = [CSV_HEAD];
  for (const currency of report.currencies) {
    const text = (minor: number) => minorToDecimalText(minor, currency.currencyCode);
    const documentRow = (d: ReportDocument) => [
      d.currencyCode,
      d.kind,
      d.number,
      d.date,
      String(d.invoiceNum ?? d.invoiceId),
      d.customerName,
      d.vatNo ?? '',
      d.category,
      d.rates,
      text(d.amountExMinor),
      text(d.taxMinor),
      text(d.amountIncMinor),
    ];
    rows.push(...currency.documents.map(documentRow));
    const total = (label: string, f: Figures) => [
      currency.currencyCode,
      'total',
      '',
      `${report.from}..${report.to}`,
      '',
      '',
      '',
      label,
      '',
      text(f.amountExMinor),
      text(f.taxMinor),
      text(f.amountIncMinor),
    ];
    for (const [label, figures] of Object.entries(currency.supplies)) rows.push(total(label, figures));
    rows.push(total('credit_notes', currency.creditNotes));
    for (const [field, minor] of Object.entries(vat201Boxes(currency)))
      rows.push(total(`VAT201 field ${field}`, { amountExMinor: 0, taxMinor: 0, amountIncMinor: minor }));
  }
  return rows.map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

/**
 * A cell a spreadsheet reads as text: one starting as a formula would (=, +, -, @, a tab or a return) gets a quote
 * in front, unless it is a plain number (our own figures, such as -23.00); a customer's name never runs as a formula.
 */
function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) && !/^-?\d+(\.\d+)?$/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The report as `billing report vat` prints it: each currency's boxes, then how many documents they sum. */
export function vatReportText(report: VatReport): string {
  const lines = [`VAT report, ${report.from} to ${report.to}, ${report.basis} basis`];
  if (report.currencies.length === 0) lines.push('', 'No documents in the period.');
  for (const currency of report.currencies) {
    const text = (minor: number) => minorToDecimalText(minor, currency.currencyCode).padStart(16);
    const row = (label: string, f: Figures) =>
      `${label.padEnd(44)}${text(f.amountExMinor)}${text(f.taxMinor)}${text(f.amountIncMinor)}`;
    const { supplies } = currency;
    lines.push(
      '',
      `${currency.currencyCode.padEnd(44)}${'ex'.padStart(16)}${'VAT'.padStart(16)}${'inc'.padStart(16)}`,
      row('Standard-rated supplies (fields 1 and 4)', supplies.standard),
      row('Zero-rated supplies (field 2)', supplies.zero_rated),
      row('Zero-rated exports (field 2A)', supplies.export),
      row('Exempt supplies (field 3)', supplies.exempt),
      row('Non-supplies: credit taxed when used (field 3)', supplies.non_supply),
      row('  of which tax credit notes', currency.creditNotes),
      ...currency.byRate.map((group) => row(`  at ${group.rates || 'no tax'}`, group.figures)),
      `${'Output tax'.padEnd(60)}${text(currency.outputTaxMinor)}`,
      `${currency.documents.length} document(s); --csv lists them.`,
    );
  }
  return lines.join('\n');
}
