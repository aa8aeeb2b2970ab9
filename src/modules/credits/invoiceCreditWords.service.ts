import type { ServiceContext } from '../../context.ts';
import { invoiceNumbersByIds } from '../invoicing/index.ts';
import type { InvoiceCreditWords } from '../invoicing/index.ts';
import { creditsOnInvoiceDocuments } from '../ledger/index.ts';
import type { InvoiceCreditOnDocument } from '../ledger/index.ts';
import * as repo from './credit.repository.ts';
import type { CreditGrant } from './credit.repository.ts';
import { prepaidCreditOnInvoices } from './consumption.service.ts';
import * as topUpRepo from './topUp.repository.ts';

/**
 * Invoicing's port for documents (docs/tax.md, "What an invoice shows"): what prepaid credit pays on each invoice,
 * whether it sells credit (and how), and each credit that took VAT off it, in the words its PDF prints.
 */
export async function creditWordsOfInvoices(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Map<number, InvoiceCreditWords>> {
  const prepaid = await prepaidCreditOnInvoices(ctx, invoiceIds);
  const sales = await prepaidCreditSales(ctx, invoiceIds);
  const credits = await creditsOnInvoiceDocuments(ctx, invoiceIds);
  const label = await creditLabels(ctx, [...credits.values()].flat());
  const words = new Map<number, InvoiceCreditWords>();
  for (const invoiceId of invoiceIds) {
    const vatCredits = (credits.get(invoiceId) ?? [])
      .filter((credit) => credit.taxMinor !== 0)
      .map((credit) => ({
        label: label(credit),
        amountMinor: credit.amountMinor,
        taxMinor: credit.taxMinor,
      }));
    const said = {
      prepaidCreditMinor: prepaid.get(invoiceId) ?? 0,
      sale: sales.get(invoiceId) ?? null,
      vatCredits,
    };
    if (said.prepaidCreditMinor !== 0 || said.sale !== null || vatCredits.length > 0)
      words.set(invoiceId, said);
  }
  return words;
}

/** How a document names a credit: its tax credit note, or prepaid credit shown on the invoice itself. */
async function creditLabels(
  ctx: ServiceContext,
  credits: readonly InvoiceCreditOnDocument[],
): Promise<(credit: InvoiceCreditOnDocument) => string> {
  const grantIds = [
    ...new Set(credits.filter((c) => c.source.type === 'credit_grant').map((c) => c.source.id)),
  ];
  const grants = new Map((await repo.findGrants(ctx.db, ctx.account.id, grantIds)).map((g) => [g.id, g]));
  const topUpInvoices = [...grants.values()].flatMap((g) =>
    g.topUpInvoiceId === null ? [] : [g.topUpInvoiceId],
  );
  const numbers = await invoiceNumbersByIds(ctx, topUpInvoices);
  const prepaidWords = (grant: CreditGrant | undefined) => {
    if (grant?.vatTreatment === 'discount') return 'promotional credit (a discount)';
    const sold = grant?.topUpInvoiceId == null ? null : numbers.get(grant.topUpInvoiceId);
    return `prepaid credit sold with VAT${sold == null ? '' : ` (invoice ${sold})`}`;
  };
  return (credit) => {
    const grant = credit.source.type === 'credit_grant' ? grants.get(credit.source.id) : undefined;
    if (credit.taxCreditNote === null) return prepaidWords(grant);
    const note = `credit note ${credit.taxCreditNote.creditNumber}`;
    return credit.source.type === 'credit_grant' ? `${note}, ${prepaidWords(grant)}` : note;
  };
}

/** How each of these invoices sells prepaid credit (docs/tax.md, "Prepaid credit"), by id; others are absent. */
export async function prepaidCreditSales(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Map<number, 'when_sold' | 'when_used'>> {
  return new Map(
    (await topUpRepo.topUpsOfInvoices(ctx.db, ctx.account.id, invoiceIds)).map((topUp) => [
      topUp.invoiceId,
      topUp.vatTreatment,
    ]),
  );
}

/** The grants among these that are money (taxed when used, section 10(18)): their consumption is a payment. */
export async function grantsThatAreMoney(
  ctx: ServiceContext,
  grantIds: readonly number[],
): Promise<Set<number>> {
  const grants = await repo.findGrants(ctx.db, ctx.account.id, [...new Set(grantIds)]);
  return new Set(grants.filter((grant) => grant.vatTreatment === 'when_used').map((grant) => grant.id));
}
