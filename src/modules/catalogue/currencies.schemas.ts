import { Type } from '@sinclair/typebox';

const CurrencyCode = Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 code, e.g. ZAR' });

export const CurrencyBody = Type.Object({ CurrencyCode });
export const CurrencyQuery = Type.Object({ CurrencyCode: Type.Optional(CurrencyCode) });
export const CurrencyOut = Type.Object(
  { CurrencyCode: Type.String(), Name: Type.String() },
  { $id: 'Currency' },
);
