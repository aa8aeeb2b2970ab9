import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';

/**
 * A customer's payments, credit notes and adjustments as its statement shows them (docs/spec-decisions.md,
 * "Statements"): exactly the records whose open amounts the customer's Balance counts (customerBalanceFigure), so the
 * statement reconciles with it. A failed payment settles nothing and is left out, as Balance leaves it out.
 */
export interface StatementMoneyRecord {
  kind: 'payment' | 'credit_note' | 'adjustment';
  id: number;
  date: PlainDate;
  /** positive raises what is owed (a positive adjustment); negative lowers it (the rest). */
  direction: 'positive' | 'negative';
  amountMinor: number;
  /** What is unallocated (a source) or unpaid (a positive adjustment). */
  openMinor: number;
  /** Payment: its Ref; credit note: its CreditNumber; adjustment: its Ref. */
  reference: string | null;
  /** Payment: its Method; adjustment: its AdjustmentType; credit note: null. */
  detail: string | null;
  memo: string | null;
  /** A positive adjustment's due date (null: due on its date); null for the others. */
  dueDate: PlainDate | null;
  /** A payment the bank has not paid yet (Pending), and the stored method it is taken from; false and null otherwise. */
  pending: boolean;
  paymentMethodId: number | null;
}

/** The customer's money records in a currency, by kind then id; three statements. */
export async function statementMoneyRecordsOf(
  ctx: ServiceContext,
  customerId: number,
  currencyCode: string,
): Promise<StatementMoneyRecord[]> {
  const scope: RecordScope = { ctx, customerId, currencyCode };
  const payments = await paymentRecordsOf(scope);
  const creditNotes = await creditNoteRecordsOf(scope);
  const adjustments = await adjustmentRecordsOf(scope);
  return [...payments, ...creditNotes, ...adjustments];
}

/** Whose records, in which currency. */
interface RecordScope {
  ctx: ServiceContext;
  customerId: number;
  currencyCode: string;
}

/** The payments Balance counts: all but the failed ones, by id. */
async function paymentRecordsOf({
  ctx,
  customerId,
  currencyCode,
}: RecordScope): Promise<StatementMoneyRecord[]> {
  const rows = await ctx.db
    .selectFrom('payments')
    .select([
      'id',
      'payment_date',
      'amount_minor',
      'allocated_minor',
      'ref',
      'method',
      'memo',
      'state',
      'payment_method_id',
    ])
    .where('account_id', '=', ctx.account.id)
    .where('customer_id', '=', customerId)
    .where('currency_code', '=', currencyCode)
    .where('state', '!=', 'failed')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    kind: 'payment' as const,
    id: row.id,
    date: row.payment_date,
    direction: 'negative' as const,
    amountMinor: row.amount_minor,
    openMinor: row.amount_minor - row.allocated_minor,
    reference: row.ref,
    detail: row.method,
    memo: row.memo,
    dueDate: null,
    pending: row.state === 'pending',
    paymentMethodId: row.payment_method_id,
  }));
}

/** The customer's credit notes, by id. */
async function creditNoteRecordsOf({
  ctx,
  customerId,
  currencyCode,
}: RecordScope): Promise<StatementMoneyRecord[]> {
  const rows = await ctx.db
    .selectFrom('credit_notes')
    .select(['id', 'credit_date', 'amount_minor', 'allocated_minor', 'credit_number', 'memo'])
    .where('account_id', '=', ctx.account.id)
    .where('customer_id', '=', customerId)
    .where('currency_code', '=', currencyCode)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    kind: 'credit_note' as const,
    id: row.id,
    date: row.credit_date,
    direction: 'negative' as const,
    amountMinor: row.amount_minor,
    openMinor: row.amount_minor - row.allocated_minor,
    reference: row.credit_number,
    detail: null,
    memo: row.memo,
    dueDate: null,
    pending: false,
    paymentMethodId: null,
  }));
}

/** The customer's adjustments, both directions, by id. */
async function adjustmentRecordsOf({
  ctx,
  customerId,
  currencyCode,
}: RecordScope): Promise<StatementMoneyRecord[]> {
  const rows = await ctx.db
    .selectFrom('adjustments')
    .select([
      'id',
      'direction',
      'adjustment_type',
      'adjustment_date',
      'due_date',
      'amount_minor',
      'allocated_minor',
      'ref',
      'memo',
    ])
    .where('account_id', '=', ctx.account.id)
    .where('customer_id', '=', customerId)
    .where('currency_code', '=', currencyCode)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    kind: 'adjustment' as const,
    id: row.id,
    date: row.adjustment_date,
    direction: row.direction === 'positive' ? ('positive' as const) : ('negative' as const),
    amountMinor: row.amount_minor,
    openMinor: row.amount_minor - row.allocated_minor,
    reference: row.ref,
    detail: row.adjustment_type,
    memo: row.memo,
    dueDate: row.due_date,
    pending: false,
    paymentMethodId: null,
  }));
}
