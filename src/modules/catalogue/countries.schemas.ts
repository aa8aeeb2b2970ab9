import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Id } from '../../http/schemas.ts';

export const CountryOut = Type.Object(
  {
    countryID: Type.Integer({ description: 'ISO 3166-1 numeric code' }),
    Code: Type.String({ description: 'ISO 3166-1 alpha-2 code, e.g. ZA' }),
    Code3: Type.String({ description: 'ISO 3166-1 alpha-3 code, e.g. ZAF' }),
    Name: Type.String(),
  },
  { $id: 'Country' },
);

export const CountryStateOut = Type.Object(
  {
    countryStateID: Type.Integer({
      description:
        "countryID x 100000 + the code's suffix read as base-37 digits ('0'-'9' = 1-10, 'A'-'Z' = 11-36)",
    }),
    countryID: Type.Integer(),
    Code: Type.String({ description: 'ISO 3166-2 code, e.g. ZA-WC' }),
    Name: Type.String(),
    Type: Type.String({ description: 'Kind of subdivision as ISO names it: Province, State, Parish...' }),
  },
  { $id: 'CountryState' },
);

export const CountryIdParams = Type.Object({ countryID: Id({ description: 'ISO 3166-1 numeric code' }) });

export type CountryOut = Static<typeof CountryOut>;
export type CountryStateOut = Static<typeof CountryStateOut>;
