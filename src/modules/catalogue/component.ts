import type { PackagePrice } from './packagePricing.ts';
import type { Bracket } from './pricing.ts';

/**
 * A component as the domain sees it, with its versions, their prices per currency and the brackets of each: made
 * from rows by the mappers of component.mapper.ts (`componentFromRow` and those it names), so no other module
 * reads the component tables' columns.
 */
export interface Component {
  id: number;
  packageGroupId: number;
  componentCode: string;
  name: string;
  descrip: string | null;
  isActive: boolean;
  unitName: string;
  term: number;
  /** As stored: one of the schema's TERM_TYPES, COMPONENT_TYPES and SCHEMES. */
  termType: string;
  type: string;
  scheme: string;
  createdAt: string;
  /** The billable metric a usage component's quantity is read from (docs/design/usage.md); null: set per period. */
  metricId: number | null;
  /** That metric's code (MetricCode on the wire), null when the component has none. */
  metricCode: string | null;
  versions: ComponentVersion[];
}

export interface ComponentVersion {
  id: number;
  componentId: number;
  versionNo: number;
  versionName: string;
  isDefault: boolean;
  isActive: boolean;
  createdAt: string;
  currencies: VersionCurrency[];
}

/** A version's price in one currency: its brackets, in id order, or its blocks under the package scheme. */
export interface VersionCurrency {
  id: number;
  componentVersionId: number;
  currencyCode: string;
  /** Whether the brackets' prices include tax; null follows the account's isTaxInclusive (docs/pricing.md). */
  isTaxInclusive: boolean | null;
  brackets: ComponentBracket[];
  /** PackageSize, Price and FreeUnits under the package scheme; null under the bracket schemes. */
  pack: PackagePrice | null;
}

/** Quantities and price are exact decimal strings (canonical, at most 15 significant digits). */
export interface ComponentBracket extends Bracket {
  flatPrice: string | null;
  id: number;
  componentVersionCurrencyId: number;
}

/** A component as its repository reads it, before its versions are nested in (component.service.ts). */
export type ComponentRecord = Omit<Component, 'versions' | 'metricCode'>;
/** A version as its repository reads it, before its prices are nested in. */
export type ComponentVersionRecord = Omit<ComponentVersion, 'currencies'>;
/** A version's currency as its repository reads it, before its brackets are nested in. */
export type VersionCurrencyRecord = Omit<VersionCurrency, 'brackets'>;

/** A component's own fields as a request sets them: PUT replaces them all, but componentCode left out stays. */
export interface ComponentFields {
  name: string;
  descrip: string | null;
  isActive: boolean;
  unitName: string;
  packageGroupId: number;
  term: number;
  termType: string;
  type: string;
  scheme: string;
  componentCode?: string;
  /** The linked billable metric; undefined keeps the current link (a PUT that leaves MetricCode out). */
  metricId?: number | null;
}

export interface NewComponent extends ComponentFields {
  accountId: number;
  componentCode: string;
  lastVersionNo: number;
  createdAt: string;
}

export interface NewComponentVersion {
  accountId: number;
  componentId: number;
  versionNo: number;
  versionName: string;
  isDefault: boolean;
  isActive: boolean;
  createdAt: string;
}

/** A component version with its component's names and scheme, as usage pricing reads them. */
export interface VersionOfComponent {
  id: number;
  componentId: number;
  versionNo: number;
  name: string;
  unitName: string;
  scheme: string;
}
