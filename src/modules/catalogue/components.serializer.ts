import type { Component, ComponentVersion, VersionCurrency } from './component.service.ts';
import type { BracketInput, ComponentInput, VersionCurrencyInput } from './componentInput.ts';
import type { BracketRow } from './component.repository.ts';
import type {
  BracketOut,
  ComponentOut,
  CreateComponentBody,
  EditComponentBody,
  VersionCurrencyOut,
  VersionOut,
} from './components.schemas.ts';

type WireVersionCurrencies = NonNullable<
  CreateComponentBody['ComponentVersion']['ComponentVersionCurrencies']
>;

// Decimals are stored as canonical strings of at most 15 significant digits, so a JSON number carries them exactly.
function toBracketDto(row: BracketRow): BracketOut {
  return {
    componentBracketID: row.id,
    componentVersionCurrencyID: row.component_version_currency_id,
    Price: Number(row.price),
    QtyFrom: Number(row.qty_from),
    QtyTill: row.qty_till === null ? null : Number(row.qty_till),
  };
}

function toVersionCurrencyDto({ row, brackets }: VersionCurrency): VersionCurrencyOut {
  return {
    componentVersionCurrencyID: row.id,
    componentVersionID: row.component_version_id,
    CurrencyCode: row.currency_code,
    ComponentBracketPrices: brackets.map(toBracketDto),
  };
}

export function toComponentVersionDto({ row, currencies }: ComponentVersion): VersionOut {
  return {
    componentVersionID: row.id,
    componentID: row.component_id,
    VersionNo: row.version_no,
    VersionName: row.version_name,
    isDefault: Boolean(row.is_default),
    isActive: Boolean(row.is_active),
    ComponentVersionCurrencies: currencies.map(toVersionCurrencyDto),
  };
}

export function toComponentDto({ row, versions }: Component): ComponentOut {
  return {
    componentID: row.id,
    ComponentCode: row.component_code,
    Name: row.name,
    Descrip: row.descrip,
    isActive: Boolean(row.is_active),
    packageGroupID: row.package_group_id,
    UnitName: row.unit_name,
    Term: row.term,
    TermType: row.term_type as ComponentOut['TermType'],
    Type: row.type as ComponentOut['Type'],
    Scheme: row.scheme as ComponentOut['Scheme'],
    ComponentVersions: versions.map(toComponentVersionDto),
  };
}

export function componentInputFromWire(body: CreateComponentBody | EditComponentBody): ComponentInput {
  return {
    componentCode: body.ComponentCode,
    name: body.Name,
    type: body.Type,
    scheme: body.Scheme,
    unitName: body.UnitName,
    packageGroupId: body.packageGroupID,
    term: body.Term,
    termType: body.TermType,
    descrip: body.Descrip,
    isActive: body.isActive,
  };
}

export function versionCurrenciesFromWire(
  currencies: WireVersionCurrencies | undefined,
): VersionCurrencyInput[] | undefined {
  return currencies?.map((currency) => ({
    currencyCode: currency.CurrencyCode,
    brackets: currency.ComponentBracketPrices.map((bracket): BracketInput => ({
      price: bracket.Price,
      qtyFrom: bracket.QtyFrom,
      qtyTill: bracket.QtyTill,
    })),
  }));
}
