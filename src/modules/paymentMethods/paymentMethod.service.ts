import type { ServiceContext } from '../../context.ts';
import { inTransaction, nowInstant, withTransaction } from '../../context.ts';
import type { Page } from '../../core/paging.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../../storage/database.ts';
import { assertCustomerExists } from '../customers/index.ts';
import type { CustomerFigure } from '../customers/index.ts';
import { emitEvent, emitEvents, snapshotResource, snapshotResources } from '../events/index.ts';
import type { EventToEmit, Snapshot } from '../events/index.ts';
import { gatewayAccepts } from '../gateways/index.ts';
import type { Gateway, PaymentMethodKind } from '../gateways/index.ts';
import { emandateTokensOfPaymentMethods, unlinkEmandates } from '../mandates/index.ts';
import * as repo from './paymentMethod.repository.ts';
import type {
  BankAccountDetails,
  NewPaymentMethod,
  PaymentMethod,
  SealedPaymentMethod,
} from './paymentMethod.ts';

/**
 * The bank account's number, IBAN and identity number opened (spec: the single-item read returns the full set; the
 * identity number is for the gateway, never shown).
 */
function opened(ctx: ServiceContext, method: SealedPaymentMethod): PaymentMethod {
  const { sealed, ...unopened } = method;
  if (unopened.bankAccount === null) return unopened;
  const secrets: BankAccountDetails['secrets'] = {
    accountNumber: sealed.accountNumberSealed === null ? null : ctx.secrets.open(sealed.accountNumberSealed),
    iban: sealed.ibanSealed === null ? null : ctx.secrets.open(sealed.ibanSealed),
    idNumber: sealed.idNumberSealed === null ? null : ctx.secrets.open(sealed.idNumberSealed),
  };
  return { ...unopened, bankAccount: { ...unopened.bankAccount, secrets } };
}

/** Spec: a bank account shows the token of its linked eMandate (EMandateToken); the API's reads add it. */
async function withEmandateTokens(ctx: ServiceContext, methods: PaymentMethod[]): Promise<PaymentMethod[]> {
  const banks = methods.filter((method) => method.bankAccount !== null).map((method) => method.id);
  if (banks.length === 0) return methods;
  const tokens = await emandateTokensOfPaymentMethods(ctx, banks);
  return methods.map((method) =>
    tokens.has(method.id)
      ? { ...method, bankAccount: { ...method.bankAccount!, emandateToken: tokens.get(method.id)! } }
      : method,
  );
}

/**
 * A payment method as an add answers it: the bank account number and IBAN are not opened (a response need not
 * show what the client just sent, and its copy is kept for Idempotency-Key replays).
 */
export async function readUnopenedPaymentMethod(
  ctx: ServiceContext,
  paymentMethodId: number,
): Promise<PaymentMethod> {
  const found = await repo.findPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
  if (!found) throw new NotFoundError('Payment method', paymentMethodId);
  const [method] = await withEmandateTokens(ctx, [found]);
  return method!;
}

/** The full payment method, bank account number and IBAN opened (spec: the single-item read returns the full set). */
export async function getPaymentMethod(ctx: ServiceContext, paymentMethodId: number): Promise<PaymentMethod> {
  const found = await repo.findSealedPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
  if (!found) throw new NotFoundError('Payment method', paymentMethodId);
  const [method] = await withEmandateTokens(ctx, [opened(ctx, found)]);
  return method!;
}

/**
 * The account's payment methods with these ids, bank account numbers and IBANs opened: what a batch sends to its
 * gateway or writes in its bank file (unknown ids left out).
 */
export async function openedPaymentMethodsByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, PaymentMethod>> {
  const methods = await repo.findSealedPaymentMethods(ctx.db, ctx.account.id, ids);
  return new Map(methods.map((method) => [method.id, opened(ctx, method)]));
}

/**
 * The account's payment methods with these ids, unopened (no bank account number or IBAN), as an add answers
 * them: what events show (unknown ids left out).
 */
export async function unopenedPaymentMethodsByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, PaymentMethod>> {
  const methods = await repo.findPaymentMethods(ctx.db, ctx.account.id, ids);
  return new Map(methods.map((method) => [method.id, method]));
}

/** The account's payment methods, or one customer's (404 when the customer is not the account's), by id. */
export async function listPaymentMethods(
  ctx: ServiceContext,
  page: Page,
  customerId?: number,
): Promise<PaymentMethod[]> {
  if (customerId !== undefined) await assertCustomerExists(ctx, customerId);
  const methods = await repo.listPaymentMethods(ctx.db, ctx.account.id, page, customerId);
  // Spec: only the account-wide list shows EMandateToken.
  return customerId === undefined ? withEmandateTokens(ctx, methods) : methods;
}

