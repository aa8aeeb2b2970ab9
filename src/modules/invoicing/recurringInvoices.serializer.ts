import { startOfDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { minorToWireNumber } from '../../core/money.ts';
import { ValidationError } from '../../errors.ts';
import type { ChargeInput } from './invoiceInput.ts';
import type { RecurringInvoice } from './recurringInvoice.ts';
import type { RecurringInvoiceInput } from './recurringInvoiceInput.ts';
import { taxInclusiveChargeDto } from './taxInclusiveCharges.ts';
import type {
  CreateRecurringInvoiceBody,
  EditRecurringInvoiceBody,
  RecurringInvoiceOut,
} from './recurringInvoices.schemas.ts';

/** Billing dates are calendar dates in the account's time zone; the wire shows the instant each one begins. */
function wireDate(date: PlainDate | null, timeZone: string): string | null {
  return date === null ? null : startOfDate(date, timeZone);
}

export function toRecurringInvoiceDto(invoice: RecurringInvoice, timeZone: string): RecurringInvoiceOut {
  const charges = invoice.charges.map((charge) => ({
    recurInvoiceChargeID: charge.id,
    recurInvoiceID: charge.recurringInvoiceId,
    Line: charge.line,
    Descrip: charge.descrip,
    Qty: Number(charge.qty),
    ...taxInclusiveChargeDto(
      charge,
      invoice.taxes.map((t) => t.perc),
    ),
    AmountEx: minorToWireNumber(charge.amountExMinor, invoice.currencyCode),
    AmountInc: minorToWireNumber(charge.amountIncMinor, invoice.currencyCode),
    DisplayOrder: charge.displayOrder,
  }));
  return {
    recurInvoiceID: invoice.id,
    customerID: invoice.customerId,
    CurrencyCode: invoice.currencyCode,
    Reference: invoice.reference,
    Term: invoice.term,
    TermType: invoice.termType as RecurringInvoiceOut['TermType'],
    StartDate: startOfDate(invoice.startDate, timeZone),
    EndDate: wireDate(invoice.endDate, timeZone),
    lastInvDate: wireDate(invoice.lastInvoiceDate, timeZone),
    lastRenewDate: wireDate(invoice.lastRenewDate, timeZone),
    nextRenewDate: wireDate(invoice.nextRenewDate, timeZone),
    isExpired: invoice.isExpired,
    isCancelled: invoice.isCancelled,
    numDaysBeforeToInv: invoice.numDaysBeforeToInvoice,
    LastModified: invoice.updatedAt,
    SuspendedDate: invoice.suspendedAt,
    comp_Status: invoice.status,
    isParked: invoice.parkedAt !== null,
    ParkedReason: invoice.parkedReason,
    CollectionMethod: invoice.collectionMethod,
    gatewayID: invoice.gatewayId,
    customerPaymentMethodID: invoice.customerPaymentMethodId,
    InvoiceTerms: invoice.invoiceTerms,
    InvoiceNotes: invoice.invoiceNotes,
    Taxes: invoice.taxes.map((tax) => ({
      recurringinvoiceTaxID: tax.id,
      recurringinvoiceID: tax.recurringInvoiceId,
      Name: tax.name,
      Perc: Number(tax.perc),
    })),
    // Spec: the resource names the list RecurInvoiceCharges, the listing RecurInvoiceCharge; both carry it.
    RecurInvoiceCharges: charges,
    RecurInvoiceCharge: charges,
  };
}

type WireCharge = NonNullable<CreateRecurringInvoiceBody['RecurInvoiceCharges']>[number];

function chargeInput(charge: WireCharge): ChargeInput {
  return {
    descrip: charge.Descrip,
    qty: charge.Qty,
    unitCostEx: charge.UnitCostEx,
    unitCostInc: charge.UnitCostInc,
    isTaxInclusive: charge.isTaxInclusive,
    line: charge.Line,
    displayOrder: charge.DisplayOrder,
  };
}

const sameCharges = (a: WireCharge[], b: WireCharge[]) =>
  a.length === b.length &&
  a.every((x, i) => {
    const y = b[i]!;
    return (
      x.Descrip === y.Descrip &&
      String(x.Qty) === String(y.Qty) &&
      String(x.UnitCostEx) === String(y.UnitCostEx) &&
      String(x.UnitCostInc ?? null) === String(y.UnitCostInc ?? null) &&
      (x.isTaxInclusive ?? null) === (y.isTaxInclusive ?? null) &&
      (x.Line ?? null) === (y.Line ?? null) &&
      (x.DisplayOrder ?? null) === (y.DisplayOrder ?? null)
    );
  });

/**
 * The spec spells two fields two ways: Reference (sample: reference) and RecurInvoiceCharges (listing:
 * RecurInvoiceCharge). Either is accepted; both may be sent (a client sends back the object it read, which
 * carries both lists) as long as they say the same, else the request is refused rather than one silently won.
 */
export function recurringInvoiceInputFromWire(
  body: CreateRecurringInvoiceBody | EditRecurringInvoiceBody,
): RecurringInvoiceInput {
  if (body.Reference !== undefined && body.reference !== undefined && body.Reference !== body.reference) {
    throw ValidationError.field('reference', 'differs from Reference; send one of them');
  }
  const plural = body.RecurInvoiceCharges;
  const singular = body.RecurInvoiceCharge;
  if (plural && singular && !sameCharges(plural, singular)) {
    throw ValidationError.field('RecurInvoiceCharge', 'differs from RecurInvoiceCharges; send one of them');
  }
  const charges = plural ?? singular;
  return {
    customerId: body.customerID,
    currencyCode: body.CurrencyCode,
    reference: body.Reference !== undefined ? body.Reference : body.reference,
    term: body.Term,
    termType: body.TermType,
    startDate: body.StartDate,
    endDate: body.EndDate,
    numDaysBeforeToInv: body.numDaysBeforeToInv,
    collectionMethod: body.CollectionMethod,
    gatewayId: body.gatewayID,
    customerPaymentMethodId: body.customerPaymentMethodID,
    invoiceTerms: body.InvoiceTerms,
    invoiceNotes: body.InvoiceNotes,
    taxes: body.Taxes?.map((tax) => ({ name: tax.Name, perc: tax.Perc })),
    charges: charges?.map(chargeInput),
    chargesField: plural ? 'RecurInvoiceCharges' : singular ? 'RecurInvoiceCharge' : undefined,
  };
}
