import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { PagingQuery, pageOf } from '../../http/schemas.ts';
import { listCountryPage, listStatePage } from './country.service.ts';
import type { Country, CountryState } from './country.service.ts';
import { CountryIdParams, CountryOut, CountryStateOut } from './countries.schemas.ts';

const tags = ['Countries'];

function toCountryDto(country: Country): CountryOut {
  return { countryID: country.id, Code: country.alpha2, Code3: country.alpha3, Name: country.name };
}

function toCountryStateDto(state: CountryState): CountryStateOut {
  return {
    countryStateID: state.id,
    countryID: state.countryId,
    Code: state.code,
    Name: state.name,
    Type: state.type,
  };
}

/** Beyond the spec: the reference lists that give customers' and tax rules' countryID and countryStateID meaning. */
export function registerCountryRoutes(app: App): void {
  app.get(
    '/countries',
    {
      schema: {
        summary: 'List countries',
        operationId: 'listCountries',
        tags,
        description: 'ISO 3166-1 countries ordered by name; countryID is the numeric code.',
        querystring: PagingQuery,
        response: { 200: Type.Array(CountryOut) },
      },
    },
    async (request) => listCountryPage(pageOf(request.query)).map(toCountryDto),
  );

  app.get(
    '/countries/:countryID/states',
    {
      schema: {
        summary: "List a country's states",
        operationId: 'listCountryStates',
        tags,
        description: "A country's ISO 3166-2 subdivisions ordered by code; 404 for an unknown country.",
        params: CountryIdParams,
        querystring: PagingQuery,
        response: { 200: Type.Array(CountryStateOut) },
      },
    },
    async (request) => listStatePage(request.params.countryID, pageOf(request.query)).map(toCountryStateDto),
  );
}
