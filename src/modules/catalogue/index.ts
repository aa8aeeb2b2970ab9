import type { App } from '../../http/types.ts';
import { registerComponentRoutes } from './components.routes.ts';
import { registerCountryRoutes } from './countries.routes.ts';
import { registerCurrencyRoutes } from './currencies.routes.ts';
import { registerPackageGroupRoutes } from './packageGroups.routes.ts';
import { registerPackageRoutes } from './packages.routes.ts';
import { registerTaxRoutes } from './tax.routes.ts';

/** The product catalogue: currencies, countries, taxes, package groups, packages and components. */
export function registerCatalogueModule(app: App): void {
  registerCurrencyRoutes(app);
  registerCountryRoutes(app);
  registerTaxRoutes(app);
  registerPackageGroupRoutes(app);
  registerPackageRoutes(app);
  registerComponentRoutes(app);
}

export { checkCountryAndState } from './country.service.ts';
export { assertCurrencyEnabled, enableAccountCurrency } from './currency.service.ts';
export type { UsagePricing } from './component.service.ts';
export { usagePricing } from './component.service.ts';
export { listTaxSettings } from './tax.service.ts';
export type { Package, PackageVersion } from './package.service.ts';
export { getPackage } from './package.service.ts';
export type { Component, ComponentVersion } from './component.service.ts';
export { getComponent } from './component.service.ts';
