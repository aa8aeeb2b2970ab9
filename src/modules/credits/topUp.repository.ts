import type { Db } from '../../storage/database.ts';
import type { SaleVatTreatment } from './credit.ts';

// Paid top-ups (docs/credits.md, "Paid top-ups"): the wallet_top_ups table, and the grants they made.

export interface TopUp {
  walletId: number;
  invoiceId: number;
  amountMinor: number;
  automatic: boolean;
  /** How the credit was sold (docs/tax.md, "Prepaid credit"). */
  vatTreatment: SaleVatTreatment;
}

export async function insertTopUp(db: Db, accountId: number, topUp: TopUp, now: string): Promise<void> {
  await db
    .insertInto('wallet_top_ups')
    .values({
      account_id: accountId,
      wallet_id: topUp.walletId,
      invoice_id: topUp.invoiceId,
      amount_minor: topUp.amountMinor,
      automatic: topUp.automatic,
      vat_treatment: topUp.vatTreatment,
      created_at: now,
    })
    .execute();
}

/** The invoices of the wallet's automatic top-ups whose grant is not yet made (docs/credits.md, "Automatic top-ups"). */
export async function unpaidAutomaticTopUps(db: Db, accountId: number, walletId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('wallet_top_ups')
    .leftJoin('credit_grants', 'credit_grants.top_up_invoice_id', 'wallet_top_ups.invoice_id')
    .select('wallet_top_ups.invoice_id')
    .where('wallet_top_ups.account_id', '=', accountId)
    .where('wallet_top_ups.wallet_id', '=', walletId)
    .where('wallet_top_ups.automatic', '=', true)
    .where('credit_grants.id', 'is', null)
    .execute();
  return rows.map((row) => Number(row.invoice_id));
}

export async function topUpsOfInvoices(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
): Promise<TopUp[]> {
  if (invoiceIds.length === 0) return [];
  const rows = await db
    .selectFrom('wallet_top_ups')
    .select(['wallet_id', 'invoice_id', 'amount_minor', 'automatic', 'vat_treatment'])
    .where('account_id', '=', accountId)
    .where('invoice_id', 'in', invoiceIds)
    .execute();
  return rows.map((row) => ({
    walletId: Number(row.wallet_id),
    invoiceId: Number(row.invoice_id),
    amountMinor: Number(row.amount_minor),
    automatic: Boolean(row.automatic),
    vatTreatment: row.vat_treatment as SaleVatTreatment,
  }));
}

/** The grants made by these top-up invoices, by invoice id. */
export async function grantIdsOfTopUps(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
): Promise<Map<number, number>> {
  if (invoiceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('credit_grants')
    .select(['id', 'top_up_invoice_id'])
    .where('account_id', '=', accountId)
    .where('top_up_invoice_id', 'in', invoiceIds)
    .execute();
  return new Map(rows.map((row) => [Number(row.top_up_invoice_id), Number(row.id)]));
}