export const paymentMethodRef = (id: number) => ({ type: 'payment_method', id });

/**
 * The customer's primary method before a change that may move it (read under the customer's lock), to give its
 * `payment_method.updated` a `previous.isPrimary`.
 */
export async function primaryBefore(
  ctx: ServiceContext,
  customerId: number,
  exceptId?: number,
): Promise<Snapshot | undefined> {
  const [primary] = await repo.listPrimaryPaymentMethods(ctx.db, ctx.account.id, [customerId]);
  if (!primary || primary.id === exceptId) return undefined;
  return snapshotResource(ctx, paymentMethodRef(primary.id));
}

/** The events of a method that became primary, and of the one that stopped being it. */
export function primaryMoveEvents(
  method: { id: number; before?: Snapshot },
  formerPrimary: Snapshot | undefined,
): EventToEmit[] {
  return [
    { type: 'payment_method.primary_changed', ref: paymentMethodRef(method.id), before: method.before },
    ...(formerPrimary
      ? [{ type: 'payment_method.updated', ref: formerPrimary.ref, before: formerPrimary }]
      : []),
  ];
}

/** Two first methods of one customer at once are the only race the retry below settles; one more try does it. */
const PRIMARY_ATTEMPTS = 3;

/**
 * Inserts a method with the customer's primary rules: the customer's first method becomes primary whatever
 * isPrimary says (a customer with methods always has one primary); isPrimary true moves the primary to the new
 * one. In one transaction, under the customer's lock.
 */
export async function insertWithPrimaryRules(
  ctx: ServiceContext,
  method: Omit<NewPaymentMethod, 'isPrimary'>,
  wantsPrimary: boolean,
  /** What must land with the method, in its transaction (a bank account's link to its eMandate). */
  afterInsert?: (tctx: ServiceContext, id: number) => Promise<void>,
): Promise<number> {
  // A caller's transaction (a capture session's complete, under the customer's lock) takes the steps once: a
  // unique violation there aborts the whole transaction, and its lock already makes the customer's adds serial.
  if (ctx.db.isTransaction) return insertUnderLock(ctx, method, wantsPrimary, afterInsert);
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db
        .transaction()
        .execute((trx) => insertUnderLock(inTransaction(ctx, trx), method, wantsPrimary, afterInsert));
    } catch (error) {
      // Two first methods of one customer at once: there was no row to lock, and the one-primary index refused
      // the second. Its retry sees the first and follows the rules again.
      if (!isUniqueViolation(error) || attempt >= PRIMARY_ATTEMPTS) throw error;
    }
  }
}

async function insertUnderLock(
  tctx: ServiceContext,
  method: Omit<NewPaymentMethod, 'isPrimary'>,
  wantsPrimary: boolean,
  afterInsert?: (tctx: ServiceContext, id: number) => Promise<void>,
): Promise<number> {
  const trx = tctx.db;
  await repo.lockCustomerPaymentMethods(trx, tctx.account.id, method.customerId);
  const hasPrimary = await repo.hasPrimaryPaymentMethod(trx, tctx.account.id, method.customerId);
  const formerPrimary = wantsPrimary && hasPrimary ? await primaryBefore(tctx, method.customerId) : undefined;
  if (wantsPrimary && hasPrimary) {
    await repo.clearPrimaryPaymentMethod(trx, tctx.account.id, method.customerId, method.updatedAt);
  }
  const isPrimary = wantsPrimary || !hasPrimary;
  const id = await repo.insertPaymentMethod(trx, { ...method, isPrimary });
  if (afterInsert) await afterInsert(tctx, id);
  // A customer's first method is primary without taking it from another: no primary_changed then.
  await emitEvents(tctx, [
    { type: 'payment_method.created', ref: paymentMethodRef(id) },
    ...(formerPrimary ? primaryMoveEvents({ id }, formerPrimary) : []),
  ]);
  if (isPrimary) {
    await tctx.ports.paymentMethods.newPrimary(tctx, {
      customerId: method.customerId,
      paymentMethodId: id,
      type: method.details.type,
      gatewayId: method.gatewayId,
    });
  }
  return id;
}

