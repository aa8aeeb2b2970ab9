import { startOfDate } from '../../core/calendar.ts';
import { minorToWireNumber } from '../../core/money.ts';
import { toCustomerDto } from '../customers/index.ts';
import type { InvoiceCharge, InvoiceWithFigures } from './invoice.ts';
import type { InvoiceInput } from './invoiceInput.ts';
import type { CreateInvoiceBody, EditInvoiceBody, InvoiceOut } from './invoices.schemas.ts';
import { taxInclusiveChargeDto } from './taxInclusiveCharges.ts';
import { taxPosition } from './invoiceMath.ts';
import { lineTaxPercs } from '../../core/taxInclusive.ts';

/**
 * The wire invoice. Amounts are numbers in major units; InvoiceDate and DueDate are calendar dates in the
 * account's time zone, shown as the instant that day begins there. Works for an unsaved invoice too (null ids).
 */
export function toInvoiceDto(invoice: InvoiceWithFigures, timeZone: string): InvoiceOut {
  const currency = invoice.currencyCode;
  const amount = (minor: number) => minorToWireNumber(minor, currency);
  const { customer } = invoice;
  const { totalTaxMinor, balanceTaxMinor } = taxPosition(invoice, invoice.credited);
  const invoicePercs = invoice.taxes.map((t) => t.perc);
  return {
    invoiceID: invoice.id,
    Customer: toCustomerDto(invoice.customer),
    invoiceNum: invoice.invoiceNum,
    Reference: invoice.reference,
    poNumber: invoice.poNumber,
    CurrencyCode: currency,
    InvoiceDate: startOfDate(invoice.invoiceDate, timeZone),
    DueDate: startOfDate(invoice.dueDate, timeZone),
    DateSent: invoice.dateSent,
    LastUpdated: invoice.updatedAt,
    isDraft: invoice.isDraft,
    isCancelled: invoice.isCancelled,
    Source: invoice.source as InvoiceOut['Source'],
    CollectionMethod: invoice.collectionMethod,
    gatewayID: invoice.gatewayId,
    customerPaymentMethodID: invoice.customerPaymentMethodId,
    CollectionSource: invoice.followsCustomer ? 'customer' : 'invoice',
    CollectionProblem: invoice.collectionProblem,
    NumTries: invoice.numTries,
    NextTryDate: invoice.nextTryDate,
    Notes: invoice.notes,
    Terms: invoice.terms,
    Status: invoice.status,
    customerID: customer.id,
    Name: customer.name,
    LastName: customer.lastName,
    Total: amount(invoice.money.totalMinor),
    TotalActualPaid: amount(invoice.money.paidActualMinor),
    TotalPendingPaid: amount(invoice.money.paidPendingMinor),
    TotalNegativeAdjs: amount(invoice.money.negativeAdjsMinor),
    Balance: amount(invoice.balances.balanceMinor),
    ActualBalance: amount(invoice.balances.actualBalanceMinor),
    TotalTax: amount(totalTaxMinor),
    CreditedTotal: amount(invoice.credited.amountMinor),
    CreditedTax: amount(invoice.credited.taxMinor),
    BalanceTax: amount(balanceTaxMinor),
    Taxes: invoice.taxes.map((tax) => ({
      invoiceTaxID: tax.id,
      invoiceID: tax.invoiceId,
      Name: tax.name,
      Perc: Number(tax.perc),
    })),
    Charges: invoice.charges.map((charge) => ({
      chargeID: charge.id,
      invoiceID: charge.invoiceId,
      Line: charge.line,
      Descrip: charge.descrip,
      // Exact decimals of at most 15 significant digits (4 decimals, bounded): a JSON number shows them exactly.
      Qty: Number(charge.qty),
      ...taxInclusiveChargeDto(charge, lineTaxPercs(invoicePercs, charge.taxPositions)),
      AmountEx: amount(charge.amountExMinor),
      AmountInc: amount(charge.amountIncMinor),
      DisplayOrder: charge.displayOrder,
      ...meteredChargeDto(charge, timeZone),
    })),
    PaymentsApplied: invoice.paymentsApplied.map((allocation) => ({
      allocationID: allocation.allocationId,
      invoiceID: allocation.invoiceId,
      paymentID: allocation.paymentId,
      amountApplied: amount(allocation.amountMinor),
    })),
    NegativeAdjustmentsApplied: invoice.negativeAdjustmentsApplied.map((allocation) => ({
      allocationID: allocation.allocationId,
      objectID: allocation.invoiceId,
      NegativeAdjustmentID: allocation.negativeAdjustmentId,
      creditNoteID: allocation.creditNoteId,
      amountApplied: amount(allocation.amountMinor),
    })),
  };
}

/**
 * The wire invoice `toInvoiceDto` made, as it shows once a collection try was counted on it (`countCollectionTries`):
 * NumTries one more, LastUpdated the change's instant, and NextTryDate what is stored (null, or a debit's action
 * date): the only other date
 * shown in its place (`withEffectiveCollection`, a card's first try) is for an invoice never tried. Nothing else
 * the API shows of an invoice, or of its customer, depends on these columns.
 */
export function withTryCounted(
  before: Record<string, unknown>,
  updatedAt: string,
  nextTryDate: string | null = null,
): Record<string, unknown> {
  const moved = {
    NumTries: (before['NumTries'] as number) + 1,
    NextTryDate: nextTryDate,
    LastUpdated: updatedAt,
  } satisfies Partial<InvoiceOut>;
  return { ...before, ...moved };
}

export function invoiceInputFromWire(body: CreateInvoiceBody | EditInvoiceBody): InvoiceInput {
  return {
    customerId: body.customerID,
    currencyCode: body.CurrencyCode,
    invoiceDate: body.InvoiceDate,
    dueDate: body.DueDate,
    reference: body.Reference,
    poNumber: body.poNumber,
    notes: body.Notes,
    terms: body.Terms,
    isDraft: body.isDraft,
    collectionMethod: body.CollectionMethod,
    gatewayId: body.gatewayID,
    customerPaymentMethodId: body.customerPaymentMethodID,
    charges: body.Charges?.map((charge) => ({
      descrip: charge.Descrip,
      qty: charge.Qty,
      unitCostEx: charge.UnitCostEx,
      unitCostInc: charge.UnitCostInc,
      isTaxInclusive: charge.isTaxInclusive,
      line: charge.Line,
      displayOrder: charge.DisplayOrder,
    })),
    taxes: body.Taxes?.map((tax) => ({ name: tax.Name, perc: tax.Perc })),
  };
}

/** A metered line's metric, group, quantity and period; nothing on other lines. */
function meteredChargeDto(charge: InvoiceCharge, timeZone: string) {
  if (!charge.metered) return {};
  return {
    MetricCode: charge.metered.metricCode,
    UsageGroup: charge.metered.group,
    Quantity: charge.metered.quantity,
    ...(charge.periodStart ? { PeriodStart: startOfDate(charge.periodStart, timeZone) } : {}),
    ...(charge.periodEnd ? { PeriodEnd: startOfDate(charge.periodEnd, timeZone) } : {}),
  };
}
