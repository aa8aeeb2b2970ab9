import type { ServiceContext } from '../../context.ts';
import { startOfDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { automaticMethodOf, customerCollection, paymentMethodsAsking } from './customerCollection.ts';
import type {
  AutomaticMethod,
  CollectionProblemCode,
  CustomerCollection,
  HeldCollectionProblem,
  GatewayAbilities,
} from './customerCollection.ts';
import { invoiceBalances } from './invoiceMath.ts';
import { customersByIds } from '../customers/index.ts';
import type { Customer } from '../customers/index.ts';
import type { CollectableInvoiceRecord, Invoice, InvoiceRecord } from './invoice.ts';
import { moneyOf } from './invoice.ts';
import { blockedWords, collectingWords } from './collectionNoteWords.ts';
import {
  canCharge,
  collectsBatches,
  findPrimaryGateway,
  gatewayAccepts,
  gatewaysByIds,
  isGatewayUsable,
  isTestGatewayOfLiveAccount,
  testGatewayOnLiveWords,
} from '../gateways/index.ts';
import { primaryPaymentMethodsOf, unopenedPaymentMethodsByIds } from '../paymentMethods/index.ts';
import { snapshotResources } from '../events/index.ts';
import type { EventToEmit } from '../events/index.ts';
import * as repo from './invoiceCollection.repository.ts';
import { invoiceRef } from './invoicingEvents.ts';
import { withTryCounted } from './invoices.serializer.ts';
import { plannedDebitTries } from './plannedDebits.ts';

/** The collections module's access to invoices: which are due through a gateway, and their NumTries and NextTryDate. */

export interface CollectableInvoice {
  id: number;
  customerId: number;
  /** No CollectionMethod of its own: collected as the customer's settings say when the attempt is made. */
  followsCustomer: boolean;
  /** Its own, or what the customer's settings resolve to now; null when they cannot collect it. */
  gatewayId: number | null;
  paymentMethodId: number | null;
  /** Why the customer's settings cannot collect it now (an invoice following them), or undefined. */
  blocked?: { problem: CollectionProblemCode; message: string };
  /** The problem the customer was last told of, if any. */
  reportedProblem: string | null;
  currencyCode: string;
  numTries: number;
  nextTryDate: string | null;
  dueDate: PlainDate;
  /** What it still owes: its total less what is paid, pending and credited. */
  openMinor: number;
}

function collectableFromRecord(
  record: CollectableInvoiceRecord,
  collections: Map<number, CustomerCollection>,
): CollectableInvoice {
  const followsCustomer = record.collectionMethod === null;
  const collection = followsCustomer ? collections.get(record.customerId) : undefined;
  return {
    id: record.id,
    customerId: record.customerId,
    followsCustomer,
    gatewayId: collection ? (collection.kind === 'manual' ? null : collection.gatewayId) : record.gatewayId,
    paymentMethodId: collection
      ? collection.kind === 'automatic'
        ? collection.paymentMethodId
        : null
      : record.customerPaymentMethodId,
    ...(collection?.kind === 'blocked'
      ? { blocked: { problem: collection.problem, message: collection.message } }
      : {}),
    reportedProblem: record.collectionProblem,
    currencyCode: record.currencyCode,
    numTries: record.numTries,
    nextTryDate: record.nextTryDate,
    dueDate: record.dueDate,
    openMinor:
      record.totalMinor - record.paidActualMinor - record.paidPendingMinor - record.negativeAdjsMinor,
  };
}

/**
 * What each customer's payment settings do now with the invoices that follow them (src/modules/invoicing/customerCollection.ts):
 * read in a fixed number of statements for any number of customers, none for customers paying by hand.
 */
export async function customerCollectionsOf(
  ctx: ServiceContext,
  customers: readonly Customer[],
): Promise<Map<number, CustomerCollection>> {
  const result = new Map<number, CustomerCollection>();
  const automatic: Customer[] = [];
  for (const customer of customers) {
    if (automaticMethodOf(customer.paymentMethod) !== null) automatic.push(customer);
    else result.set(customer.id, { kind: 'manual', method: customer.paymentMethod });
  }
  if (automatic.length === 0) return result;
  const [primaries, accountPrimary] = await Promise.all([
    primaryPaymentMethodsOf(
      ctx,
      automatic.map((customer) => customer.id),
    ),
    findPrimaryGateway(ctx),
  ]);
  const methods = await unopenedPaymentMethodsByIds(
    ctx,
    [...primaries.values()].map((primary) => primary.paymentMethodId),
  );
  const gatewayIds = new Set<number>();
  for (const customer of automatic) {
    if (customer.primaryGatewayId !== null) gatewayIds.add(customer.primaryGatewayId);
  }
  for (const method of methods.values()) if (method.gatewayId !== null) gatewayIds.add(method.gatewayId);
  if (accountPrimary) gatewayIds.add(accountPrimary.id);
  const gateways = await gatewaysByIds(ctx, [...gatewayIds]);
  const abilities = (id: number): GatewayAbilities | undefined => {
    const gateway = gateways.get(id);
    return (
      gateway && {
        id,
        usable: isGatewayUsable(gateway),
        ...(isTestGatewayOfLiveAccount(ctx.account, gateway)
          ? { unusableWords: testGatewayOnLiveWords(id) }
          : {}),
        collects: (method) =>
          method === 'credit_card'
            ? gatewayAccepts(gateway, 'credit_card') && canCharge(gateway)
            : gatewayAccepts(gateway, 'bank_account') && collectsBatches(gateway),
      }
    );
  };
  for (const customer of automatic) {
    const primaryId = primaries.get(customer.id)?.paymentMethodId;
    const method = primaryId === undefined ? undefined : methods.get(primaryId);
    const primary = method && {
      id: method.id,
      kind: method.type,
      isValid: method.isValid,
      gatewayId: method.gatewayId,
    };
    result.set(customer.id, customerCollection(customer, primary, abilities, accountPrimary?.id ?? null));
  }
  return result;
}

/** What an invoice's collection is read from and shows. */
export type InvoiceCollection = Pick<
  Invoice,
  | 'id'
  | 'customer'
  | 'followsCustomer'
  | 'collectionMethod'
  | 'gatewayId'
  | 'customerPaymentMethodId'
  | 'collectionProblem'
  | 'isDraft'
  | 'isCancelled'
  | 'balances'
  | 'numTries'
  | 'nextTryDate'
  | 'dueDate'
>;

/**
 * The invoices with what their collection is now: those that follow their customer show what the customer's
 * settings will do (the method, gateway and payment method they resolve to, or why they cannot collect it) and
 * when it is tried next: the first try on the due date of one owed and not tried yet (none once it is paid or
 * while its first charge waits for its answer, as for an invoice with its own collection), and no try at all while
 * the settings cannot collect it or leave it to the customer. The others as they are. `inFlight`: those of them
 * being charged now, which only the collections module knows (the read model in src/readModels/ asks it); the row of
 * one never tried reads the same.
 */
export async function withEffectiveCollection<T extends InvoiceCollection>(
  ctx: ServiceContext,
  invoices: readonly T[],
  inFlight: ReadonlySet<number>,
): Promise<T[]> {
  const following = invoices.filter((invoice) => invoice.followsCustomer);
  if (following.length === 0) return [...invoices];
  const collections = await customerCollectionsOf(ctx, [
    ...new Map(following.map((invoice) => [invoice.customer.id, invoice.customer])).values(),
  ]);
  const firstTryDue = (invoice: T) =>
    !invoice.isDraft &&
    !invoice.isCancelled &&
    invoice.balances.balanceMinor > 0 &&
    invoice.numTries === 0 &&
    invoice.nextTryDate === null &&
    (invoice.id === null || !inFlight.has(invoice.id));
  return invoices.map((invoice) => {
    const collection = invoice.followsCustomer ? collections.get(invoice.customer.id) : undefined;
    if (!collection) return invoice;
    // No try is planned while the settings leave it to the customer or cannot collect it; a retry scheduled
    // before is made by the first run after they can.
    if (collection.kind === 'manual')
      return { ...invoice, collectionMethod: collection.method, nextTryDate: null };
    const firstTry =
      collection.kind === 'automatic' && collection.method === 'credit_card' && firstTryDue(invoice)
        ? startOfDate(invoice.dueDate, ctx.account.timeZone)
        : undefined;
    return {
      ...invoice,
      collectionMethod: collection.method,
      gatewayId: collection.gatewayId,
      customerPaymentMethodId: collection.kind === 'automatic' ? collection.paymentMethodId : null,
      collectionProblem: collection.kind === 'blocked' ? collection.message : invoice.collectionProblem,
      nextTryDate: collection.kind === 'blocked' ? null : (firstTry ?? invoice.nextTryDate),
    };
  });
}

async function collectablesFromRecords(
  ctx: ServiceContext,
  records: CollectableInvoiceRecord[],
): Promise<CollectableInvoice[]> {
  const following = records
    .filter((record) => record.collectionMethod === null)
    .map((record) => record.customerId);
  const customers = following.length === 0 ? new Map() : await customersByIds(ctx, following);
  const collections = await customerCollectionsOf(ctx, [...customers.values()]);
  return records.map((record) => collectableFromRecord(record, collections));
}

/**
 * Invoices collected by `method` to take now, by id: cards to charge (their first try on their due date, `byDate`
 * today), or debit orders to put in a batch (due by `byDate`, the earliest action date a batch submitted now can
 * have); retries when scheduled by `by`. Those that follow their customer come with what the customer's settings
 * resolve to now.
 */
export async function listInvoicesDue(
  ctx: ServiceContext,
  method: AutomaticMethod,
  by: string,
  byDate: PlainDate,
  limit: number,
  afterId = 0,
): Promise<CollectableInvoice[]> {
  const records = await repo.listInvoicesDue(
    ctx.db,
    ctx.account.id,
    method,
    paymentMethodsAsking(method),
    by,
    byDate,
    { limit, afterId },
  );
  return collectablesFromRecords(ctx, records);
}

/**
 * The invoice if it is to be collected by `now` (the test of listInvoicesDue), as it stands: read again under
 * the customer's lock before an attempt, since a list taken earlier may be stale (another process's attempt
 * recorded since, a new card, a payment, the customer's settings changed).
 */
export async function findInvoiceDue(
  ctx: ServiceContext,
  method: AutomaticMethod,
  invoiceId: number,
  now: string,
  today: string,
): Promise<CollectableInvoice | undefined> {
  return (await findInvoicesDue(ctx, method, [invoiceId], now, today))[0];
}

/** Those of the invoices to be collected by `now`, as findInvoiceDue reads one, in one read; by id. */
export async function findInvoicesDue(
  ctx: ServiceContext,
  method: AutomaticMethod,
  invoiceIds: readonly number[],
  now: string,
  today: string,
): Promise<CollectableInvoice[]> {
  const records = await repo.listInvoicesDue(
    ctx.db,
    ctx.account.id,
    method,
    paymentMethodsAsking(method),
    now,
    today,
    { onlyIds: invoiceIds },
  );
  return collectablesFromRecords(ctx, records);
}

/**
 * Which method the invoice is collected from now: a new primary card may have replaced the one an attempt used,
 * named by the invoice or, for one that follows its customer, by the customer's settings.
 */
export async function collectionMethodOf(ctx: ServiceContext, invoiceId: number): Promise<number | null> {
  const record = await repo.findCollectableInvoice(ctx.db, ctx.account.id, invoiceId);
  if (!record) return null;
  return (await collectablesFromRecords(ctx, [record]))[0]!.paymentMethodId;
}

/**
 * Records a collection attempt's effect on the invoice (docs/design/collections.md, "NumTries and NextTryDate"):
 * NumTries counts the attempts that reached a gateway; NextTryDate is the next automatic attempt, or null (in
 * flight, stopped, paid).
 */
export function setCollectionSchedule(
  ctx: ServiceContext,
  invoiceId: number,
  changes: { addTry: boolean; nextTryDate: string | null },
): Promise<void> {
  return setCollectionSchedules(ctx, [invoiceId], changes);
}

/** The same change of NumTries and NextTryDate on each of the invoices (setCollectionSchedule), at once. */
export async function setCollectionSchedules(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
  changes: { addTry: boolean; nextTryDate: string | null },
): Promise<void> {
  if (invoiceIds.length === 0) return;
  await repo.setCollectionSchedule(ctx.db, ctx.account.id, invoiceIds, {
    ...changes,
    updatedAt: ctx.clock.now().toISOString(),
  });
}

/**
 * Counts a try on each invoice at once, with no next one until the gateway or the bank answers (a batch handed to
 * its gateway: docs/design/batches.md, "NumTries for debits"), or `nextTryDate` when the try is itself still to
 * come (a debit order's action date: docs/gateways.md, "Debit orders on the mandate's day"), in the caller's
 * transaction; returns their
 * `invoice.updated` events. NOTE: each invoice is rendered once, before the change, and the object after it is that
 * one with the fields the change moves (`withTryCounted`), not read and rendered again: for a 500-line batch the
 * second rendering cost as much as the rest of the build's transaction (docs/benchmarks.md, "Batches").
 */
export async function countCollectionTries(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
  nextTryDate: string | null = null,
): Promise<EventToEmit[]> {
  await repo.lockInvoicesInIdOrder(ctx.db, ctx.account.id, invoiceIds);
  const before = await snapshotResources(ctx, 'invoice', invoiceIds);
  const updatedAt = ctx.clock.now().toISOString();
  await repo.countTryOn(ctx.db, ctx.account.id, invoiceIds, updatedAt, nextTryDate);
  return invoiceIds.map((id) => {
    const snapshot = before.get(id);
    return {
      type: 'invoice.updated',
      ref: invoiceRef(id),
      before: snapshot,
      ...(snapshot?.object ? { after: withTryCounted(snapshot.object, updatedAt, nextTryDate) } : {}),
    };
  });
}

/**
 * The customer's owed invoices a new primary method may collect: card invoices through the new card's gateway
 * (`card`), and those that follow the customer.
 */
export async function listOwedInvoicesForNewPrimary(
  ctx: ServiceContext,
  customerId: number,
  card: { gatewayId: number } | undefined,
): Promise<CollectableInvoice[]> {
  const records = await repo.listOwedInvoicesForNewPrimary(ctx.db, ctx.account.id, customerId, card);
  return collectablesFromRecords(ctx, records);
}

/** Records the problem the customer's settings have with the invoice, once the customer has been told. */
export function setCollectionProblem(
  ctx: ServiceContext,
  invoiceId: number,
  problem: CollectionProblemCode | HeldCollectionProblem | null,
): Promise<void> {
  return repo.setCollectionProblem(ctx.db, ctx.account.id, invoiceId, problem, ctx.clock.now().toISOString());
}

/**
 * Moves an invoice's collection to another card of its customer (null: it follows the customer's), sets when it
 * is tried next, and forgets the problem the customer was told of.
 */
export function setCollectionMethodAndTry(
  ctx: ServiceContext,
  invoiceId: number,
  changes: { paymentMethodId: number | null; nextTryDate: string | null },
): Promise<void> {
  return repo.setCollectionMethodAndTry(ctx.db, ctx.account.id, invoiceId, {
    ...changes,
    updatedAt: ctx.clock.now().toISOString(),
  });
}

/**
 * NextTryDate of an invoice as it is issued (docs/design/collections.md, "NumTries and NextTryDate": before the
 * first attempt it is that attempt): the start of its due date in the account's time zone for an issued card invoice
 * with a gateway and a method; null otherwise (a draft, or money collected another way).
 */
export function firstCollectionTry(
  invoice: Pick<
    InvoiceRecord,
    'isDraft' | 'collectionMethod' | 'gatewayId' | 'customerPaymentMethodId' | 'dueDate'
  >,
  timeZone: string,
): string | null {
  const automatic =
    invoice.collectionMethod === 'credit_card' &&
    invoice.gatewayId !== null &&
    invoice.customerPaymentMethodId !== null;
  return automatic && !invoice.isDraft ? startOfDate(invoice.dueDate, timeZone) : null;
}

/**
 * What each invoice's PDF and e-mail say of its collection when the service will take the money itself (docs/
 * gateways.md; for a SEPA debit, the pre-notification the rulebook requires): "This amount will be charged to Visa
 * ending 4242 on or after 27 Jan 2027." / "… debited from account ending 0001 …". Undefined for one the customer
 * pays (their payment instructions are printed instead). One statement for any number of invoices, whose
 * collection is resolved here.
 */
export async function automaticCollectionNotes(
  ctx: ServiceContext,
  invoices: readonly InvoiceCollection[],
): Promise<(string | undefined)[]> {
  // What is said does not depend on when the invoice is tried: no attempts need reading.
  const resolved = (await withEffectiveCollection(ctx, invoices, new Set())).map((invoice) => {
    const automatic =
      invoice.collectionMethod === 'credit_card' || invoice.collectionMethod === 'debit_order';
    return automatic && !invoice.isDraft ? invoice : undefined;
  });
  const methods = await unopenedPaymentMethodsByIds(
    ctx,
    resolved.flatMap((invoice) =>
      invoice?.customerPaymentMethodId ? [invoice.customerPaymentMethodId] : [],
    ),
  );
  const blocked = await blockedNotes(
    ctx,
    resolved.filter((invoice) => invoice?.collectionProblem != null).map((invoice) => invoice!.customer),
  );
  const methodOf = (invoice: InvoiceCollection) =>
    invoice.customerPaymentMethodId ? methods.get(invoice.customerPaymentMethodId) : undefined;
  // A debit not planned yet is announced for the day the run will plan (plannedDebits.ts), not its due date.
  const planned = await plannedDebitTries(
    ctx,
    resolved.flatMap((invoice) => {
      const method = invoice && methodOf(invoice);
      const unplanned =
        invoice?.collectionMethod === 'debit_order' &&
        invoice.id !== null &&
        invoice.collectionProblem === null &&
        invoice.numTries === 0 &&
        invoice.nextTryDate === null;
      return unplanned && method ? [{ invoiceId: invoice.id!, dueDate: invoice.dueDate, method }] : [];
    }),
  );
  return resolved.map((invoice) => {
    if (!invoice) return undefined;
    if (invoice.collectionProblem !== null) return blocked.get(invoice.customer.id);
    const method = methodOf(invoice);
    const nextTryDate =
      invoice.nextTryDate ?? (invoice.id === null ? undefined : planned.get(invoice.id)) ?? null;
    return method && collectingWords(method, { dueDate: invoice.dueDate, nextTryDate }, ctx.account.timeZone);
  });
}

/**
 * What customers whose settings cannot collect their invoices are asked to do (collectionNoteWords.ts), by customer:
 * read only for them, so the usual note costs nothing more.
 */
async function blockedNotes(
  ctx: ServiceContext,
  customers: readonly Customer[],
): Promise<Map<number, string>> {
  const notes = new Map<number, string>();
  if (customers.length === 0) return notes;
  const collections = await customerCollectionsOf(ctx, customers);
  const primaries = await primaryPaymentMethodsOf(
    ctx,
    customers.map((customer) => customer.id),
  );
  const methods = await unopenedPaymentMethodsByIds(
    ctx,
    [...primaries.values()].map((primary) => primary.paymentMethodId),
  );
  for (const [customerId, collection] of collections) {
    if (collection.kind !== 'blocked') continue;
    const primaryId = primaries.get(customerId)?.paymentMethodId;
    const primary = primaryId === undefined ? undefined : methods.get(primaryId);
    notes.set(customerId, blockedWords(collection.problem, collection.method, primary));
  }
  return notes;
}

/** The collection of a stored invoice, from its record and its customer. */
export function collectionOfRecord(record: InvoiceRecord, customer: Customer): InvoiceCollection {
  return {
    id: record.id,
    customer,
    followsCustomer: record.collectionMethod === null,
    collectionMethod: record.collectionMethod,
    gatewayId: record.gatewayId,
    customerPaymentMethodId: record.customerPaymentMethodId,
    collectionProblem: null,
    isDraft: record.isDraft,
    isCancelled: record.isCancelled,
    balances: invoiceBalances(moneyOf(record)),
    numTries: record.numTries,
    nextTryDate: record.nextTryDate,
    dueDate: record.dueDate,
  };
}
