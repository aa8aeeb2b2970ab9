import Big from 'big.js';
import { MAX_PRICE } from '../../core/money.ts';
import { validatePackagePrice } from './packagePricing.ts';
import { SCHEMES, validateBrackets, validateSchemeBrackets } from './pricing.ts';
import type { Bracket, BracketProblem, Scheme } from './pricing.ts';
import { optionalText, requiredText } from '../../core/text.ts';
import { readWireDecimal } from '../../core/wireDecimal.ts';
import type { ServiceContext } from '../../context.ts';
import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { NewVersionCurrency } from './component.repository.ts';
import type { ComponentFields } from './component.ts';
import { assertCurrencyEnabled } from './currency.service.ts';

/** Public notes, Catalogue: components are of three kinds, quantity, metered and opt-in. */
export const COMPONENT_TYPES = ['quantity', 'metered', 'opt_in'] as const;
export type ComponentType = (typeof COMPONENT_TYPES)[number];

/** Spec, Component: TermType months or days. */
export const TERM_TYPES = ['months', 'days'] as const;
export type TermType = (typeof TERM_TYPES)[number];

/**
 * Spellings of Type, matched ignoring case, spaces, hyphens and underscores: the spec's samples write
 * `quantity` and `Quantity`, the public notes `opt-in`; `OptIn` and `opt_in` are the other obvious spellings.
 */
const TYPE_BY_KEY = new Map<string, ComponentType>([
  ['quantity', 'quantity'],
  ['metered', 'metered'],
  ['optin', 'opt_in'],
]);

/** Quantities are whole, and doubles hold every whole number up to 2^53; 10^15 is a round limit below it. */
const MAX_QUANTITY = new Big('1000000000000000');

/** A component's own fields as a request gives them (the version comes apart). */
export interface ComponentInput {
  componentCode?: string;
  name: string;
  type: string;
  scheme: string;
  unitName: string;
  packageGroupId: number;
  term: number;
  termType: string;
  descrip?: string | null;
  isActive?: boolean;
  /** A billable metric's code; null unlinks; undefined keeps (docs/usage.md, "Billable metrics"). */
  metricCode?: string | null;
}

/** Decimals as the wire carries them: JSON numbers, or strings for clients that keep decimals exact. */
export interface BracketInput {
  price: number | string;
  qtyFrom: number | string;
  qtyTill?: number | string | null;
  flatPrice?: number | string | null;
}

export interface VersionCurrencyInput {
  currencyCode: string;
  isTaxInclusive?: boolean | null;
  brackets: BracketInput[];
  /** The package scheme's blocks; left out (or null) under the bracket schemes. */
  packageSize?: number | string | null;
  price?: number | string | null;
  freeUnits?: number | string | null;
}

export interface VersionInput {
  versionName: string;
  isActive?: boolean;
  isDefault?: boolean;
  /** Undefined keeps a version's prices on edit; a list (even empty) replaces them. */
  currencies?: VersionCurrencyInput[];
}

function typeOf(value: string): ComponentType | undefined {
  return TYPE_BY_KEY.get(value.toLowerCase().replace(/[\s_-]/g, ''));
}

function oneOf<T extends string>(
  values: readonly T[],
  value: string,
  field: string,
  problems: FieldProblem[],
): T {
  const lower = value.trim().toLowerCase();
  if (!(values as readonly string[]).includes(lower)) {
    problems.push({ field, message: `must be one of ${values.join(', ')}` });
  }
  return lower as T;
}

/** The component's own fields; PUT replaces them all (Descrip left out is null, isActive left out is false). */
export function checkedComponent(input: ComponentInput, problems: FieldProblem[]): ComponentFields {
  const type = typeOf(input.type);
  if (!type) {
    problems.push({
      field: 'Type',
      message: `must be one of ${COMPONENT_TYPES.join(', ')} (case, spaces and hyphens aside)`,
    });
  }
  const changes: ComponentFields = {
    name: requiredText(input.name, 'Name', problems),
    descrip: optionalText(input.descrip) ?? null,
    // Spec, Components POST and PUT: isActive defaults to false when unset.
    isActive: input.isActive ?? false,
    unitName: requiredText(input.unitName, 'UnitName', problems),
    packageGroupId: input.packageGroupId,
    term: input.term,
    termType: oneOf(TERM_TYPES, input.termType, 'TermType', problems),
    type: type ?? input.type,
    scheme: oneOf<Scheme>(SCHEMES, input.scheme, 'Scheme', problems),
  };
  if (input.componentCode !== undefined) {
    changes.componentCode = requiredText(input.componentCode, 'ComponentCode', problems);
  }
  return changes;
}

/**
 * A wire decimal as plain text for the pricing rules, which name what is wrong with it: a number as the core's
 * reader reads it, written without an exponent (1e-7 becomes 0.0000001); a string as written.
 */
