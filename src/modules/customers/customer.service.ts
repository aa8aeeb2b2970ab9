import { emitEvent, emitEvents, snapshotResource } from '../events/index.ts';
import type { EventToEmit, ResourceRef, Snapshot } from '../events/index.ts';
import { inTransaction, nowInstant, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { Page } from '../../core/paging.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import * as repo from './customer.repository.ts';
import type { CustomerOfRow, CustomerPick, FigureValues } from './customer.repository.ts';
import type { AliasableExpression } from 'kysely';
import type { BillingProfile, Customer, CustomerChanges } from './customer.ts';
import { customFieldValues, setCustomFieldValues } from './customField.service.ts';
import * as contactRepo from './contact.repository.ts';
import * as noteRepo from './note.repository.ts';
import type { CustomFieldValue } from './customField.service.ts';
import { currencyProblems } from '../catalogue/index.ts';
import { assertGatewayUsable } from '../gateways/index.ts';
import { checkedChanges, statusChanges } from './customerInput.ts';
import type { CustomerInput } from './customerInput.ts';

/**
 * Figures computed from a customer's records in higher modules (invoices, money, subscriptions, payment methods).
 * This module only carries them to the wire; the read model in `src/readModels/` computes them.
 */
export interface CustomerFigures {
  /** In the customer's currency's minor unit. */
  balanceMinor: number;
  activeSubscriptions: number;
  primaryPaymentMethod: { paymentMethodId: number; token: string } | null;
}

export type CustomerWithFigures = Customer & { figures: CustomerFigures };

export type { CustomerInput } from './customerInput.ts';
export type { CustomerOfRow, CustomerPick } from './customer.repository.ts';

/**
 * A figure of a customer that a higher module computes (docs/architecture.md, "Module order": figures that combine
 * modules are read models above them): its columns in the statement that reads the customer, each a scalar
 * subquery correlated with the customer's row, and how its value is read from them.
 */
export interface CustomerFigure<T> {
  columns(customer: CustomerOfRow): Record<string, AliasableExpression<unknown>>;
  read(column: (name: string) => unknown): T;
}

type ValuesOf<F extends Record<string, CustomerFigure<unknown>>> = {
  [K in keyof F]: F[K] extends CustomerFigure<infer T> ? T : never;
};

/**
 * Reads of customers with `figures`, each read in the statement that reads the customers: one statement for a
 * customer with its figures, one for the figures of a page of customers. Build it once (it compiles its
 * statements on first use). A figure's columns are named `<figure>.<column>`, apart from the customer's own.
 */
export function customerReadModel<F extends Record<string, CustomerFigure<unknown>>>(figures: F) {
  const named = Object.entries(figures);
  const reads = repo.customerReadsWith((customer) =>
    Object.fromEntries(
      named.flatMap(([key, figure]) =>
        Object.entries(figure.columns(customer)).map(([name, column]) => [`${key}.${name}`, column]),
      ),
    ),
  );
  const valuesOf = (values: FigureValues): ValuesOf<F> => {
    const result: Record<string, unknown> = {};
    for (const [key, figure] of named) result[key] = figure.read((name) => values[`${key}.${name}`]);
    return result as ValuesOf<F>;
  };
  return {
    /** The customer with its figures as of the account's today; NotFound when the account has no such customer. */
    async getCustomerWithFigures(
      ctx: ServiceContext,
      customerId: number,
    ): Promise<{ customer: Customer; figures: ValuesOf<F> }> {
      const found = await reads.findCustomerWithFigures(ctx.db, ctx.account.id, customerId, today(ctx));
      if (!found) throw new NotFoundError('Customer', customerId);
      return { customer: found.customer, figures: valuesOf(found.figures) };
    },
    /**
     * The customers whose ids `pick` selects for these keys (another module's rows, read in the same statement),
     * with their figures as of the account's today, by id: built once, like the model.
     */
    pickedBy(pick: CustomerPick) {
      const read = reads.customersPickedBy(pick);
      return async (
        ctx: ServiceContext,
        keys: readonly number[],
      ): Promise<Map<number, { customer: Customer; figures: ValuesOf<F> }>> => {
        const found = await read(ctx.db, ctx.account.id, [...new Set(keys)], today(ctx));
        return new Map(
          found.map(({ customer, figures }) => [customer.id, { customer, figures: valuesOf(figures) }]),
        );
      };
    },
    /** The figures of these customers of the account as of its today, by id (ids it cannot see are left out). */
    async figuresOf(ctx: ServiceContext, customerIds: readonly number[]): Promise<Map<number, ValuesOf<F>>> {
      const rows = await reads.figuresOf(ctx.db, ctx.account.id, [...new Set(customerIds)], today(ctx));
      return new Map([...rows].map(([id, values]) => [id, valuesOf(values)]));
    },
  };
}

export async function getCustomer(ctx: ServiceContext, customerId: number): Promise<Customer> {
  const customer = await repo.findCustomer(ctx.db, ctx.account.id, customerId);
  if (!customer) throw new NotFoundError('Customer', customerId);
  return customer;
}

/** The account's customers with these ids, by id (ids it cannot see are left out): a fixed number of statements. */
export async function customersByIds(
  ctx: ServiceContext,
  customerIds: readonly number[],
): Promise<Map<number, Customer>> {
  if (customerIds.length === 0) return new Map();
  const ids = [...new Set(customerIds)];
  const customers = await repo.findCustomers(ctx.db, ctx.account.id, ids);
  return new Map(customers.map((customer) => [customer.id, customer]));
}

/**
 * Locks the customer for a change to its money until the transaction ends (see lockCustomerRow), and returns
 * its currency; not-found unless it belongs to the context's account.
 */
export async function lockCustomerForMoney(
  ctx: ServiceContext,
  customerId: number,
): Promise<{ id: number; currencyCode: string }> {
  const locked = await repo.lockCustomerRow(ctx.db, ctx.account.id, customerId);
  if (!locked) throw new NotFoundError('Customer', customerId);
  return locked;
}

/**
 * Locks the customers for changes to their money until the transaction ends, as lockCustomerForMoney locks one,
 * in one statement and in id order; not-found unless each belongs to the context's account.
 */
export async function lockCustomersForMoney(
  ctx: ServiceContext,
  customerIds: readonly number[],
): Promise<void> {
  const locked = new Set(await repo.lockCustomerRows(ctx.db, ctx.account.id, customerIds));
  const missing = customerIds.find((id) => !locked.has(id));
  if (missing !== undefined) throw new NotFoundError('Customer', missing);
}

/** Throws not-found unless the customer belongs to the context's account. */
export async function assertCustomerExists(ctx: ServiceContext, customerId: number): Promise<void> {
  if (!(await repo.customerExists(ctx.db, ctx.account.id, customerId))) {
    throw new NotFoundError('Customer', customerId);
  }
}

/** How many of the account's customers are billed in the currency (a currency in use cannot be removed). */
export function countCustomersWithCurrency(ctx: ServiceContext, currencyCode: string): Promise<number> {
  return repo.countCustomersWithCurrency(ctx.db, ctx.account.id, currencyCode);
}

export async function listCustomers(ctx: ServiceContext, page: Page, ids?: number[]): Promise<Customer[]> {
  return repo.listCustomers(ctx.db, ctx.account.id, page, ids);
}

export async function listCustomersWithCustomFields(
  ctx: ServiceContext,
  page: Page,
): Promise<{ customer: Customer; customFields: CustomFieldValue[] }[]> {
  const customers = await listCustomers(ctx, page);
  const values = await customFieldValues(
    ctx,
    customers.map((c) => c.id),
  );
  return customers.map((customer) => ({ customer, customFields: values.get(customer.id) ?? [] }));
}

async function assertReferenceFree(
  ctx: ServiceContext,
  reference: string,
  customerId?: number,
): Promise<void> {
  const holder = await repo.findCustomerIdByReference(ctx.db, ctx.account.id, reference);
  if (holder && holder.id !== customerId) {
    throw new ConflictError('reference_taken', `Reference "${reference}" belongs to customer ${holder.id}`);
  }
}

function referenceConflict(error: unknown, reference: string | null | undefined): unknown {
  return isUniqueViolation(error)
    ? new ConflictError('reference_taken', `Reference "${reference}" belongs to another customer`)
    : error;
}

export async function createCustomer(
  ctx: ServiceContext,
  input: CustomerInput & { name: string },
): Promise<Customer> {
  const problems: FieldProblem[] = [];
  const changes = checkedChanges(ctx, input, problems);
  problems.push(...(await currencyProblems(ctx, { CurrencyCode: changes.currencyCode }, problems)));
  if (problems.length) throw new ValidationError(problems);
  if (changes.primaryGatewayId) {
    await assertGatewayUsable(ctx, changes.primaryGatewayId, 'PrimaryGatewayID');
  }
  if (changes.reference) await assertReferenceFree(ctx, changes.reference);
  const now = ctx.clock.now().toISOString();
  let customerId: number;
  try {
    customerId = await ctx.db.transaction().execute(async (trx) => {
      const id = await repo.insertCustomer(trx, {
        accountId: ctx.account.id,
        name: changes.name!,
        currencyCode: ctx.account.currencyCode,
        isCompany: false,
        isActive: true,
        isSuspended: false,
        isWaiveTaxes: false,
        autoSendInvoice: true,
        autoSendStatement: false,
        ...changes,
        ...statusChanges(ctx, undefined, input),
        createdAt: now,
        updatedAt: now,
      });
      if (input.customFields) await setCustomFieldValues(inTransaction(ctx, trx), id, input.customFields);
      await emitEvent(inTransaction(ctx, trx), 'customer.created', { type: 'customer', id });
      return id;
    });
  } catch (error) {
    throw referenceConflict(error, changes.reference);
  }
  return getCustomer(ctx, customerId);
}

/** Partial update: fields left out keep their values; null clears a field. */
export async function editCustomer(
  ctx: ServiceContext,
  customerId: number,
  input: CustomerInput,
): Promise<void> {
  const current = await repo.findCustomer(ctx.db, ctx.account.id, customerId);
  if (!current) throw new NotFoundError('Customer', customerId);
  const problems: FieldProblem[] = [];
  const changes = checkedChanges(ctx, input, problems, current);
  problems.push(...(await currencyProblems(ctx, { CurrencyCode: changes.currencyCode }, problems)));
  if (problems.length) throw new ValidationError(problems);
  // The gateway kept as it is passes even when disabled since: clients send back whole customers they read.
  if (changes.primaryGatewayId && changes.primaryGatewayId !== current.primaryGatewayId) {
    await assertGatewayUsable(ctx, changes.primaryGatewayId, 'PrimaryGatewayID');
  }
  if (changes.reference) await assertReferenceFree(ctx, changes.reference, customerId);
  const status = statusChanges(ctx, current, input);
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const tctx = inTransaction(ctx, trx);
      const ref = customerRef(customerId);
      const before = await snapshotResource(tctx, ref);
      const updated = await repo.updateCustomer(trx, ctx.account.id, customerId, {
        ...changes,
        ...status,
        updatedAt: ctx.clock.now().toISOString(),
      });
      if (!updated) throw new NotFoundError('Customer', customerId);
      if (input.customFields) await setCustomFieldValues(tctx, customerId, input.customFields);
      await emitEvents(tctx, customerChangeEvents(ref, before, current, status));
    });
  } catch (error) {
    throw referenceConflict(error, changes.reference);
  }
}

