import type { EventObjectRenderer } from '../modules/events/index.ts';
import { recurringInvoicesByIds, toInvoiceDto, toRecurringInvoiceDto } from '../modules/invoicing/index.ts';
import {
  adjustmentsByIds,
  creditNotesByIds,
  paymentsByIds,
  taxCreditNotesByIds,
  toAdjustmentDetailDto,
  toCreditNoteDto,
  toPaymentDto,
  toTaxCreditNoteDto,
} from '../modules/ledger/index.ts';
import { toPaymentMethodDto, unopenedPaymentMethodsByIds } from '../modules/paymentMethods/index.ts';
import { subscriptionsByIds, toSubscriptionDto } from '../modules/subscriptions/index.ts';
import { batchesByTokens, toBatchDto } from '../modules/batches/index.ts';
import { captureSessionsByIds, toCaptureSessionDto } from '../modules/widgets/index.ts';
import {
  featureValuesByIds,
  featuresByIds,
  toFeatureDto,
  toFeatureValueDto,
} from '../modules/entitlements/index.ts';
import { toUsageAlertDto, usageAlertsByIds } from '../modules/usageAlerts/index.ts';
import { couponsByIds, redemptionsByIds, toCouponDto, toRedemptionDto } from '../modules/coupons/index.ts';
import { grantsByIds, toGrantDto, toWalletDto, walletsByIds } from '../modules/credits/index.ts';
import { numericRenderer } from './eventObjectRenderer.ts';
import { invoicesWithFiguresByIds } from './invoices.view.ts';

/**
 * Event renderers of the billing resources (see eventObjects.ts): each as its single GET returns it. A payment
 * method is the single GET's shape with AccountNumber and IBAN null, as an add answers it: the GET opens them,
 * and an event is stored and sent to endpoints (never a clear account number in an event).
 */
export const billingEventObjects: Record<string, EventObjectRenderer> = {
  feature: numericRenderer(featuresByIds, (_ctx, features) => features.map(toFeatureDto)),
  feature_value: numericRenderer(featureValuesByIds, (_ctx, values) => values.map(toFeatureValueDto)),
  usage_alert: numericRenderer(usageAlertsByIds, (_ctx, alerts) => alerts.map(toUsageAlertDto)),
  coupon: numericRenderer(couponsByIds, (_ctx, coupons) => coupons.map(toCouponDto)),
  coupon_redemption: numericRenderer(redemptionsByIds, (_ctx, found) => found.map(toRedemptionDto)),
  wallet: numericRenderer(walletsByIds, (_ctx, wallets) => wallets.map(toWalletDto)),
  credit_grant: numericRenderer(grantsByIds, (_ctx, grants) => grants.map(toGrantDto)),
  invoice: numericRenderer(invoicesWithFiguresByIds, (ctx, invoices) =>
    invoices.map((invoice) => toInvoiceDto(invoice, ctx.account.timeZone)),
  ),
  recurring_invoice: numericRenderer(recurringInvoicesByIds, (ctx, found) =>
    found.map((invoice) => toRecurringInvoiceDto(invoice, ctx.account.timeZone)),
  ),
  subscription: numericRenderer(subscriptionsByIds, (ctx, found) =>
    found.map((subscription) => toSubscriptionDto(subscription, ctx.account.timeZone)),
  ),
  payment_method: numericRenderer(unopenedPaymentMethodsByIds, (ctx, found) =>
    found.map((method) => toPaymentMethodDto(method, ctx.account.timeZone)),
  ),
  payment: numericRenderer(paymentsByIds, (ctx, found) =>
    found.map((payment) => toPaymentDto(payment, ctx.account.timeZone)),
  ),
  tax_credit_note: numericRenderer(taxCreditNotesByIds, (ctx, notes) =>
    notes.map((note) => toTaxCreditNoteDto(note, ctx.account.timeZone)),
  ),
  credit_note: numericRenderer(creditNotesByIds, (ctx, found) =>
    found.map((creditNote) => toCreditNoteDto(creditNote, ctx.account.timeZone)),
  ),
  adjustment: numericRenderer(adjustmentsByIds, (ctx, found) =>
    found.map((adjustment) => toAdjustmentDetailDto(adjustment, ctx.account.timeZone)),
  ),
  // Named by BatchToken, as the API names batches.
  async batch(ctx, tokens) {
    const found = await batchesByTokens(ctx, tokens.map(String));
    return new Map([...found].map(([token, batch]) => [token, toBatchDto(batch, ctx.account.timeZone)]));
  },
  // Without HashToken and Html: events are stored and sent on, and the browser's token is not theirs to carry.
  capture_session: numericRenderer(captureSessionsByIds, (_ctx, found) =>
    found.map((session) => toCaptureSessionDto(session)),
  ),
};
