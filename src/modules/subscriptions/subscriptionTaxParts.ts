import { minDate, maxDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { minorToDecimalText, minorUnitDigits, productToMinor } from '../../core/money.ts';
import type { AppliedTax } from '../../core/tax.ts';
import { apportionByDays, splitPeriodAt } from '../../core/taxRates.ts';
import type { SupplyPart } from '../../core/taxRates.ts';
import { shareByWeights } from '../../core/taxShare.ts';
import type { NewInvoiceCharge } from '../invoicing/index.ts';
import type { PlannedInvoice, PlannedLine } from './subscriptionBilling.ts';

/**
 * A subscription's invoice taxed line by line at the rates of each line's supply (docs/tax.md, "Supplies that span
 * a change"; the VAT Act's section 67A). Pure: the rates come in as functions of the customer's tax settings.
 *
 * 1. A line whose period crosses a change of rate becomes one line per part (taxRates.ts, splitPeriodAt), each
 *    1 × its share of the line's amount by days (apportionByDays; the last part takes the rest), described with the
 *    original quantity and price and its days, and taxed at the rates in force in its part. A tax-inclusive line is
 *    split on its gross, each part's net and tax then split out at its own rates (invoiceMath.ts).
 * 2. A line whose period is wholly on one side bears the rates of its first day: April's usage on the invoice of
 *    1 May bears 15 %.
 * 3. A line without a period (a setup fee) bears the rates of the invoice date.
 * 4. A coupon's discount line (after the lines it discounts: PlannedInvoice.lineDiscountsMinor) is shared over the
 *    rates by what it took of each line, each line's discount apportioned over its parts as its amount was (by the
 *    largest remainder, taxShare.ts shareByWeights); each share is a line bearing the rates of the lines it took
 *    from, so every rate's base is net of its own discount. Several coupons on one invoice share in proportion to
 *    their sum, the only split the plan keeps.
 *
 * The invoice's taxes are the distinct `{name, perc}` of its lines, by the earliest line bearing each; a line
 * bears those at its positions (invoicing's taxPositions). When every line bears the same taxes the invoice is as
 * it always was: those taxes, no positions.
 *
 * Worked example (docs/tax.md): 300.00 for 1 April–30 June 2025 (91 days), VAT 15 % rising to 15.5 % on 1 May:
 * 30 days before, 300.00 × 30 / 91 = 98.901… → 98.90 at 15 % (VAT 14.835 → 14.84), and 201.10 at 15.5 % (VAT
 * 31.1705 → 31.17); the invoice's taxes VAT 15 % (14.84) and VAT 15.5 % (31.17), Total 346.01.
 */

export interface SupplyRates {
  /** The customer's taxes on a day. */
  taxesOn(date: PlainDate): AppliedTax[];
  /** The days strictly inside [start, end) on which one of the customer's rates changes, ascending. */
  changesWithin(period: { start: PlainDate; end: PlainDate }): PlainDate[];
}

export interface TaxedInvoiceLines {
  charges: NewInvoiceCharge[];
  taxes: AppliedTax[];
}

interface TaxedLine {
  line: PlannedLine;
  taxes: AppliedTax[];
  /** The first day it is supplied: its period's start, else the invoice date (orders the invoice's taxes). */
  from: PlainDate;
}

/** The planned invoice's lines, each at the rates of its supply, and the invoice's taxes (the rules above). */
export function taxByRates(
  planned: PlannedInvoice,
  rates: SupplyRates,
  currencyCode: string,
): TaxedInvoiceLines {
  const discounted = planned.lineDiscountsMinor;
  const chargedCount = discounted?.length ?? planned.lines.length;
  const parts: TaxedLine[] = [];
  /** Per taxes (by key) and treatment: what the discount lines took of the lines bearing them. */
  const discountWeights = new Map<
    string,
    { taxes: AppliedTax[]; inclusive: boolean; minor: number; from: PlainDate; to: PlainDate }
  >();
  planned.lines.slice(0, chargedCount).forEach((line, i) => {
    const lineParts = partsOf(line, rates, planned.invoiceDate, currencyCode);
    parts.push(...lineParts.map((part) => part.taxed));
    const discountMinor = discounted?.[i] ?? 0;
    if (discountMinor === 0) return;
    const shares = apportionByDays(
      discountMinor,
      lineParts.map((part) => part.supply),
    );
    lineParts.forEach(({ taxed }, p) => {
      const key = `${keyOf(taxed.taxes)} ${Boolean(line.isTaxInclusive)}`;
      const weight = discountWeights.get(key) ?? {
        taxes: taxed.taxes,
        inclusive: Boolean(line.isTaxInclusive),
        minor: 0,
        from: taxed.line.periodStart ?? planned.invoiceDate,
        to: taxed.line.periodEnd ?? planned.invoiceDate,
      };
      weight.minor += shares[p]!;
      weight.from = minDate(weight.from, taxed.line.periodStart ?? weight.from);
      weight.to = maxDate(weight.to, taxed.line.periodEnd ?? weight.to);
      discountWeights.set(key, weight);
    });
  });
  for (const line of planned.lines.slice(chargedCount)) {
    const groups = [...discountWeights.values()].filter((w) => w.inclusive === Boolean(line.isTaxInclusive));
    parts.push(...discountParts(line, groups, rates, planned.invoiceDate, currencyCode));
  }
  return parts.length === 0
    ? { charges: [], taxes: rates.taxesOn(planned.invoiceDate) }
    : withPositions(parts);
}

/** A line's parts (one unless its period crosses a change), each with its rates and days. */
function partsOf(
  line: PlannedLine,
  rates: SupplyRates,
  invoiceDate: PlainDate,
  currencyCode: string,
): { taxed: TaxedLine; supply: SupplyPart }[] {
  const { periodStart: start, periodEnd: end } = line;
  if (start === null || end === null) {
    const day = start ?? invoiceDate;
    return [
      { taxed: { line, taxes: rates.taxesOn(day), from: day }, supply: { start: day, end: day, days: 0 } },
    ];
  }
  const supplies = splitPeriodAt({ start, end }, rates.changesWithin({ start, end }));
  if (supplies.length === 1) {
    return [{ taxed: { line, taxes: rates.taxesOn(start), from: start }, supply: supplies[0]! }];
  }
  const totalDays = supplies.reduce((sum, part) => sum + part.days, 0);
  const shares = apportionByDays(productToMinor(line.qty, line.unitCostEx, currencyCode), supplies);
  return supplies.map((supply, p) => ({
    supply,
    taxed: {
      line: {
        ...line,
        descrip: `${line.descrip} (${line.qty} × ${priceText(line.unitCostEx, currencyCode)}: ${supply.days} of ${totalDays} days)`,
        qty: '1',
        unitCostEx: minorToDecimalText(shares[p]!, currencyCode),
        periodStart: supply.start,
        periodEnd: supply.end,
      },
      taxes: rates.taxesOn(supply.start),
      from: supply.start,
    },
  }));
}

/** A discount line shared over the rates of what it took (rule 4); at its own period's rates when it took nothing. */
function discountParts(
  line: PlannedLine,
  groups: readonly { taxes: AppliedTax[]; minor: number; from: PlainDate; to: PlainDate }[],
  rates: SupplyRates,
  invoiceDate: PlainDate,
  currencyCode: string,
): TaxedLine[] {
  const ownDay = line.periodStart ?? invoiceDate;
  if (groups.length === 0) return [{ line, taxes: rates.taxesOn(ownDay), from: ownDay }];
  if (groups.length === 1) return [{ line, taxes: groups[0]!.taxes, from: ownDay }];
  const shares = shareByWeights(
    productToMinor(line.qty, line.unitCostEx, currencyCode),
    groups.map((group) => group.minor),
  );
  return groups.flatMap((group, g) =>
    shares[g] === 0
      ? []
      : [
          {
            line: {
              ...line,
              qty: '1',
              unitCostEx: minorToDecimalText(shares[g]!, currencyCode),
              periodStart: group.from,
              periodEnd: group.to,
            },
            taxes: group.taxes,
            from: group.from,
          },
        ],
  );
}

/** A unit price as the customer reads it: at least the currency's decimals (300 → 300.00; 0.0525 stays). */
function priceText(price: string, currencyCode: string): string {
  const digits = minorUnitDigits(currencyCode);
  const [whole, fraction = ''] = price.split('.');
  const padded = fraction.padEnd(digits, '0');
  return padded === '' ? whole! : `${whole}.${padded}`;
}

const keyOf = (taxes: readonly AppliedTax[]) => JSON.stringify(taxes.map((tax) => [tax.name, tax.perc]));

/** The invoice's taxes and each line's positions among them; none when every line bears the same taxes. */
function withPositions(lines: readonly TaxedLine[]): TaxedInvoiceLines {
  const distinct = new Set(lines.map((line) => keyOf(line.taxes)));
  if (distinct.size <= 1) {
    return { charges: lines.map(({ line }) => chargeOf(line, null)), taxes: lines[0]!.taxes };
  }
  const taxes: AppliedTax[] = [];
  const positionOf = (tax: AppliedTax): number => {
    const found = taxes.findIndex((t) => t.name === tax.name && t.perc === tax.perc);
    if (found >= 0) return found;
    taxes.push({ name: tax.name, perc: tax.perc });
    return taxes.length - 1;
  };
  // Earliest supply first, so that the old rate is listed before the new one.
  [...lines]
    .sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0))
    .forEach((l) => l.taxes.forEach(positionOf));
  return { charges: lines.map(({ line, taxes: own }) => chargeOf(line, own.map(positionOf))), taxes };
}

function chargeOf(line: PlannedLine, taxPositions: number[] | null): NewInvoiceCharge {
  return taxPositions === null ? line : { ...line, taxPositions };
}
