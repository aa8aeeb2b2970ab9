import type { Insertable, Selectable, Updateable } from 'kysely';
import type {
  PackageRateTermsTable,
  PackageVersionRatesTable,
  PackageVersionsTable,
  PackagesTable,
} from './tables.ts';
import type {
  NewPackage,
  NewPackageVersion,
  NewRate,
  NewRateTerm,
  PackageFields,
  PackageRecord,
  PackageVersionFields,
  PackageVersionRecord,
  RateTerm,
  VersionRateRecord,
} from './package.ts';

// The package tables' columns become the domain's names here, and nowhere else.

export function packageFromRow(
  row: Pick<
    Selectable<PackagesTable>,
    'id' | 'package_group_id' | 'package_code' | 'name' | 'descrip' | 'is_active'
  >,
): PackageRecord {
  return {
    id: row.id,
    packageGroupId: row.package_group_id,
    packageCode: row.package_code,
    name: row.name,
    descrip: row.descrip,
    isActive: Boolean(row.is_active),
  };
}

export function packageVersionFromRow(
  row: Pick<
    Selectable<PackageVersionsTable>,
    'id' | 'package_id' | 'version_no' | 'version_name' | 'is_default' | 'is_active'
  >,
): PackageVersionRecord {
  return {
    id: row.id,
    packageId: row.package_id,
    versionNo: row.version_no,
    versionName: row.version_name,
    isDefault: Boolean(row.is_default),
    isActive: Boolean(row.is_active),
  };
}

/** A rate read with its version's package (the wire shows packageID on rates). */
export function versionRateFromRow(
  row: Omit<Selectable<PackageVersionRatesTable>, 'account_id'> & { package_id: number },
): VersionRateRecord {
  return {
    id: row.id,
    packageVersionId: row.package_version_id,
    packageId: row.package_id,
    currencyCode: row.currency_code,
    setupFee: row.setup_fee,
    trialFee: row.trial_fee,
    trialPeriod: row.trial_period,
    trialPeriodType: row.trial_period_type,
    isTaxInclusive: row.is_tax_inclusive === null ? null : Boolean(row.is_tax_inclusive),
  };
}

export function rateTermFromRow(row: Omit<Selectable<PackageRateTermsTable>, 'account_id'>): RateTerm {
  return {
    id: row.id,
    rateId: row.package_rate_id,
    chargePrice: row.charge_price,
    chargeTerm: row.charge_term,
    chargeTermType: row.charge_term_type,
  };
}

/** The columns of a package's own fields; descrip only when given (undefined keeps it on edit). */
export function packageFieldsToRow(
  fields: PackageFields,
): Updateable<Pick<PackagesTable, 'package_group_id' | 'package_code' | 'name' | 'descrip' | 'is_active'>> {
  return {
    package_group_id: fields.packageGroupId,
    package_code: fields.packageCode,
    name: fields.name,
    is_active: fields.isActive,
    ...(fields.descrip === undefined ? {} : { descrip: fields.descrip }),
  };
}

export function newPackageToRow(pkg: NewPackage): Insertable<PackagesTable> {
  return {
    account_id: pkg.accountId,
    descrip: pkg.descrip ?? null,
    package_group_id: pkg.packageGroupId,
    package_code: pkg.packageCode,
    name: pkg.name,
    is_active: pkg.isActive,
    last_version_no: pkg.lastVersionNo,
    created_at: pkg.createdAt,
  };
}

export function packageVersionFieldsToRow(
  fields: PackageVersionFields,
): Updateable<Pick<PackageVersionsTable, 'version_name' | 'is_default' | 'is_active'>> {
  return { version_name: fields.versionName, is_default: fields.isDefault, is_active: fields.isActive };
}

export function newPackageVersionToRow(version: NewPackageVersion): Insertable<PackageVersionsTable> {
  return {
    account_id: version.accountId,
    package_id: version.packageId,
    version_no: version.versionNo,
    version_name: version.versionName,
    is_default: version.isDefault,
    is_active: version.isActive,
    created_at: version.createdAt,
  };
}

export function newRateToRow(
  rate: NewRate,
  accountId: number,
  versionId: number,
): Insertable<PackageVersionRatesTable> {
  return {
    currency_code: rate.currencyCode,
    setup_fee: rate.setupFee,
    trial_fee: rate.trialFee,
    trial_period: rate.trialPeriod,
    trial_period_type: rate.trialPeriodType,
    is_tax_inclusive: rate.isTaxInclusive,
    account_id: accountId,
    package_version_id: versionId,
  };
}

export function newRateTermToRow(
  term: NewRateTerm,
  accountId: number,
  rateId: number,
): Insertable<PackageRateTermsTable> {
  return {
    charge_price: term.chargePrice,
    charge_term: term.chargeTerm,
    charge_term_type: term.chargeTermType,
    account_id: accountId,
    package_rate_id: rateId,
  };
}