/** PUT /v1/paymentmethods/{id}/setprimary: the method becomes its customer's only primary, in one transaction. */
export async function setPrimaryPaymentMethod(ctx: ServiceContext, paymentMethodId: number): Promise<void> {
  const current = await repo.findPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
  if (!current) throw new NotFoundError('Payment method', paymentMethodId);
  const now = nowInstant(ctx);
  await ctx.db.transaction().execute(async (trx) => {
    const tctx = inTransaction(ctx, trx);
    await repo.lockCustomerPaymentMethods(trx, ctx.account.id, current.customerId);
    const formerPrimary = await primaryBefore(tctx, current.customerId, paymentMethodId);
    const before = await snapshotResource(tctx, paymentMethodRef(paymentMethodId));
    const set = await repo.setPrimaryPaymentMethod(
      trx,
      ctx.account.id,
      current.customerId,
      paymentMethodId,
      now,
    );
    // Deleted meanwhile: throwing rolls back the clearing of the old primary.
    if (!set) throw new NotFoundError('Payment method', paymentMethodId);
    // Already the primary: nothing an API reader sees has changed.
    if (before.object?.['isPrimary'] !== true) {
      await emitEvents(tctx, primaryMoveEvents({ id: paymentMethodId, before }, formerPrimary));
      await tctx.ports.paymentMethods.newPrimary(tctx, {
        customerId: current.customerId,
        paymentMethodId,
        type: current.type,
        gatewayId: current.gatewayId,
      });
    }
  });
}

/**
 * What higher modules keep that names a payment method (invoicing, collections), counted by the flow that deletes
 * it in the deleting transaction (src/flows/deletePaymentMethod.ts): this module sits below them and cannot ask.
 */
export interface PaymentMethodRecords {
  invoices: number;
  recurringInvoices: number;
  /** Charges of it still waiting for the gateway's answer: their payment will name it. */
  openCollectionAttempts: number;
}

/**
 * Deletes a payment method, in the caller's transaction, given what higher modules keep that names it. Spec,
 * Limits: a primary payment method cannot be deleted (409; make another one primary first). Nor one that an
 * invoice or recurring invoice names as its customerPaymentMethodID, that a payment was made with, or that a charge
 * still waiting for its answer was made with (409 `payment_method_in_use`): those records keep pointing at it.
 */
export async function deletePaymentMethodRecord(
  ctx: ServiceContext,
  paymentMethodId: number,
  records: PaymentMethodRecords,
): Promise<void> {
  const current = await repo.findPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
  if (!current) throw new NotFoundError('Payment method', paymentMethodId);
  const isPrimary = () =>
    new ConflictError(
      'payment_method_is_primary',
      `Payment method ${paymentMethodId} is the customer's primary; make another one primary before deleting it`,
    );
  if (current.isPrimary) throw isPrimary();
  const inUse = (what: string) =>
    new ConflictError('payment_method_in_use', `Payment method ${paymentMethodId} is used by ${what}`);
  if (records.invoices > 0) throw inUse(`${records.invoices} invoice(s)`);
  if (records.recurringInvoices > 0) throw inUse(`${records.recurringInvoices} recurring invoice(s)`);
  const charges = records.openCollectionAttempts;
  if (charges > 0) throw inUse(`${charges} charge(s) still waiting for the gateway's answer`);
  let deleted: boolean;
  try {
    deleted = await withTransaction(ctx, async (tctx) => {
      await repo.lockCustomerPaymentMethods(tctx.db, ctx.account.id, current.customerId);
      const ref = paymentMethodRef(paymentMethodId);
      const before = await snapshotResource(tctx, ref);
      if (!(await repo.deleteNonPrimaryPaymentMethod(tctx.db, ctx.account.id, paymentMethodId))) return false;
      await emitEvent(tctx, 'payment_method.deleted', ref, { before });
      await unlinkEmandates(tctx, [paymentMethodId]);
      return true;
    });
  } catch (error) {
    // Payments refer to their method by a foreign key: the database refuses the delete (and the caller's
    // transaction, which this refusal rolls back).
    if (isForeignKeyViolation(error)) throw inUse('payments');
    throw error;
  }
  if (deleted) return;
  // Made primary or deleted by a concurrent request since it was read.
  const now = await repo.findPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
  if (!now) throw new NotFoundError('Payment method', paymentMethodId);
  throw isPrimary();
}

/**
 * The customer's PrimaryPaymentMethodInfo: its primary method's id and token, or null; read in the statement that
 * reads the customer (customerReadModel).
 */
