/**
 * A package as the domain sees it, with its versions, their rates per currency and the terms of each: made from
 * rows by the mappers of package.mapper.ts, so no other file reads the package tables' columns.
 */
export interface RateTerm {
  id: number;
  rateId: number;
  /** Exact decimal string. */
  chargePrice: string;
  chargeTerm: number;
  chargeTermType: string;
}

export interface VersionRate {
  id: number;
  packageId: number;
  currencyCode: string;
  /** Exact decimal strings. */
  setupFee: string;
  trialFee: string;
  trialPeriod: number;
  trialPeriodType: string;
  /** Whether the rate's prices include tax; null follows the account's isTaxInclusive (docs/pricing.md). */
  isTaxInclusive: boolean | null;
  terms: RateTerm[];
}

export interface PackageVersion {
  id: number;
  packageId: number;
  versionNo: number;
  versionName: string;
  isDefault: boolean;
  isActive: boolean;
  rates: VersionRate[];
}

export interface Package {
  id: number;
  packageGroupId: number;
  packageCode: string;
  name: string;
  descrip: string | null;
  isActive: boolean;
  versions: PackageVersion[];
}

/** A package as its repository reads it, before its versions are nested in (package.service.ts). */
export type PackageRecord = Omit<Package, 'versions'>;
/** A version as its repository reads it, before its rates are added. */
export type PackageVersionRecord = Omit<PackageVersion, 'rates'>;
/** A rate as its repository reads it: with the version it belongs to, before its terms are nested in. */
export type VersionRateRecord = Omit<VersionRate, 'terms'> & { packageVersionId: number };

/** A package's own fields as a request sets them; descrip undefined keeps the description on edit. */
export interface PackageFields {
  packageGroupId: number;
  packageCode: string;
  name: string;
  descrip?: string | null;
  isActive: boolean;
}

export interface NewPackage extends PackageFields {
  accountId: number;
  lastVersionNo: number;
  createdAt: string;
}

export interface PackageVersionFields {
  versionName: string;
  isDefault: boolean;
  isActive: boolean;
}

export interface NewPackageVersion extends PackageVersionFields {
  accountId: number;
  packageId: number;
  versionNo: number;
  createdAt: string;
}

/** A rate as a request gives it, checked: decimals as exact strings. */
export interface NewRate {
  currencyCode: string;
  setupFee: string;
  trialFee: string;
  trialPeriod: number;
  trialPeriodType: string;
  isTaxInclusive: boolean | null;
}

export interface NewRateTerm {
  chargePrice: string;
  chargeTerm: number;
  chargeTermType: string;
}
