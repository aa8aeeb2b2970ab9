import type { App } from '../../http/types.ts';
import { registerCurrencyRoutes } from './currencies.routes.ts';

/** The product catalogue: currencies (packages, components and taxes follow). */
export function registerCatalogueModule(app: App): void {
  registerCurrencyRoutes(app);
}

export { assertCurrencyEnabled, enableAccountCurrency } from './currency.service.ts';