const customerRef = (id: number): ResourceRef => ({ type: 'customer', id });

/**
 * `customer.updated` for any change the customer's object shows, and with it the lifecycle events of the status
 * flags that moved (Spec: isActive false is Archived; isSuspended), all carrying the same `previous`.
 */
function customerChangeEvents(
  ref: ResourceRef,
  before: Snapshot,
  current: Customer,
  status: CustomerChanges,
): EventToEmit[] {
  const events: EventToEmit[] = [{ type: 'customer.updated', ref, before }];
  const moved = (changed: boolean | undefined, was: boolean) => changed !== undefined && changed !== was;
  if (moved(status.isActive, current.isActive)) {
    events.push({ type: status.isActive ? 'customer.reopened' : 'customer.archived', ref, before });
  }
  if (moved(status.isSuspended, current.isSuspended)) {
    events.push({ type: status.isSuspended ? 'customer.suspended' : 'customer.unsuspended', ref, before });
  }
  return events;
}

export async function setCustomerActive(
  ctx: ServiceContext,
  customerId: number,
  isActive: boolean,
): Promise<void> {
  await editCustomer(ctx, customerId, { isActive });
}

export async function setCustomerSuspended(
  ctx: ServiceContext,
  customerId: number,
  isSuspended: boolean,
): Promise<void> {
  await editCustomer(ctx, customerId, { isSuspended });
}

