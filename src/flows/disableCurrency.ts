import { withTransaction } from '../context.ts';
import type { ServiceContext } from '../context.ts';
import { currencyCodeOf, removeCurrency } from '../modules/catalogue/index.ts';
import { countCustomersWithCurrency } from '../modules/customers/index.ts';

/**
 * DELETE /v1/currencies (docs/architecture.md, "Flows"): in one transaction, the customers billed in the currency
 * counted, then the catalogue's removal, which refuses a currency in use (409 `currency_in_use`).
 */
export async function disableCurrency(ctx: ServiceContext, code: string): Promise<void> {
  const known = currencyCodeOf(code);
  await withTransaction(ctx, async (tctx) => {
    const customers = await countCustomersWithCurrency(tctx, known);
    await removeCurrency(tctx, known, { customers });
  });
}
