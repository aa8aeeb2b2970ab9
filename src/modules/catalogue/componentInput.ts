import Big from 'big.js';
import { MAX_PRICE } from '../../core/money.ts';
import { SCHEMES, validateBrackets } from '../../core/pricing.ts';
import type { Bracket, BracketProblem, Scheme } from '../../core/pricing.ts';
import { optionalText, requiredText } from '../../core/text.ts';
import { readWireDecimal } from '../../core/wireDecimal.ts';
import type { ServiceContext } from '../../context.ts';
import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { ComponentChanges, NewVersionCurrency } from './component.repository.ts';
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
}

/** Decimals as the wire carries them: JSON numbers, or strings for clients that keep decimals exact. */
export interface BracketInput {
  price: number | string;
  qtyFrom: number | string;
  qtyTill?: number | string | null;
}

export interface VersionCurrencyInput {
  currencyCode: string;
  isTaxInclusive?: boolean | null;
  brackets: BracketInput[];
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

/** The component's columns; PUT replaces them all (Descrip left out is null, isActive left out is false). */
export function checkedComponent(input: ComponentInput, problems: FieldProblem[]): ComponentChanges {
  const type = typeOf(input.type);
  if (!type) {
    problems.push({
      field: 'Type',
      message: `must be one of ${COMPONENT_TYPES.join(', ')} (case, spaces and hyphens aside)`,
    });
  }
  const changes: ComponentChanges = {
    name: requiredText(input.name, 'Name', problems),
    descrip: optionalText(input.descrip) ?? null,
    // Spec, Components POST and PUT: isActive defaults to false when unset.
    is_active: input.isActive ?? false,
    unit_name: requiredText(input.unitName, 'UnitName', problems),
    package_group_id: input.packageGroupId,
    term: input.term,
    term_type: oneOf(TERM_TYPES, input.termType, 'TermType', problems),
    type: type ?? input.type,
    scheme: oneOf<Scheme>(SCHEMES, input.scheme, 'Scheme', problems),
  };
  if (input.componentCode !== undefined) {
    changes.component_code = requiredText(input.componentCode, 'ComponentCode', problems);
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

const WIRE_BRACKET_FIELD = { qtyFrom: 'QtyFrom', qtyTill: 'QtyTill', price: 'Price' } as const;

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
  }));
  // The bracket rules are the pricing module's (src/core/pricing.ts); each problem names its bracket.
  const found = validateBrackets(brackets);
  for (const problem of found)
    problems.push({ field: bracketField(path, problem), message: problem.message });
  if (found.length > 0) return brackets;

  brackets.forEach((bracket, index) => {
    if (new Big(bracket.price).gt(new Big(MAX_PRICE))) {
      problems.push({
        field: bracketField(path, { index, field: 'price' }),
        message: `must be at most ${MAX_PRICE}`,
      });
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
  }));
}

/** `path` is where the list sits in the request, e.g. `ComponentVersion.ComponentVersionCurrencies`. */
export function checkedPrices(
  path: string,
  input: VersionCurrencyInput[],
  problems: FieldProblem[],
): NewVersionCurrency[] {
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
    return {
      currencyCode: code,
      isTaxInclusive: currency.isTaxInclusive ?? null,
      brackets: checkedBrackets(at, currency.brackets, problems),
    };
  });
}

/** Prices only in the account's enabled currencies (as customers' currencies). */
export async function assertCurrenciesEnabled(
  ctx: ServiceContext,
  path: string,
  prices: NewVersionCurrency[],
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
