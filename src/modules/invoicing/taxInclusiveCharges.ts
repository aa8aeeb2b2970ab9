/**
 * The wire side of tax-inclusive charges, shared by invoices and recurring invoices (docs/pricing.md,
 * "Tax-inclusive prices"; the choices in docs/spec-decisions.md, "Tax-inclusive prices"). Beyond the spec:
 * - A request's charge is tax-inclusive when it sends UnitCostInc: the unit price including the invoice's taxes.
 *   UnitCostEx, if also sent (a client sending back what it read), is then ignored. A charge without UnitCostInc
 *   is priced exactly as before, from UnitCostEx, whatever the account's isTaxInclusive says.
 * - A response's tax-inclusive charge carries isTaxInclusive true and UnitCostInc, its listed price; its UnitCostEx
 *   is the unit price that stands for without tax, to PRICE_DECIMALS places, shown only: AmountEx and AmountInc
 *   come from the split of Qty × UnitCostInc. An exclusive charge is shown exactly as before, without the two.
 */
import { Type } from '@sinclair/typebox';
import { PRICE_DECIMALS } from '../../core/money.ts';
import { netUnitPrice } from '../../core/taxInclusive.ts';

const WireDecimalOrNull = (description: string) =>
  Type.Unsafe<number | string | null>({ type: ['number', 'string', 'null'], maxLength: 40, description });

/** Request fields of a charge beside UnitCostEx, which becomes optional when UnitCostInc is sent. */
export const taxInclusiveChargeIn = {
  UnitCostInc: Type.Optional(
    WireDecimalOrNull(
      `Beyond the spec: the unit price including the invoice's taxes, at most ${PRICE_DECIMALS} decimals; when ` +
        'sent the charge is tax-inclusive (AmountInc = Qty × UnitCostInc, split into AmountEx and taxes) and ' +
        'UnitCostEx is ignored',
    ),
  ),
  isTaxInclusive: Type.Optional(
    Type.Boolean({
      description:
        'Beyond the spec: true requires UnitCostInc, false refuses it; left out, UnitCostInc decides. Read back, ' +
        'it says how the charge was priced',
    }),
  ),
};

/** Response fields of a charge beside UnitCostEx. */
export const taxInclusiveChargeOut = {
  UnitCostInc: Type.Optional(
    Type.Number({
      description:
        "Beyond the spec: a tax-inclusive charge's unit price including tax (what the customer was quoted); only " +
        'on a tax-inclusive charge',
    }),
  ),
  isTaxInclusive: Type.Optional(
    Type.Boolean({
      description:
        'Beyond the spec: true on a tax-inclusive charge (left out otherwise): AmountInc = Qty × UnitCostInc ' +
        'rounded once, and AmountEx and the taxes are split out of it so that they add up to it exactly',
    }),
  ),
};

/** UnitCostEx, UnitCostInc and isTaxInclusive of a stored charge, priced with the invoice's taxes. */
export function taxInclusiveChargeDto(
  charge: { unitCostEx: string; isTaxInclusive: boolean },
  taxPercs: readonly string[],
): { UnitCostEx: number; UnitCostInc?: number; isTaxInclusive?: true } {
  if (!charge.isTaxInclusive) return { UnitCostEx: Number(charge.unitCostEx) };
  return {
    UnitCostEx: Number(netUnitPrice(charge.unitCostEx, taxPercs, PRICE_DECIMALS)),
    UnitCostInc: Number(charge.unitCostEx),
    isTaxInclusive: true,
  };
}