export const primaryPaymentMethodFigure: CustomerFigure<{ paymentMethodId: number; token: string } | null> = {
  columns: (customer) => ({
    id: repo.primaryPaymentMethodColumnOf(customer, 'id'),
    token: repo.primaryPaymentMethodColumnOf(customer, 'token'),
  }),
  read(column) {
    const id = column('id');
    return id === null || id === undefined
      ? null
      : { paymentMethodId: Number(id), token: String(column('token')) };
  },
};

/**
 * The primary payment method of each of these customers that has one (PrimaryPaymentMethodInfo): one statement for
 * a page of customers.
 */
export async function primaryPaymentMethodsOf(
  ctx: ServiceContext,
  customerIds: readonly number[],
): Promise<Map<number, { paymentMethodId: number; token: string }>> {
  const primaries = await repo.listPrimaryPaymentMethods(ctx.db, ctx.account.id, [...new Set(customerIds)]);
  return new Map(
    primaries.map((primary) => [primary.customerId, { paymentMethodId: primary.id, token: primary.token }]),
  );
}

/** Deletes every method of a customer, in the transaction that deletes the customer, announcing each. */
export async function deletePaymentMethodsOfCustomer(ctx: ServiceContext, customerId: number): Promise<void> {
  const methods = await repo.listPaymentMethods(
    ctx.db,
    ctx.account.id,
    { limit: Number.MAX_SAFE_INTEGER, offset: 0 },
    customerId,
  );
  if (methods.length === 0) return;
  const befores = await snapshotResources(
    ctx,
    'payment_method',
    methods.map((method) => method.id),
  );
  await repo.deleteCustomerPaymentMethods(ctx.db, ctx.account.id, customerId);
  await emitEvents(
    ctx,
    [...befores.values()].map((before) => ({ type: 'payment_method.deleted', ref: before.ref, before })),
  );
  await unlinkEmandates(
    ctx,
    methods.map((method) => method.id),
  );
}

const KIND_NAMES: Record<PaymentMethodKind, string> = {
  credit_card: 'a credit card',
  bank_account: 'a bank account',
};

/**
 * The check behind an invoice's and a recurring invoice's customerPaymentMethodID (spec, Invoice: "must be a kind
 * the gateway supports"): the method must be the customer's, of the kind the collection method draws on
 * (`kind`: credit_card for credit_card, bank_account for debit_order) and of a kind the gateway takes; a card must
 * be kept by that very gateway, since its token means nothing to another. A ValidationError (422) naming `field`
 * otherwise, with the same message whether the method is missing, another customer's or another account's.
 */
export async function assertPaymentMethodUsable(
  ctx: ServiceContext,
  use: { customerId: number; paymentMethodId: number; gateway?: Gateway; kind?: PaymentMethodKind },
  field: string,
): Promise<PaymentMethod> {
  const { customerId, paymentMethodId, gateway, kind } = use;
  const method = await repo.findPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
  if (!method || method.customerId !== customerId) {
    throw ValidationError.field(
      field,
      `customer ${customerId} has no payment method ${paymentMethodId}`,
      'payment_method_not_found',
    );
  }
  const problems: FieldProblem[] = [];
  if (kind && method.type !== kind) {
    problems.push({
      field,
      message: `payment method ${paymentMethodId} is ${KIND_NAMES[method.type]}; this collection method draws on ${KIND_NAMES[kind]}`,
    });
  }
  if (gateway && !gatewayAccepts(gateway, method.type)) {
    problems.push({
      field,
      message: `gateway ${gateway.id} does not collect from ${method.type === 'credit_card' ? 'credit cards' : 'bank accounts'}`,
    });
  } else if (gateway && method.gatewayId !== null && method.gatewayId !== gateway.id) {
    problems.push({
      field,
      message: `payment method ${paymentMethodId} is kept by gateway ${method.gatewayId} and cannot be charged through gateway ${gateway.id}`,
    });
  }
  if (problems.length) throw new ValidationError(problems, 'payment_method_not_usable');
  return method;
}

/**
 * A method its gateway or bank said can no longer be charged (a card reported lost, an account closed, debits not
 * allowed...), in the caller's transaction: isValid false, with its event. Nothing when it is invalid already.
 */
export async function invalidatePaymentMethod(
  ctx: ServiceContext,
  paymentMethodId: number,
): Promise<EventToEmit[]> {
  const ref = paymentMethodRef(paymentMethodId);
  const before = await snapshotResource(ctx, ref);
  if (!before.object || before.object.isValid === false) return [];
  await repo.setPaymentMethodValidity(ctx.db, ctx.account.id, paymentMethodId, false, nowInstant(ctx));
  return [{ type: 'payment_method.updated', ref, before }];
}
