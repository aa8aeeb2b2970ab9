/**
 * Prepaid credit (docs/credits.md): wallets, credit grants as a source of the ledger's allocations, their
 * append-only journal, paid top-ups and expiry. Routes: credits.routes.ts.
 */
export type { CreditEntry, CreditGrant, Wallet } from './credit.repository.ts';
export type { GrantView } from './grant.service.ts';
export type { PreviewedInvoice } from './consumption.service.ts';
export type { WalletView } from './wallet.service.ts';
export type { TopUpMade } from './topUp.service.ts';
/** What the customer portal shows of a customer's wallets and sells of them (docs/portal.md, "Prepaid credit"). */
export { getWallet, listWallets } from './wallet.service.ts';
export { listEntries, listGrants } from './grant.service.ts';
export { createTopUp } from './topUp.service.ts';
export { TOP_UP_LINE } from './topUpInvoice.ts';
/** What events show of wallets and grants (src/readModels/). */
export { grantsByIds } from './grant.service.ts';
export { walletsByIds } from './wallet.service.ts';
export { toGrantDto, toWalletDto } from './credits.serializer.ts';
/** The ports of invoicing and the ledger it fills (src/modulePorts.ts). */
export {
  payFromGrants,
  payIssuedInvoices,
  payableLinesOf,
  previewGrantCredit,
  releaseCreditForCreditNote,
  releaseCreditOfInvoice,
  statementCreditRecordsOf,
} from './consumption.service.ts';
export { creditWordsOfInvoices } from './invoiceCreditWords.service.ts';
/** For the VAT report (docs/tax.md): which invoices sell credit, and which credit is money. */
export { grantsThatAreMoney, prepaidCreditSales } from './invoiceCreditWords.service.ts';
export { grantPaidTopUps, voidUnpaidTopUps } from './topUp.service.ts';
export { creditTopUpInvoices } from './topUpCredit.service.ts';
/** For collections' refunds: a top-up invoice a refund must not reopen. */
export { topUpInvoicesHoldingCredit } from './topUpCredit.service.ts';
/** For collections' refund of a paid grant's unused credit through the gateway (grantRefund.service.ts). */
export type { TopUpRefund } from './topUpRefund.service.ts';
export { planTopUpRefund } from './topUpRefund.service.ts';
export { getGrant } from './grant.service.ts';
export { GrantOut } from './credits.schemas.ts';
/** For the collection loop: an automatic top-up's declined charge told on its wallet. */
export { autoTopUpDeclinedEvents } from './walletBalance.service.ts';
/**
 * For the collection loop's daily pass of open invoices: where customers hold grants that may still pay; and, for
 * src/modulePorts.ts, the port through which it says which invoices are being collected now (docs/credits.md,
 * "Consumption order").
 */
export { customersHoldingGrantCredit, topUpInvoicesAmong } from './openInvoices.service.ts';
export type { CreditPorts, InvoicesBeingCollected } from './ports.ts';
/** The daily run's and the test clock's expiry of grants (src/billing/). */
export { expireCreditGrants } from './expiry.service.ts';

/** Every event type this module emits (docs/event-catalogue.md lists them). */
export const CREDIT_EVENT_TYPES = [
  'wallet.created',
  'wallet.updated',
  'credit_grant.created',
  'credit_grant.consumed',
  'credit_grant.released',
  'credit_grant.expired',
  'credit_grant.voided',
  'credit_grant.refunded',
  'credit_grant.refund_undone',
  'wallet.balance_low',
  'wallet.auto_top_up_started',
  'wallet.auto_top_up_failed',
] as const;
