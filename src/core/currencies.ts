import currencyCodes from 'currency-codes';

/** An ISO 4217 currency: its name and the exponent of its minor unit (2 for ZAR, 0 for JPY, 3 for BHD). */
export interface Currency {
  code: string;
  name: string;
  minorUnitDigits: number;
}

// NOTE: ISO 4217 also lists precious metals, test and "no currency" codes (XAU, XTS, XXX...); the package marks
// them with placeholder countries starting "Zz". Nobody is billed in those, so they are not currencies here.
const CURRENCIES = new Map<string, Currency>(
  currencyCodes.data
    .filter((record) => record.countries.some((country) => !country.startsWith('Zz')))
    .map((record) => [
      record.code,
      { code: record.code, name: record.currency, minorUnitDigits: record.digits },
    ]),
);

export function findCurrency(code: string): Currency | undefined {
  return CURRENCIES.get(code.toUpperCase());
}

export function isCurrencyCode(code: string): boolean {
  return CURRENCIES.has(code.toUpperCase());
}