function decimalText(value: number | string): string {
  if (typeof value === 'string') return value.trim();
  const read = readWireDecimal(value);
  // Infinity (JSON.parse reads 1e400 so) stays text the rules refuse as not a decimal.
  return 'value' in read ? read.value.toFixed() : String(value);
}

/** Spec, Bracket price: QtyTill null or blank means no upper bound (left out means the same). */
function tillText(value: number | string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  const text = decimalText(value);
  return text === '' ? null : text;
}

const WIRE_BRACKET_FIELD = {
  qtyFrom: 'QtyFrom',
  qtyTill: 'QtyTill',
  price: 'Price',
  flatPrice: 'FlatPrice',
} as const;

function bracketField(path: string, problem: Pick<BracketProblem, 'index' | 'field'>): string {
  if (problem.index < 0) return `${path}.ComponentBracketPrices`;
  const bracket = `${path}.ComponentBracketPrices[${problem.index}]`;
  return problem.field ? `${bracket}.${WIRE_BRACKET_FIELD[problem.field]}` : bracket;
}

/** Exact canonical text: no exponent, no trailing zeros ("0.8000" is stored as "0.8"). */
function canonical(text: string): string {
  return new Big(text).toFixed();
}

function checkedBrackets(path: string, input: BracketInput[], problems: FieldProblem[]): Bracket[] {
  const brackets: Bracket[] = input.map((bracket) => ({
    price: decimalText(bracket.price),
    qtyFrom: decimalText(bracket.qtyFrom),
    qtyTill: tillText(bracket.qtyTill),
    flatPrice: optionalDecimalText(bracket.flatPrice),
  }));
  // The bracket rules are the pricing module's (src/modules/catalogue/pricing.ts); each problem names its bracket.
  const found = validateBrackets(brackets);
  for (const problem of found)
    problems.push({ field: bracketField(path, problem), message: problem.message });
  if (found.length > 0) return brackets;

  brackets.forEach((bracket, index) => {
    for (const field of ['price', 'flatPrice'] as const) {
      const value = bracket[field];
      if (value !== undefined && value !== null && new Big(value).gt(new Big(MAX_PRICE))) {
        problems.push({
          field: bracketField(path, { index, field }),
          message: `must be at most ${MAX_PRICE}`,
        });
      }
    }
    for (const field of ['qtyFrom', 'qtyTill'] as const) {
      const value = bracket[field];
      if (value !== null && new Big(value).gt(MAX_QUANTITY)) {
        problems.push({
          field: bracketField(path, { index, field }),
          message: `must be at most ${MAX_QUANTITY}`,
        });
      }
    }
  });
  return brackets.map((bracket) => ({
    price: canonical(bracket.price),
    qtyFrom: canonical(bracket.qtyFrom),
    qtyTill: bracket.qtyTill === null ? null : canonical(bracket.qtyTill),
    flatPrice: bracket.flatPrice ? canonical(bracket.flatPrice) : null,
  }));
}

/** A left-out or null optional decimal is null; anything else is text for the rules to judge. */
function optionalDecimalText(value: number | string | null | undefined): string | null {
  return value === undefined || value === null ? null : decimalText(value);
}

const WIRE_PACKAGE_FIELD = { packageSize: 'PackageSize', price: 'Price', freeUnits: 'FreeUnits' } as const;

/**
 * The package scheme's fields of one currency as sent, each checked on its own (the scheme decides later which
 * must be there): null when none is sent.
 */
function checkedPack(at: string, currency: VersionCurrencyInput, problems: FieldProblem[]): PackageFields {
  const fields: PackageFields = {
    packageSize: optionalDecimalText(currency.packageSize),
    price: optionalDecimalText(currency.price),
    freeUnits: optionalDecimalText(currency.freeUnits),
  };
  // The core's rules name what is wrong; a field left out is judged by fitsScheme, not here.
  const found = validatePackagePrice({
    packageSize: fields.packageSize ?? '1',
    price: fields.price ?? '0',
    freeUnits: fields.freeUnits,
  });
  for (const problem of found) {
    problems.push({ field: `${at}.${WIRE_PACKAGE_FIELD[problem.field]}`, message: problem.message });
  }
  if (found.length > 0) return fields;
  const limits = [
    ['packageSize', MAX_QUANTITY],
    ['freeUnits', MAX_QUANTITY],
    ['price', new Big(MAX_PRICE)],
  ] as const;
  for (const [field, limit] of limits) {
    const value = fields[field];
    if (value !== null && new Big(value).gt(limit)) {
      problems.push({ field: `${at}.${WIRE_PACKAGE_FIELD[field]}`, message: `must be at most ${limit}` });
    }
  }
  return {
    packageSize: fields.packageSize === null ? null : canonical(fields.packageSize),
    price: fields.price === null ? null : canonical(fields.price),
    freeUnits: fields.freeUnits === null ? null : canonical(fields.freeUnits),
  };
}