/**
 * What higher modules keep of a customer (invoicing, subscriptions, the ledger), counted by the flow that deletes it
 * in the deleting transaction (src/flows/deleteCustomer.ts): this module sits below them and cannot ask.
 */
export interface CustomerRecords {
  invoices: number;
  /** Ended ones included. */
  subscriptions: number;
  recurringInvoices: number;
  /** Payments, credit notes or adjustments. */
  moneyRecords: boolean;
}

/** What a customer's deletion announces, snapshotted before anything of it goes. */
export interface CustomerDeletion {
  customerId: number;
  before: Snapshot;
  details: Snapshot[];
}

function customerHasInvoices(customerId: number): ConflictError {
  return new ConflictError(
    'customer_has_invoices',
    `Customer ${customerId} has invoices; archive it instead`,
  );
}

/**
 * The first step of deleting a customer, in the deleting transaction: refused when records of higher modules keep
 * it, in this order. One with invoices cannot be deleted (409; archive it instead): its invoices are the account's
 * records. Nor one with subscriptions (409 `customer_has_subscriptions`), recurring invoices, or payments, credit
 * notes or adjustments (409 `customer_has_payments`). Then the snapshots its events carry, taken before anything of
 * it goes (its payment methods go next, in the flow).
 */
export async function startCustomerDeletion(
  ctx: ServiceContext,
  customerId: number,
  records: CustomerRecords,
): Promise<CustomerDeletion> {
  if (records.invoices > 0) throw customerHasInvoices(customerId);
  // Subscriptions, ended ones included, are records of what the customer was billed for, as invoices are.
  if (records.subscriptions > 0) {
    throw new ConflictError(
      'customer_has_subscriptions',
      `Customer ${customerId} has ${records.subscriptions} subscription(s); archive it instead`,
    );
  }
  if (records.recurringInvoices > 0) {
    throw new ConflictError(
      'customer_has_recurring_invoices',
      `Customer ${customerId} has recurring invoices; archive it instead`,
    );
  }
  if (records.moneyRecords) {
    throw new ConflictError(
      'customer_has_payments',
      `Customer ${customerId} has payments, credit notes or adjustments; archive it instead`,
    );
  }
  const before = await snapshotResource(ctx, customerRef(customerId));
  return { customerId, before, details: await detailSnapshots(ctx, customerId) };
}

