import type { Component, ComponentBracket, ComponentVersion, VersionCurrency } from './component.ts';
import type { BracketInput, ComponentInput, VersionCurrencyInput } from './componentInput.ts';
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
function toBracketDto(bracket: ComponentBracket): BracketOut {
  return {
    componentBracketID: bracket.id,
    componentVersionCurrencyID: bracket.componentVersionCurrencyId,
    Price: Number(bracket.price),
    QtyFrom: Number(bracket.qtyFrom),
    QtyTill: bracket.qtyTill === null ? null : Number(bracket.qtyTill),
    // New fields appear only when set, so responses about existing prices stay as they were.
    ...(bracket.flatPrice === null ? {} : { FlatPrice: Number(bracket.flatPrice) }),
  };
}

function toVersionCurrencyDto(currency: VersionCurrency): VersionCurrencyOut {
  return {
    componentVersionCurrencyID: currency.id,
    componentVersionID: currency.componentVersionId,
    CurrencyCode: currency.currencyCode,
    // Shown only when the currency sets it, so that one following the account reads as before.
    ...(currency.isTaxInclusive === null ? {} : { isTaxInclusive: currency.isTaxInclusive }),
    ComponentBracketPrices: currency.brackets.map(toBracketDto),
    ...(currency.pack && {
      PackageSize: Number(currency.pack.packageSize),
      Price: Number(currency.pack.price),
      FreeUnits: Number(currency.pack.freeUnits ?? '0'),
    }),
  };
}

export function toComponentVersionDto(version: ComponentVersion): VersionOut {
  return {
    componentVersionID: version.id,
    componentID: version.componentId,
    VersionNo: version.versionNo,
    VersionName: version.versionName,
    isDefault: version.isDefault,
    isActive: version.isActive,
    ComponentVersionCurrencies: version.currencies.map(toVersionCurrencyDto),
  };
}

export function toComponentDto(component: Component): ComponentOut {
  return {
    componentID: component.id,
    ComponentCode: component.componentCode,
    Name: component.name,
    Descrip: component.descrip,
    isActive: component.isActive,
    packageGroupID: component.packageGroupId,
    UnitName: component.unitName,
    Term: component.term,
    TermType: component.termType as ComponentOut['TermType'],
    Type: component.type as ComponentOut['Type'],
    Scheme: component.scheme as ComponentOut['Scheme'],
    MetricCode: component.metricCode,
    ComponentVersions: component.versions.map(toComponentVersionDto),
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
    metricCode: body.MetricCode,
  };
}

export function versionCurrenciesFromWire(
  currencies: WireVersionCurrencies | undefined,
): VersionCurrencyInput[] | undefined {
  return currencies?.map((currency) => ({
    currencyCode: currency.CurrencyCode,
    isTaxInclusive: currency.isTaxInclusive,
    brackets: (currency.ComponentBracketPrices ?? []).map((bracket): BracketInput => ({
      price: bracket.Price,
      qtyFrom: bracket.QtyFrom,
      qtyTill: bracket.QtyTill,
      flatPrice: bracket.FlatPrice,
    })),
    packageSize: currency.PackageSize,
    price: currency.Price,
    freeUnits: currency.FreeUnits,
  }));
}
