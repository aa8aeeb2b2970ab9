/**
 * The product catalogue: currencies, countries, taxes, package groups, packages and components. Routes:
 * currencies, countries, tax, packageGroups, packages, components and billableMetrics (`*.routes.ts`).
 */
export { checkCountryAndState } from './country.service.ts';
export { assertCurrencyEnabled, currencyProblems, enableAccountCurrency } from './currency.service.ts';
/**
 * The steps of the catalogue's changes that subscriptions or customers, above it, may keep from happening: each
 * takes what they keep, counted by its flow in the same transaction (src/flows/; docs/architecture.md, "Flows").
 */
export { currencyCodeOf, removeCurrency } from './currency.service.ts';
export type { Component, ComponentBracket, ComponentVersion, VersionCurrency } from './component.ts';
export {
  componentVersionIds,
  createComponent,
  editComponentRecord,
  getComponent,
} from './component.service.ts';
export { deleteComponentRecord } from './component.service.ts';
export { deleteComponentVersionRecord } from './componentVersion.service.ts';
export type { ComponentInput } from './componentInput.ts';
export type { UsagePricing } from './componentVersion.service.ts';
export { usagePricing } from './componentVersion.service.ts';
export type { TaxSetting } from './tax.service.ts';
export { createTaxSetting, listTaxSettings } from './tax.service.ts';
/** For the CLI's `billing tax` (docs/tax.md, "Rates that change on a date"). */
export { scheduleTaxRate, withdrawTaxRate } from './taxRate.service.ts';
export { listCurrencies } from './currency.service.ts';
export type { Package, PackageVersion, SubscriptionsByVersion } from './package.service.ts';
export { createPackage, deletePackageRecord, getPackage, packageVersionIds } from './package.service.ts';
export type { VersionInput as PackageVersionInput } from './packageInput.ts';
export { deletePackageVersionRecord, editPackageVersionRecord } from './packageVersion.service.ts';
export { createPackageGroup } from './packageGroup.service.ts';
export { keepCataloguePages, keptCataloguePages } from './cataloguePages.ts';
/** What events show of catalogue resources, read as their single GETs show them (src/readModels/). */
export { componentVersionsByIds, componentsByIds } from './component.service.ts';
export { toComponentDto, toComponentVersionDto } from './components.serializer.ts';
export { currencyRef, enabledCurrenciesByCodes } from './currency.service.ts';
export {
  packageNamesByIds,
  packageVersionsByIds,
  packagesByIds,
  rateTermsTaxInclusion,
} from './package.service.ts';
/** The catalogue's names other modules join in their own statements (docs/architecture.md, "Tables and their owners"). */
export { componentVersionNumbers, packageVersionNames } from './catalogueNames.ts';
export { toPackageDto, toVersionDto as toPackageVersionDto } from './packages.serializer.ts';
export { packageGroupsByIds } from './packageGroup.service.ts';
export { toPackageGroupDto } from './packageGroups.serializer.ts';
export { taxSettingsByIds } from './tax.service.ts';
export { toTaxSettingDto } from './tax.serializer.ts';

/** Every event type this module emits (docs/webhooks.md lists them; a test triggers each). */
export const CATALOGUE_EVENT_TYPES = [
  'package.created',
  'package.updated',
  'package.deleted',
  'package_version.created',
  'package_version.updated',
  'package_version.deleted',
  'package_group.created',
  'package_group.updated',
  'package_group.deleted',
  'component.created',
  'component.updated',
  'component.deleted',
  'component_version.created',
  'component_version.updated',
  'component_version.deleted',
  'tax_setting.created',
  'tax_setting.updated',
  'tax_setting.deleted',
  'billable_metric.created',
  'billable_metric.updated',
  'billable_metric.archived',
  'currency.added',
  'currency.removed',
] as const;
export type { PackagePrice } from './packagePricing.ts';
export { packageBlocks, pricePackage, validatePackagePrice } from './packagePricing.ts';
export type { Bracket, Scheme, Tier } from './pricing.ts';
export {
  PriceDecimal,
  PRICE_ZERO,
  chargedTiers,
  isScheme,
  parseQuantity,
  priceUsage,
  tiersOf,
  validateBrackets,
  validateSchemeBrackets,
} from './pricing.ts';
export type { BillableMetric, MetricAggregation, MetricFilter } from './billableMetric.ts';
export { METRIC_AGGREGATIONS } from './billableMetric.ts';
export { metricsByCodes, metricsByIds } from './billableMetric.repository.ts';
export type { BillableMetricEdit, BillableMetricInput } from './billableMetric.ts';
export {
  archiveBillableMetricRecord,
  billableMetricsByIds,
  componentIdsOfMetric,
  createBillableMetric,
  getBillableMetric,
} from './billableMetric.service.ts';
export { toBillableMetricDto } from './billableMetrics.serializer.ts';
export { metricCodesOfComponents, metricUsageConflict } from './componentMetric.service.ts';
export type { CatalogueCopy } from './catalogueCopy.repository.ts';
export { copyCatalogue } from './catalogueCopy.repository.ts';