/**
 * The last step: deletes the customer with its contacts, notes and custom field values, each announcing its own
 * deletion as when deleted one by one; 404 when the account has no such customer. It checks nothing: the flow
 * started the deletion with startCustomerDeletion in the same transaction.
 */
export async function deleteCustomerRecord(ctx: ServiceContext, deletion: CustomerDeletion): Promise<void> {
  const { customerId, before, details } = deletion;
  if (!(await repo.deleteCustomer(ctx.db, ctx.account.id, customerId))) {
    throw new NotFoundError('Customer', customerId);
  }
  await emitEvents(ctx, [
    ...details.map((snapshot) => ({
      type: `${snapshot.ref.type}.deleted`,
      ref: snapshot.ref,
      before: snapshot,
    })),
    { type: 'customer.deleted', ref: customerRef(customerId), before },
  ]);
}

/**
 * A customer's delete that a foreign key refused: a record made between the counts and the delete (an invoice, a
 * payment). `invoices`: its invoices counted again, after the refused transaction.
 */
export function customerInUse(customerId: number, invoices: number): ConflictError {
  if (invoices > 0) return customerHasInvoices(customerId);
  return new ConflictError('customer_in_use', `Customer ${customerId} has records; archive it instead`);
}

async function detailSnapshots(ctx: ServiceContext, customerId: number): Promise<Snapshot[]> {
  const contacts = await contactRepo.contactIdsOfCustomer(ctx.db, ctx.account.id, customerId);
  const notes = await noteRepo.noteIdsOfCustomer(ctx.db, ctx.account.id, customerId);
  const refs: ResourceRef[] = [
    ...contacts.map((id) => ({ type: 'customer_contact', id })),
    ...notes.map((id) => ({ type: 'customer_note', id })),
  ];
  const snapshots: Snapshot[] = [];
  for (const ref of refs) snapshots.push(await snapshotResource(ctx, ref));
  return snapshots;
}

export type { BillingProfile } from './customer.ts';

export async function billingProfiles(
  ctx: ServiceContext,
  customerIds: number[],
): Promise<Map<number, BillingProfile>> {
  return repo.listBillingProfiles(ctx.db, ctx.account.id, [...new Set(customerIds)]);
}

/** Customers read per statement by the bill run's statement step. */
const STATEMENT_CUSTOMERS_PER_READ = 250;

/**
 * The active autoSendStatement customers whose StatementDate falls on or before `before`'s day (`before`: the
 * instant the next day begins), or, with `unscheduled`, those with no StatementDate; up to 250, by id.
 */
export function listStatementCustomers(
  ctx: ServiceContext,
  filter: { before: string } | { unscheduled: true },
): Promise<Customer[]> {
  return repo.listStatementCustomers(ctx.db, ctx.account.id, filter, STATEMENT_CUSTOMERS_PER_READ);
}

/**
 * Moves a customer's StatementDate on (setting StatementLastSentDate when a statement was sent), only while it is
 * still `from` (a conditional update): whether this call moved it. Call it in the transaction that queues the
 * statement, so the e-mail and the move land together or not at all.
 */
export async function moveStatementDate(
  ctx: ServiceContext,
  customerId: number,
  change: { from: string | null; to: string; sentAt: string | null },
): Promise<boolean> {
  const ref = customerRef(customerId);
  const before = await snapshotResource(ctx, ref);
  const moved = await repo.moveStatementDate(ctx.db, ctx.account.id, customerId, {
    ...change,
    updatedAt: nowInstant(ctx),
  });
  // The customer shows StatementDate and StatementLastSentDate: integrators see them move.
  if (moved) await emitEvent(ctx, 'customer.updated', ref, { before });
  return moved;
}
