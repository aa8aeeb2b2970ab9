/**
 * The product catalogue: currencies, countries, taxes, package groups, packages and components. Routes:
 * currencies, countries, tax, packageGroups, packages and components (`*.routes.ts`).
 */
export type { CatalogueUses } from './catalogueUses.ts';
export { registerCatalogueUses } from './catalogueUses.ts';
export { checkCountryAndState } from './country.service.ts';
export { assertCurrencyEnabled, enableAccountCurrency } from './currency.service.ts';
export type { Component, ComponentVersion } from './component.service.ts';
export { createComponent, getComponent } from './component.service.ts';
export type { UsagePricing } from './componentVersion.service.ts';
export { usagePricing } from './componentVersion.service.ts';
export { createTaxSetting, listTaxSettings } from './tax.service.ts';
export type { Package, PackageVersion } from './package.service.ts';
export { createPackage, getPackage } from './package.service.ts';
export { createPackageGroup } from './packageGroup.service.ts';
