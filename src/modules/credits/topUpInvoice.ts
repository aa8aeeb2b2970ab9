import { nowInstant, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { taxesFor } from '../../core/tax.ts';
import { listTaxSettings } from '../catalogue/index.ts';
import { getCustomer } from '../customers/index.ts';
import { emitEvents } from '../events/index.ts';
import { insertInvoices, queueInvoiceMails } from '../invoicing/index.ts';
import * as topUpRepo from './topUp.repository.ts';

/** The one line of a paid top-up's invoice (docs/credits.md, "Paid top-ups"). */
export const TOP_UP_LINE = 'Prepaid credit';

/** The card an automatic top-up's invoice is charged to (docs/credits.md, "Automatic top-ups"). */
export interface TopUpCard {
  gatewayId: number;
  paymentMethodId: number;
}

/**
 * Inserts the invoice that sells `amountMinor` of credit and its top-up, under the customer's lock the caller holds;
 * with a card, an automatic top-up: the invoice names the card and falls due today, so the collection loop charges
 * it at its next run (docs/gateways.md, "The collection loop").
 *
 * The customer pays what it gets: the invoice's Total is the credit, whichever way the account taxes it (docs/tax.md,
 * "Prepaid credit"). Sold with VAT (when_sold), its one line includes the customer's taxes, as a voucher's price
 * does; taxed when used (when_used), it carries none: it is no supply, and the invoices the credit pays carry theirs.
 */
export async function insertTopUpInvoice(
  ctx: ServiceContext,
  wallet: { id: number; customerId: number; currencyCode: string },
  amountMinor: number,
  card: TopUpCard | null,
): Promise<number> {
  const customer = await getCustomer(ctx, wallet.customerId);
  const vatTreatment = ctx.account.vat.prepaidCredit;
  const taxes = vatTreatment === 'when_sold' ? taxesFor(await listTaxSettings(ctx), customer) : [];
  const [id] = await insertInvoices(
    ctx,
    [
      {
        customerId: wallet.customerId,
        currencyCode: wallet.currencyCode,
        invoiceDate: today(ctx),
        source: 'App',
        isDraft: false,
        charges: [
          {
            descrip: TOP_UP_LINE,
            qty: '1',
            unitCostEx: minorToDecimalText(amountMinor, wallet.currencyCode),
            isTaxInclusive: taxes.length > 0,
          },
        ],
        taxes,
        ...(card
          ? {
              dueDate: today(ctx),
              collectionMethod: 'credit_card',
              gatewayId: card.gatewayId,
              customerPaymentMethodId: card.paymentMethodId,
            }
          : {}),
      },
    ],
    { payWithCredit: false },
  );
  await topUpRepo.insertTopUp(
    ctx.db,
    ctx.account.id,
    { walletId: wallet.id, invoiceId: id!, amountMinor, automatic: card !== null, vatTreatment },
    nowInstant(ctx),
  );
  // E-mailed as any invoice to a customer who gets its invoices so (docs/tax.md, "What customers are told"): one
  // paying by EFT learns what to pay.
  const sent = await queueInvoiceMails(ctx, [id!]);
  await emitEvents(
    ctx,
    sent.map((invoiceId) => ({ type: 'invoice.sent', ref: { type: 'invoice', id: invoiceId } })),
  );
  return id!;
}
