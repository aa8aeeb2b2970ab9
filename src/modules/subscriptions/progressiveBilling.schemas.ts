import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { minorToWireNumber } from '../../core/money.ts';
import { Nullable } from '../../http/schemas.ts';
import type { ProgressiveBilling } from './progressiveBilling.service.ts';
import { thresholdText } from './progressiveBilling.service.ts';

/** Beyond the spec: progressive (threshold) billing of a subscription's metered usage (docs/usage.md). */
export const ProgressiveBillingBody = Type.Object({
  ProgressiveBillingThreshold: Type.Unsafe<string | number | null>({
    type: ['string', 'number', 'null'],
    maxLength: 40,
    description:
      "A money amount in the subscription's currency, above 0: once its metered usage not invoiced yet this period " +
      'reaches it, that usage is invoiced at once. null turns progressive billing off',
  }),
});
export type ProgressiveBillingBody = Static<typeof ProgressiveBillingBody>;

export const ProgressiveBillingOut = Type.Object(
  {
    subscriptionID: Type.Integer(),
    CurrencyCode: Type.String(),
    ProgressiveBillingThreshold: Nullable(
      Type.String({ description: 'The threshold as a decimal string; null when progressive billing is off' }),
    ),
    PeriodStart: Nullable(Type.String({ format: 'date', description: 'The usage period holding today' })),
    PeriodEnd: Nullable(Type.String({ format: 'date', description: 'Its end (exclusive)' })),
    ProgressiveInvoiced: Type.Number({
      description:
        "What this period's progressive invoices billed of its usage, before their coupons' discounts",
    }),
    ProgressiveDiscounted: Type.Number({
      description:
        "What those invoices' coupons took off it; the period's final invoice deducts ProgressiveInvoiced less this",
    }),
    ProgressiveInvoiceIDs: Type.Array(Type.Integer(), { description: "This period's progressive invoices" }),
  },
  { $id: 'ProgressiveBilling' },
);
export type ProgressiveBillingOut = Static<typeof ProgressiveBillingOut>;

export function toProgressiveBillingDto(progressive: ProgressiveBilling): ProgressiveBillingOut {
  return {
    subscriptionID: progressive.subscriptionId,
    CurrencyCode: progressive.currencyCode,
    ProgressiveBillingThreshold: thresholdText(progressive),
    PeriodStart: progressive.period?.start ?? null,
    PeriodEnd: progressive.period?.end ?? null,
    ProgressiveInvoiced: minorToWireNumber(progressive.invoicedMinor, progressive.currencyCode),
    ProgressiveDiscounted: minorToWireNumber(progressive.discountedMinor, progressive.currencyCode),
    ProgressiveInvoiceIDs: progressive.invoiceIds,
  };
}
