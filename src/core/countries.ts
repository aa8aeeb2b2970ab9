import reference from './reference/countries.json' with { type: 'json' };

/**
 * Countries (ISO 3166-1) and their subdivisions (ISO 3166-2), from Debian's iso-codes as copied into
 * reference/countries.json by scripts/generate-countries.mjs. These give `countryID` and `countryStateID`
 * (customers, tax rules) their meaning.
 *
 * Identifiers are computed from the codes, so they are stable across iso-codes releases and reversible:
 * - countryID is the ISO 3166-1 numeric code (South Africa: 710).
 * - countryStateID is countryID x 100000 + the subdivision's suffix (after the '-') read as base-37 digits,
 *   '0'-'9' being 1-10 and 'A'-'Z' 11-36. No digit is 0, so '1' and '01' differ, and the suffix (at most three
 *   characters, checked by the generator) stays below 37^3 = 50653 < 100000. ZA-WC: W = 33, C = 13, so
 *   33 x 37 + 13 = 1234 and the id is 71001234.
 */
export interface Country {
  id: number;
  alpha2: string;
  alpha3: string;
  name: string;
}

export interface CountryState {
  id: number;
  countryId: number;
  /** The full ISO 3166-2 code, e.g. ZA-WC. */
  code: string;
  name: string;
  /** The kind of subdivision as ISO names it (Province, State, Parish...). */
  type: string;
  /** The code of the subdivision this one lies in, for the few that have one (AZ-BAB lies in AZ-NX). */
  parentCode: string | null;
}

export const ISO_CODES_VERSION: string = reference.isoCodesVersion;

const STATE_BASE = 37;
const STATE_FACTOR = 100_000;
const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** The suffix of a subdivision code as a number (see above); undefined if it is not 1 to 3 of 0-9, A-Z. */
export function suffixValue(suffix: string): number | undefined {
  if (!/^[0-9A-Z]{1,3}$/.test(suffix)) return undefined;
  let value = 0;
  for (const char of suffix) value = value * STATE_BASE + DIGITS.indexOf(char) + 1;
  return value;
}

/** The suffix a value stands for; undefined when no suffix gives it (a digit 0, or more than three digits). */
export function suffixOfValue(value: number): string | undefined {
  if (!Number.isSafeInteger(value) || value < 1) return undefined;
  let suffix = '';
  for (let rest = value; rest > 0; rest = Math.floor(rest / STATE_BASE)) {
    const digit = rest % STATE_BASE;
    if (digit === 0) return undefined;
    suffix = DIGITS[digit - 1] + suffix;
  }
  return suffix.length <= 3 ? suffix : undefined;
}

const byAlpha2 = new Map<string, Country>();
const byId = new Map<number, Country>();
for (const [alpha2, alpha3, numeric, name] of reference.countries as [string, string, number, string][]) {
  const country = { id: numeric, alpha2, alpha3, name };
  byAlpha2.set(alpha2, country);
  byId.set(numeric, country);
}

const statesById = new Map<number, CountryState>();
const statesOfCountry = new Map<number, CountryState[]>();
for (const [code, name, type, parentCode] of reference.subdivisions as [string, string, string, string?][]) {
  const [alpha2 = '', suffix = ''] = code.split('-');
  const country = byAlpha2.get(alpha2);
  const value = suffixValue(suffix);
  if (!country || value === undefined) throw new Error(`countries.json: unexpected subdivision ${code}`);
  const state = {
    id: country.id * STATE_FACTOR + value,
    countryId: country.id,
    code,
    name,
    type,
    parentCode: parentCode ?? null,
  };
  statesById.set(state.id, state);
  const states = statesOfCountry.get(country.id) ?? [];
  if (states.length === 0) statesOfCountry.set(country.id, states);
  states.push(state);
}
for (const states of statesOfCountry.values()) states.sort((a, b) => (a.code < b.code ? -1 : 1));

// NOTE: names sort by an English collation fixed here, so the order does not depend on the server's locale.
const collator = new Intl.Collator('en', { sensitivity: 'base' });
const COUNTRIES_BY_NAME = [...byId.values()].sort(
  (a, b) => collator.compare(a.name, b.name) || (a.alpha2 < b.alpha2 ? -1 : 1),
);

/** Every country, ordered by name. */
export function listCountries(): readonly Country[] {
  return COUNTRIES_BY_NAME;
}

export function findCountry(countryId: number): Country | undefined {
  return byId.get(countryId);
}

/** By ISO 3166-1 alpha-2 code, in any case. */
export function findCountryByCode(alpha2: string): Country | undefined {
  return byAlpha2.get(alpha2.toUpperCase());
}

/** A country's subdivisions ordered by code; empty for a country without any (or an unknown one). */
export function listStates(countryId: number): readonly CountryState[] {
  return statesOfCountry.get(countryId) ?? [];
}

export function findState(countryStateId: number): CountryState | undefined {
  return statesById.get(countryStateId);
}

/** By ISO 3166-2 code (ZA-WC), in any case. */
export function findStateByCode(code: string): CountryState | undefined {
  const id = stateIdOfCode(code);
  return id === undefined ? undefined : statesById.get(id);
}

/** The countryStateID a subdivision code would have, whether or not ISO lists it. */
export function stateIdOfCode(code: string): number | undefined {
  const [alpha2 = '', suffix = '', ...rest] = code.toUpperCase().split('-');
  const country = byAlpha2.get(alpha2);
  const value = suffixValue(suffix);
  return country && value !== undefined && rest.length === 0 ? country.id * STATE_FACTOR + value : undefined;
}

/** The subdivision code a countryStateID stands for (the reverse of stateIdOfCode). */
export function codeOfStateId(countryStateId: number): string | undefined {
  if (!Number.isSafeInteger(countryStateId) || countryStateId < 1) return undefined;
  const country = byId.get(Math.floor(countryStateId / STATE_FACTOR));
  const suffix = suffixOfValue(countryStateId % STATE_FACTOR);
  return country && suffix ? `${country.alpha2}-${suffix}` : undefined;
}
