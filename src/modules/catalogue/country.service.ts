import type { FieldProblem } from '../../errors.ts';
import { NotFoundError } from '../../errors.ts';
import type { Page } from '../../core/paging.ts';
import { codeOfStateId, findCountry, findState, listCountries, listStates } from '../../core/countries.ts';
import type { Country, CountryState } from '../../core/countries.ts';

export type { Country, CountryState };

/** Countries ordered by name (GET /v1/countries). The list is reference data, the same for every account. */
export function listCountryPage(page: Page): Country[] {
  return listCountries().slice(page.offset, page.offset + page.limit);
}

/** A country's states ordered by code; an unknown country is a 404 (a country without states is an empty list). */
export function listStatePage(countryId: number, page: Page): CountryState[] {
  if (!findCountry(countryId)) throw new NotFoundError('Country', countryId);
  return listStates(countryId).slice(page.offset, page.offset + page.limit);
}

/** The wire names of a country and state pair: `countryID` on a customer, `rules[2].countryID` on a tax rule. */
export interface CountryFields {
  country: string;
  state: string;
}

/**
 * What is wrong with a country and state pair (empty when nothing): an unknown country, an unknown state, a
 * state of another country, or a state without its country. A state needs its country rather than implying it:
 * taxes resolve by country first, and a record whose state and country disagree (or whose country is missing)
 * would be taxed by the wrong rule.
 */
export function checkCountryAndState(
  countryId: number | null | undefined,
  countryStateId: number | null | undefined,
  fields: CountryFields = { country: 'countryID', state: 'countryStateID' },
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const country = countryId == null ? undefined : findCountry(countryId);
  if (countryId != null && !country) {
    problems.push({
      field: fields.country,
      message: `${countryId} is not an ISO 3166-1 numeric country code (GET /v1/countries lists them)`,
    });
  }
  if (countryStateId == null) return problems;
  const state = findState(countryStateId);
  if (!state) {
    const code = codeOfStateId(countryStateId);
    problems.push({
      field: fields.state,
      message: `${countryStateId}${code ? ` (${code})` : ''} is not a known state (GET /v1/countries/{countryID}/states lists them)`,
    });
    return problems;
  }
  const home = findCountry(state.countryId)!;
  if (countryId == null) {
    problems.push({
      field: fields.state,
      message: `needs ${fields.country} too: ${state.code} is in ${home.name} (${fields.country} ${home.id})`,
    });
  } else if (country && country.id !== state.countryId) {
    problems.push({
      field: fields.state,
      message: `${state.code} is in ${home.name} (${home.id}), not in ${country.name} (${country.id})`,
    });
  }
  return problems;
}