/** The package scheme's fields as sent: each null when left out. */
export interface PackageFields {
  packageSize: string | null;
  price: string | null;
  freeUnits: string | null;
}

/** A currency's prices checked field by field, before the scheme says which fields it needs. */
export interface CheckedVersionCurrency {
  currencyCode: string;
  isTaxInclusive: boolean | null;
  brackets: NewVersionCurrency['brackets'];
  packageFields: PackageFields;
}

/**
 * What a scheme needs of one currency's prices, each problem with its field below the currency (`at`): brackets
 * for unit, volume and stairstep (with stairstep's own rules), blocks for package, and none of the other's fields.
 */
export function schemeProblems(
  scheme: Scheme,
  at: string,
  prices: { brackets: readonly Bracket[]; packageFields: PackageFields },
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const { brackets, packageFields } = prices;
  if (scheme === 'package') {
    if (brackets.length > 0) {
      problems.push({
        field: `${at}.ComponentBracketPrices`,
        message: 'must be empty under the package scheme, which prices by PackageSize and Price',
      });
    }
    for (const field of ['packageSize', 'price'] as const) {
      if (packageFields[field] === null) {
        problems.push({
          field: `${at}.${WIRE_PACKAGE_FIELD[field]}`,
          message: `${WIRE_PACKAGE_FIELD[field]} is required under the package scheme`,
        });
      }
    }
    return problems;
  }
  for (const field of ['packageSize', 'price', 'freeUnits'] as const) {
    if (packageFields[field] !== null) {
      problems.push({
        field: `${at}.${WIRE_PACKAGE_FIELD[field]}`,
        message: `${WIRE_PACKAGE_FIELD[field]} is only for the package scheme; ${scheme} prices by ComponentBracketPrices`,
      });
    }
  }
  if (brackets.length === 0) {
    problems.push({ field: `${at}.ComponentBracketPrices`, message: 'at least one bracket is required' });
  }
  for (const problem of validateSchemeBrackets(scheme, brackets)) {
    problems.push({ field: bracketField(at, problem), message: problem.message });
  }
  return problems;
}

/** The checked prices as the scheme stores them, or problems naming each field that does not fit it. */
export function pricesForScheme(
  scheme: Scheme,
  path: string,
  prices: CheckedVersionCurrency[],
  problems: FieldProblem[],
): NewVersionCurrency[] {
  return prices.map((currency, index) => {
    problems.push(...schemeProblems(scheme, `${path}[${index}]`, currency));
    const { packageSize, price, freeUnits } = currency.packageFields;
    return {
      currencyCode: currency.currencyCode,
      isTaxInclusive: currency.isTaxInclusive,
      brackets: currency.brackets,
      pack:
        scheme === 'package' && packageSize !== null && price !== null
          ? { packageSize, price, freeUnits }
          : null,
    };
  });
}

/** `path` is where the list sits in the request, e.g. `ComponentVersion.ComponentVersionCurrencies`. */
export function checkedPrices(
  path: string,
  input: VersionCurrencyInput[],
  problems: FieldProblem[],
): CheckedVersionCurrency[] {
  const seen = new Set<string>();
  return input.map((currency, index) => {
    const at = `${path}[${index}]`;
    const code = currency.currencyCode.trim().toUpperCase();
    // A version has one price list per currency; a second would make the price of a quantity ambiguous.
    if (seen.has(code)) {
      problems.push({
        field: `${at}.CurrencyCode`,
        message: `${code} is listed twice; a version has one entry per currency`,
      });
    }
    seen.add(code);
    // An empty list is left to the scheme: package needs it empty, the others refuse it (schemeProblems).
    const brackets = currency.brackets.length === 0 ? [] : checkedBrackets(at, currency.brackets, problems);
    return {
      currencyCode: code,
      isTaxInclusive: currency.isTaxInclusive ?? null,
      brackets: brackets.map((b) => ({ ...b, flatPrice: b.flatPrice ?? null })),
      packageFields: checkedPack(at, currency, problems),
    };
  });
}

/** Prices only in the account's enabled currencies (as customers' currencies). */
export async function assertCurrenciesEnabled(
  ctx: ServiceContext,
  path: string,
  prices: { currencyCode: string }[],
): Promise<void> {
  for (const [index, price] of prices.entries()) {
    price.currencyCode = await assertCurrencyEnabled(
      ctx,
      price.currencyCode,
      `${path}[${index}].CurrencyCode`,
    );
  }
}

export function throwIfAny(problems: FieldProblem[]): void {
  if (problems.length > 0) throw new ValidationError(problems);
}
