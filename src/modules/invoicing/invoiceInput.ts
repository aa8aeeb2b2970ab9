/**
 * Checking an invoice request, and the field rules recurring invoices share with invoices (they are invoice
 * templates: the same charges, taxes, collection and totals). Each check adds its problems, keyed by wire field,
 * to the caller's list, so that a request learns every problem at once.
 */
import { today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { addDays, checkedWireDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { invoiceBoundsProblem, isLineAmountWithinBounds, priceInvoice } from './invoiceMath.ts';
import { MAX_PRICE, minorToDecimalText } from '../../core/money.ts';
import { parseTaxPerc } from '../../core/tax.ts';
import { optionalText, requiredText } from '../../core/text.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import { assertCurrencyEnabled } from '../catalogue/index.ts';
import type { Customer } from '../customers/index.ts';
import { assertGatewayUsable, gatewayAccepts, getGateway } from '../gateways/index.ts';
import type { Gateway } from '../gateways/index.ts';
import { assertPaymentMethodUsable } from '../paymentMethods/index.ts';
import { parseWireDecimal } from './decimals.ts';
import type { InvoiceRecord, NewInvoice, NewInvoiceCharge } from './invoice.ts';
import { findInvoiceIdByReference } from './invoice.repository.ts';
import { findRecurringInvoiceIdByReference } from './recurringInvoice.repository.ts';

/** Spec, Invoice: CollectionMethod is one of these. */
export const COLLECTION_METHODS = ['cash', 'credit_card', 'debit_order', 'eft', 'hpp'] as const;

/**
 * Spec, Invoice (same rules for recurring invoices): gatewayID is required for these, and the gateway must collect
 * from that kind of method.
 */
const GATEWAY_KINDS = { credit_card: 'credit_card', debit_order: 'bank_account' } as const;

/** A request's invoice fields: undefined leaves a field as it is (edit) or to its default (create). */
export interface InvoiceInput {
  customerId?: number;
  currencyCode?: string;
  /** Any date the wire accepts; null is the same as left out. */
  invoiceDate?: string | null;
  dueDate?: string | null;
  reference?: string | null;
  poNumber?: string | number | null;
  notes?: string | null;
  terms?: string | null;
  isDraft?: boolean;
  collectionMethod?: string | null;
  gatewayId?: number | null;
  customerPaymentMethodId?: number | null;
  charges?: ChargeInput[];
  taxes?: TaxInput[];
}

export interface ChargeInput {
  descrip: string;
  qty: number | string;
  /** Required unless unitCostInc is given (taxInclusiveCharges.ts). */
  unitCostEx?: number | string;
  /** The unit price including tax: the charge is tax-inclusive. */
  unitCostInc?: number | string | null;
  isTaxInclusive?: boolean;
  line?: number | null;
  displayOrder?: number | null;
}

export interface TaxInput {
  name: string;
  perc: number;
}

/** A charge line checked as a request gives it, with Line and DisplayOrder settled. */
export interface CheckedCharge extends NewInvoiceCharge {
  line: number;
  displayOrder: number;
}

export interface CheckedTax {
  name: string;
  /** Exact decimal fraction, e.g. "0.15". */
  perc: string;
}

/** Runs a check that throws ValidationError, adding its problems to the list instead; undefined when it threw. */
export async function collectProblems<T>(
  problems: FieldProblem[],
  check: () => Promise<T> | T,
): Promise<T | undefined> {
  try {
    return await check();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    problems.push(...error.fields);
    return undefined;
  }
}

/**
 * Which price a charge lists (taxInclusiveCharges.ts): UnitCostInc makes it tax-inclusive; without it the charge
 * is priced from UnitCostEx exactly as before. isTaxInclusive, when sent, must agree.
 */
function listedPrice(
  charge: ChargeInput,
  at: string,
  problems: FieldProblem[],
): { field: 'UnitCostEx' | 'UnitCostInc'; isTaxInclusive: boolean; raw: number | string | undefined } {
  const inclusive = charge.unitCostInc !== undefined && charge.unitCostInc !== null;
  if (charge.isTaxInclusive === true && !inclusive) {
    problems.push({ field: `${at}.UnitCostInc`, message: 'is required when isTaxInclusive is true' });
    return { field: 'UnitCostInc', isTaxInclusive: true, raw: undefined };
  }
  if (charge.isTaxInclusive === false && inclusive) {
    problems.push({
      field: `${at}.isTaxInclusive`,
      message:
        'must be true or left out when UnitCostInc is sent (UnitCostInc makes the charge tax-inclusive)',
    });
  }
  if (inclusive) return { field: 'UnitCostInc', isTaxInclusive: true, raw: charge.unitCostInc! };
  if (charge.unitCostEx === undefined) {
    problems.push({
      field: `${at}.UnitCostEx`,
      message: 'is required (or UnitCostInc for a price including tax)',
    });
  }
  return { field: 'UnitCostEx', isTaxInclusive: false, raw: charge.unitCostEx };
}

/** The charge rules of invoices, shared by recurring invoices; problems are named `${path}[i].Field`. */
export function checkedCharges(
  input: readonly ChargeInput[],
  problems: FieldProblem[],
  path = 'Charges',
): CheckedCharge[] {
  return input.map((charge, i) => {
    const at = `${path}[${i}]`;
    const descrip = requiredText(charge.descrip, `${at}.Descrip`, problems);
    const qty = parseWireDecimal(charge.qty, { positive: true });
    if ('message' in qty) problems.push({ field: `${at}.Qty`, message: qty.message });
    const { field, isTaxInclusive, raw } = listedPrice(charge, at, problems);
    const unitCost = raw === undefined ? undefined : parseWireDecimal(raw, { positive: false });
    if (unitCost && 'message' in unitCost)
      problems.push({ field: `${at}.${field}`, message: unitCost.message });
    if (
      'value' in qty &&
      unitCost &&
      'value' in unitCost &&
      !isLineAmountWithinBounds(qty.value, unitCost.value)
    ) {
      problems.push({
        field: `${at}.${field}`,
        message: `Qty × ${field} must be at most ${MAX_PRICE} in size`,
      });
    }
    return {
      descrip,
      qty: 'value' in qty ? qty.value : '1',
      unitCostEx: unitCost && 'value' in unitCost ? unitCost.value : '0',
      isTaxInclusive,
      // Spec, Invoice: DisplayOrder is a sequential display position; Line and DisplayOrder follow the list's
      // order when a request leaves them out.
      line: charge.line ?? i + 1,
      displayOrder: charge.displayOrder ?? i + 1,
    };
  });
}

export function checkedTaxes(input: readonly TaxInput[], problems: FieldProblem[]): CheckedTax[] {
  return input.map((tax, i) => {
    const name = requiredText(tax.name, `Taxes[${i}].Name`, problems);
    // Spec, Limits: Perc is a fraction between 0 and 1.
    const perc = parseTaxPerc(tax.perc);
    if ('message' in perc) problems.push({ field: `Taxes[${i}].Perc`, message: perc.message });
    return { name, perc: 'perc' in perc ? perc.perc : '0' };
  });
}

/** A wire date as the account's calendar date; null and undefined pass through, a bad date is undefined. */
export function checkedDate(
  ctx: ServiceContext,
  text: string | null | undefined,
  field: string,
  problems: FieldProblem[],
): PlainDate | null | undefined {
  if (text === undefined || text === null) return text;
  return checkedWireDate(text, ctx.account.timeZone, field, problems);
}

export function checkedCollectionMethod(value: string | null, problems: FieldProblem[]): string | null {
  const method = optionalText(value)?.toLowerCase() ?? null;
  if (method !== null && !(COLLECTION_METHODS as readonly string[]).includes(method)) {
    problems.push({ field: 'CollectionMethod', message: `must be one of ${COLLECTION_METHODS.join(', ')}` });
  }
  return method;
}

/**
 * Pricing refusals: the invoice's figures must be representable and not owe the customer money. Needs a known
 * currency (its minor unit); `field` is the wire name of the charges.
 */
export function checkTotals(
  invoice: { charges: readonly NewInvoiceCharge[]; taxes: readonly CheckedTax[]; currencyCode: string },
  problems: FieldProblem[],
  field = 'Charges',
): void {
  const taxPercs = invoice.taxes.map((t) => t.perc);
  const beyond = invoiceBoundsProblem(invoice.charges, taxPercs, invoice.currencyCode);
  if (beyond) {
    problems.push({ field, message: beyond });
    return;
  }
  const { totalMinor } = priceInvoice(invoice.charges, taxPercs, invoice.currencyCode);
  if (totalMinor < 0) {
    // Our rule: an invoice does not owe the customer money; a credit is a credit note or an adjustment.
    problems.push({
      field,
      message: `the invoice Total must not be negative (it would be ${minorToDecimalText(totalMinor, invoice.currencyCode)})`,
    });
  }
}

/** How an invoice is to be paid. */
export interface Collection {
  customerId: number;
  collectionMethod: string | null;
  gatewayId: number | null;
  customerPaymentMethodId: number | null;
}

/**
 * Spec, Invoice: gatewayID is required for debit_order and credit_card; customerPaymentMethodID with gatewayID.
 * `changed` tells which values the request sets: a gateway kept as stored is not checked for use again (a client
 * sending back what it read must not be refused because a gateway was disabled since), and a payment method is
 * checked only when it, its gateway or the collection method changes.
 */
export async function checkCollection(
  ctx: ServiceContext,
  collection: Collection,
  problems: FieldProblem[],
  changed: (field: keyof Collection) => boolean = () => true,
): Promise<void> {
  const kind = GATEWAY_KINDS[collection.collectionMethod as keyof typeof GATEWAY_KINDS] as
    (typeof GATEWAY_KINDS)[keyof typeof GATEWAY_KINDS] | undefined;
  if (kind && collection.gatewayId === null) {
    problems.push({
      field: 'gatewayID',
      message: `is required when CollectionMethod is ${collection.collectionMethod}`,
    });
  }
  let gateway: Gateway | undefined;
  if (collection.gatewayId !== null) {
    const gatewayId = collection.gatewayId;
    if (changed('gatewayId'))
      gateway = await collectProblems(problems, () => assertGatewayUsable(ctx, gatewayId, 'gatewayID'));
    if (gateway && kind && !gatewayAccepts(gateway, kind)) {
      problems.push({
        field: 'gatewayID',
        message: `gateway ${gateway.id} does not collect from ${kind === 'credit_card' ? 'credit cards' : 'bank accounts'}`,
      });
    }
    if (collection.customerPaymentMethodId === null) {
      problems.push({ field: 'customerPaymentMethodID', message: 'is required when gatewayID is set' });
    }
  }
  const paymentMethodId = collection.customerPaymentMethodId;
  if (
    paymentMethodId !== null &&
    (changed('customerPaymentMethodId') || changed('gatewayId') || changed('collectionMethod'))
  ) {
    // A gateway kept as stored is not checked for use again, but the method must still suit it.
    const methodGateway =
      gateway ??
      (collection.gatewayId !== null && !changed('gatewayId')
        ? await getGateway(ctx, collection.gatewayId)
        : undefined);
    await collectProblems(problems, () =>
      assertPaymentMethodUsable(
        ctx,
        { customerId: collection.customerId, paymentMethodId, gateway: methodGateway, kind },
        'customerPaymentMethodID',
      ),
    );
  }
}

/**
 * A subscription's own collection (beyond the spec: the fields and rules of a recurring invoice's), checked for
 * its customer; all null when it follows the customer's settings.
 */
export async function checkedOwnCollection(
  ctx: ServiceContext,
  customerId: number,
  input: {
    collectionMethod?: string | null;
    gatewayId?: number | null;
    customerPaymentMethodId?: number | null;
  },
  problems: FieldProblem[],
): Promise<Omit<Collection, 'customerId'>> {
  const collection = {
    collectionMethod: checkedCollectionMethod(input.collectionMethod ?? null, problems),
    gatewayId: input.gatewayId ?? null,
    customerPaymentMethodId: input.customerPaymentMethodId ?? null,
  };
  await checkCollection(ctx, { ...collection, customerId }, problems);
  return collection;
}

/** What holds a Reference: invoices and recurring invoices each have their own (a unique index per table). */
export type ReferenceHolder = 'invoice' | 'recurring invoice';

const FIND_BY_REFERENCE = {
  invoice: findInvoiceIdByReference,
  'recurring invoice': findRecurringInvoiceIdByReference,
} as const;

/** 409 when another invoice (or recurring invoice) than `ownId` has the Reference. */
export async function assertReferenceFree(
  ctx: ServiceContext,
  holder: ReferenceHolder,
  reference: string,
  ownId?: number,
): Promise<void> {
  const taken = await FIND_BY_REFERENCE[holder](ctx.db, ctx.account.id, reference);
  if (taken && taken.id !== ownId) {
    throw new ConflictError('reference_taken', `Reference "${reference}" belongs to ${holder} ${taken.id}`);
  }
}

/** A concurrent request took the Reference between the check and the write (the unique index refused it). */
export function referenceConflict(
  error: unknown,
  holder: ReferenceHolder,
  reference: string | null,
): unknown {
  return isUniqueViolation(error)
    ? new ConflictError('reference_taken', `Reference "${reference}" belongs to another ${holder}`)
    : error;
}

/** What a request decides about an invoice once checked, before it is stored. */
export interface CheckedInvoice {
  customer: Customer;
  currencyCode: string;
  invoiceDate: PlainDate;
  dueDate: PlainDate;
  reference: string | null;
  poNumber: string | null;
  notes: string | null | undefined;
  terms: string | null | undefined;
  collectionMethod: string | null;
  gatewayId: number | null;
  customerPaymentMethodId: number | null;
  charges: NewInvoiceCharge[];
  taxes: CheckedTax[];
}

/**
 * Checks a whole invoice as it will be stored: `current` is the stored one on edit (fields left out keep its
 * values), undefined on create (fields left out take their defaults). Every problem is reported at once.
 */
export async function checkedInvoice(
  ctx: ServiceContext,
  input: InvoiceInput,
  customer: Customer,
  current?: { record: InvoiceRecord; charges: NewInvoiceCharge[]; taxes: CheckedTax[] },
): Promise<CheckedInvoice> {
  const problems: FieldProblem[] = [];
  const record = current?.record;
  const currencyCode =
    input.currencyCode?.trim().toUpperCase() ?? record?.currencyCode ?? customer.currencyCode;
  const invoiceDate =
    checkedDate(ctx, input.invoiceDate, 'InvoiceDate', problems) ?? record?.invoiceDate ?? today(ctx);
  const dueDate =
    checkedDate(ctx, input.dueDate, 'DueDate', problems) ??
    record?.dueDate ??
    addDays(invoiceDate, ctx.account.invoiceDueDays);
  if (dueDate < invoiceDate) {
    problems.push({
      field: 'DueDate',
      message: `must not be before InvoiceDate (${dueDate} < ${invoiceDate})`,
    });
  }
  const poNumber =
    input.poNumber === undefined
      ? (record?.poNumber ?? null)
      : typeof input.poNumber === 'number'
        ? String(input.poNumber)
        : (optionalText(input.poNumber) ?? null);
  const keep = <T>(value: T | undefined, stored: T): T => (value === undefined ? stored : value);
  const checked: CheckedInvoice = {
    customer,
    currencyCode,
    invoiceDate,
    dueDate,
    reference: keep(optionalText(input.reference), record?.reference ?? null),
    poNumber,
    // On create, left out or blank means the account's default (insertInvoices applies it).
    notes: record ? keep(optionalText(input.notes), record.notes) : (optionalText(input.notes) ?? undefined),
    terms: record ? keep(optionalText(input.terms), record.terms) : (optionalText(input.terms) ?? undefined),
    collectionMethod:
      input.collectionMethod === undefined
        ? (record?.collectionMethod ?? null)
        : checkedCollectionMethod(input.collectionMethod, problems),
    gatewayId: keep(input.gatewayId, record?.gatewayId ?? null),
    customerPaymentMethodId: keep(input.customerPaymentMethodId, record?.customerPaymentMethodId ?? null),
    charges: input.charges ? checkedCharges(input.charges, problems) : (current?.charges ?? []),
    taxes: input.taxes ? checkedTaxes(input.taxes, problems) : (current?.taxes ?? []),
  };
  let currencyKnown = true;
  if (input.currencyCode !== undefined || !record) {
    const code = await collectProblems(problems, () =>
      assertCurrencyEnabled(ctx, currencyCode, 'CurrencyCode'),
    );
    if (code === undefined) currencyKnown = false;
    else checked.currencyCode = code;
  }
  // Totals need good lines and a known currency (its minor unit).
  if (problems.length === 0 && currencyKnown) checkTotals(checked, problems);
  await checkCollection(ctx, { ...checked, customerId: customer.id }, problems);
  if (problems.length) throw new ValidationError(problems);
  return checked;
}

/** The checked invoice as insertInvoices takes it: made through the API (Source App). */
export function newInvoiceOf(checked: CheckedInvoice, isDraft: boolean): NewInvoice {
  return {
    customerId: checked.customer.id,
    currencyCode: checked.currencyCode,
    invoiceDate: checked.invoiceDate,
    dueDate: checked.dueDate,
    source: 'App',
    isDraft,
    reference: checked.reference,
    poNumber: checked.poNumber,
    collectionMethod: checked.collectionMethod,
    gatewayId: checked.gatewayId,
    customerPaymentMethodId: checked.customerPaymentMethodId,
    notes: checked.notes,
    terms: checked.terms,
    charges: checked.charges,
    taxes: checked.taxes,
  };
}
