/* What the invoice e-mails read beyond the invoice row. */
import type { Db } from '../../storage/database.ts';

/** The invoices among `invoiceIds` with at least one tax-inclusive line. */
export async function invoicesWithInclusivePrices(
  db: Db,
  accountId: number,
  invoiceIds: number[],
): Promise<Set<number>> {
  if (invoiceIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('invoice_charges')
    .select('invoice_id')
    .distinct()
    .where('account_id', '=', accountId)
    .where('invoice_id', 'in', invoiceIds)
    .where('is_tax_inclusive', '=', true)
    .execute();
  return new Set(rows.map((row) => row.invoice_id));
}
