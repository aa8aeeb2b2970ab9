import type { App } from '../../http/types.ts';

/** Customers' stored payment methods: cards (kept in the gateway's vault) and bank accounts (sealed at rest). */
export function registerPaymentMethodsModule(app: App): void {
  void app;
}
