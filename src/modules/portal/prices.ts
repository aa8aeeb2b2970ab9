import { decimalToMinor, minorUnitDigits } from '../../core/money.ts';
import { money } from './portalViews.ts';

/** "every month", "every 3 months", "every 14 days". */
export function periodText(count: number, unit: string): string {
  const singular = unit.replace(/s$/, '');
  return count === 1 ? `every ${singular}` : `every ${count} ${singular}s`;
}

/** A catalogue price (an exact decimal) as money when the currency's digits hold it, else as written. */
export function priceText(decimal: string, currencyCode: string): string {
  const fraction = decimal.split('.')[1] ?? '';
  return fraction.replace(/0+$/, '').length <= minorUnitDigits(currencyCode)
    ? money(decimalToMinor(decimal, currencyCode), currencyCode)
    : `${currencyCode} ${decimal}`;
}
