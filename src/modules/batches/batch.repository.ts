import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { Page } from '../../core/paging.ts';
import type { Database } from '../../storage/schema.ts';
import type {
  BatchChanges,
  BatchCollection,
  BatchFigures,
  BatchLine,
  BatchLineRecord,
  BatchRecord,
  NewBatch,
  SepaCollection,
} from './batch.ts';
import {
  batchChangesToRow,
  batchCollectionFromRow,
  batchFiguresFromRow,
  batchFromRow,
  batchLineFromRow,
  batchLineRecordFromRow,
  batchLineRecordToRow,
  newBatchToRow,
  sepaCollectionFromRow,
} from './batch.mapper.ts';
import { paymentAmount, paymentStates } from '../ledger/index.ts';
import { paymentMethodMandates } from '../paymentMethods/index.ts';

const BATCH_COLUMNS = [
  'id',
  'account_id',
  'batch_token',
  'currency_code',
  'gateway_id',
  'action_date',
  'notes',
  'state',
  'build_error',
  'rail',
  'is_auto',
  'is_debicheck',
  'provider_ref',
  'file_downloaded_at',
  'upload_token',
  'upload_accepted_at',
  'file_reminded_on',
  'reports_read_on',
  'created_at',
  'submitted_at',
  'processed_at',
  'cancelled_at',
  'updated_at',
] as const;

const withHasFile = (eb: ExpressionBuilder<Database, 'batches'>) =>
  eb('file_sealed', 'is not', null).as('has_file');

/** The account's batches as BatchRow (batch.mapper.ts), for the reads below to narrow. */
const accountBatches = (db: Db, accountId: number) =>
  db.selectFrom('batches').select(BATCH_COLUMNS).select(withHasFile).where('account_id', '=', accountId);

export async function insertBatch(db: Db, batch: NewBatch): Promise<number> {
  const { id } = await db
    .insertInto('batches')
    .values(newBatchToRow(batch))
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

export async function findBatchByToken(
  db: Db,
  accountId: number,
  token: string,
): Promise<BatchRecord | undefined> {
  const row = await accountBatches(db, accountId).where('batch_token', '=', token).executeTakeFirst();
  return row && batchFromRow(row);
}

export async function findBatches(db: Db, accountId: number, ids: readonly number[]): Promise<BatchRecord[]> {
  if (ids.length === 0) return [];
  const rows = await accountBatches(db, accountId).where('id', 'in', ids).orderBy('id').execute();
  return rows.map(batchFromRow);
}

export async function findBatchesByTokens(
  db: Db,
  accountId: number,
  tokens: readonly string[],
): Promise<BatchRecord[]> {
  if (tokens.length === 0) return [];
  const rows = await accountBatches(db, accountId).where('batch_token', 'in', tokens).orderBy('id').execute();
  return rows.map(batchFromRow);
}

export async function listBatches(db: Db, accountId: number, page: Page): Promise<BatchRecord[]> {
  const rows = await accountBatches(db, accountId)
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(batchFromRow);
}

/** The account's batches in these states, oldest first (the collection run's work). */
export async function listBatchesInStates(
  db: Db,
  accountId: number,
  states: readonly string[],
): Promise<BatchRecord[]> {
  const rows = await accountBatches(db, accountId).where('state', 'in', states).orderBy('id').execute();
  return rows.map(batchFromRow);
}

/**
 * Takes the batch's row lock for the rest of the transaction and answers the row as it now is (an update that
 * changes nothing, as customers are locked: the same statement on both databases).
 */
export async function lockBatch(
  db: Db,
  accountId: number,
  batchId: number,
): Promise<BatchRecord | undefined> {
  const row = await db
    .updateTable('batches')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('account_id', '=', accountId)
    .where('id', '=', batchId)
    .returning(BATCH_COLUMNS)
    .returning(withHasFile)
    .executeTakeFirst();
  return row && batchFromRow(row);
}

export async function updateBatch(
  db: Db,
  accountId: number,
  batchId: number,
  changes: BatchChanges,
): Promise<void> {
  await db
    .updateTable('batches')
    .set(batchChangesToRow(changes))
    .where('account_id', '=', accountId)
    .where('id', '=', batchId)
    .execute();
}

export async function figuresOfBatches(
  db: Db,
  accountId: number,
  batchIds: readonly number[],
): Promise<Map<number, BatchFigures>> {
  if (batchIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('batch_lines')
    .select((eb) => [
      'batch_id',
      eb.fn.countAll<number | string>().as('lines'),
      eb.fn.sum<number | string>(paymentAmount(db, accountId, eb.ref('payment_id'))).as('total_minor'),
    ])
    .where('account_id', '=', accountId)
    .where('batch_id', 'in', batchIds)
    .groupBy('batch_id')
    .execute();
  return new Map(rows.map((row) => [row.batch_id, batchFiguresFromRow(row)]));
}

/** How many lines the batch holds: what every added line checks, read of the lines alone. */
export async function countLines(db: Db, accountId: number, batchId: number): Promise<number> {
  const { lines } = await db
    .selectFrom('batch_lines')
    .select((eb) => eb.fn.countAll<number | string>().as('lines'))
    .where('account_id', '=', accountId)
    .where('batch_id', '=', batchId)
    .executeTakeFirstOrThrow();
  return Number(lines);
}

export async function insertLine(db: Db, line: BatchLineRecord): Promise<void> {
  await db.insertInto('batch_lines').values(batchLineRecordToRow(line)).execute();
}

export async function findLine(
  db: Db,
  accountId: number,
  paymentId: number,
): Promise<BatchLineRecord | undefined> {
  const row = await db
    .selectFrom('batch_lines')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('payment_id', '=', paymentId)
    .executeTakeFirst();
  return row && batchLineRecordFromRow(row);
}

const linesQuery = (db: Db, accountId: number) =>
  db
    .selectFrom('batch_lines')
    .innerJoin(paymentStates(db, accountId), 'payment_states.payment_id', 'batch_lines.payment_id')
    .select([
      'batch_lines.payment_id',
      'batch_lines.invoice_id',
      'payment_states.customer_id',
      'payment_states.payment_method_id',
      'payment_states.amount_minor',
      'payment_states.currency_code',
      'payment_states.state',
      'payment_states.failure_code',
    ])
    .where('batch_lines.account_id', '=', accountId);

/** The batch's lines with what the run and the file need of their payments, in the order they were added. */
export async function listLines(db: Db, accountId: number, batchId: number): Promise<BatchLine[]> {
  const rows = await linesQuery(db, accountId)
    .where('batch_lines.batch_id', '=', batchId)
    .orderBy('batch_lines.payment_id')
    .execute();
  return rows.map(batchLineFromRow);
}

/** The day a settled line's receipt goes (once its return window passed), or null: no receipt waits for it. */
export async function setReceiptDueOn(
  db: Db,
  accountId: number,
  paymentId: number,
  on: string | null,
): Promise<void> {
  await db
    .updateTable('batch_lines')
    .set({ receipt_due_on: on })
    .where('account_id', '=', accountId)
    .where('payment_id', '=', paymentId)
    .execute();
}

/** Lines whose receipt is due on or before `on`, in payment order. */
export async function listLinesWithReceiptDue(db: Db, accountId: number, on: string): Promise<BatchLine[]> {
  const rows = await linesQuery(db, accountId)
    .where('batch_lines.receipt_due_on', '<=', on)
    .orderBy('batch_lines.payment_id')
    .execute();
  return rows.map(batchLineFromRow);
}

/**
 * Takes the line's waiting receipt: true for the one caller that cleared it (two runs at once send it once), in the
 * caller's transaction with the receipt itself.
 */
export async function claimReceipt(db: Db, accountId: number, paymentId: number): Promise<boolean> {
  const result = await db
    .updateTable('batch_lines')
    .set({ receipt_due_on: null })
    .where('account_id', '=', accountId)
    .where('payment_id', '=', paymentId)
    .where('receipt_due_on', 'is not', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * An open automatic batch to bundle into: same gateway, currency, rail, action date and kind of mandate (DebiCheck
 * or not), with room left.
 */
export async function findOpenAutoBatch(
  db: Db,
  accountId: number,
  key: { gatewayId: number; currencyCode: string; rail: string; actionDate: string; debiCheck: boolean },
): Promise<BatchRecord | undefined> {
  const row = await accountBatches(db, accountId)
    .where('is_auto', '=', true)
    .where('is_debicheck', '=', key.debiCheck)
    .where('state', '=', 'open')
    .where('gateway_id', '=', key.gatewayId)
    .where('currency_code', '=', key.currencyCode)
    .where('rail', '=', key.rail)
    .where('action_date', '=', key.actionDate)
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row && batchFromRow(row);
}

/** Processed batches whose action date is on or after `since`: late reversals may still come for them. */
export async function listProcessedSince(db: Db, accountId: number, since: string): Promise<BatchRecord[]> {
  const rows = await accountBatches(db, accountId)
    .where('state', '=', 'processed')
    .where('action_date', '>=', since)
    .orderBy('id')
    .execute();
  return rows.map(batchFromRow);
}

/**
 * Whether the account has a batch the run still acts on: one not yet processed nor cancelled, or one processed on or
 * after `processedSince` (its late returns still asked for).
 */
export async function hasBatchesUnderWay(
  db: Db,
  accountId: number,
  processedSince: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('batches')
    .select('id')
    .where('account_id', '=', accountId)
    .where((eb) =>
      eb.or([
        eb('state', 'in', ['open', 'build', 'submitted', 'processing']),
        eb.and([eb('state', '=', 'processed'), eb('action_date', '>=', processedSince)]),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Cancelled batches that still have a pending line (a cancel cut short): the run fails those lines. */
export async function listCancelledWithPendingLines(db: Db, accountId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('batches')
    .innerJoin('batch_lines', 'batch_lines.batch_id', 'batches.id')
    .innerJoin(paymentStates(db, accountId), 'payment_states.payment_id', 'batch_lines.payment_id')
    .select('batches.id')
    .distinct()
    .where('batches.account_id', '=', accountId)
    .where('batches.state', '=', 'cancelled')
    .where('payment_states.state', '=', 'pending')
    .execute();
  return rows.map((row) => row.id);
}

/** The sealed bank file made when the batch was built, if it has one. */
export async function findBatchFile(db: Db, accountId: number, batchId: number): Promise<string | null> {
  const row = await db
    .selectFrom('batches')
    .select('file_sealed')
    .where('account_id', '=', accountId)
    .where('id', '=', batchId)
    .executeTakeFirst();
  return row?.file_sealed ?? null;
}

/** One line with what the run needs of its payment. */
export async function findLineWithPayment(
  db: Db,
  accountId: number,
  paymentId: number,
): Promise<BatchLine | undefined> {
  const row = await linesQuery(db, accountId)
    .where('batch_lines.payment_id', '=', paymentId)
    .executeTakeFirst();
  return row && batchLineFromRow(row);
}

/**
 * The collections other batches made or are making from these bank accounts: lines of batches handed to their
 * gateway (submitted, processing, processed) whose payment did not fail, with the batch's action date. What one
 * collection a period under a mandate is checked against (docs/design/mandates.md, "Checks at build time").
 */
export async function listCollectionsFrom(
  db: Db,
  accountId: number,
  paymentMethodIds: readonly number[],
  exceptBatchId: number,
): Promise<BatchCollection[]> {
  if (paymentMethodIds.length === 0) return [];
  const rows = await db
    .selectFrom('batch_lines')
    .innerJoin(paymentStates(db, accountId), 'payment_states.payment_id', 'batch_lines.payment_id')
    .innerJoin('batches', 'batches.id', 'batch_lines.batch_id')
    .select(['payment_states.payment_method_id', 'batches.action_date', 'batch_lines.payment_id'])
    .where('batch_lines.account_id', '=', accountId)
    .where('batches.account_id', '=', accountId)
    .where('payment_states.payment_method_id', 'in', paymentMethodIds)
    .where('batches.id', '!=', exceptBatchId)
    .where('batches.state', 'in', ['submitted', 'processing', 'processed'])
    .where('payment_states.state', '!=', 'failed')
    .orderBy('batches.action_date')
    .execute();
  return rows.map(batchCollectionFromRow);
}

/**
 * The SEPA collections other batches handed to the bank (submitted, processing, processed) from these bank
 * accounts or under these mandate references, whose payment did not fail: what makes a line's sequence type RCUR
 * rather than FRST (docs/bank-files.md, "SEPA direct debit: `buildPain008`").
 */
export async function listSepaCollectionsUnder(
  db: Db,
  accountId: number,
  paymentMethodIds: readonly number[],
  mandateReferences: readonly string[],
  exceptBatchId: number,
): Promise<SepaCollection[]> {
  if (paymentMethodIds.length === 0) return [];
  const rows = await db
    .selectFrom('batch_lines')
    .innerJoin(paymentStates(db, accountId), 'payment_states.payment_id', 'batch_lines.payment_id')
    .innerJoin('batches', 'batches.id', 'batch_lines.batch_id')
    .innerJoin(
      paymentMethodMandates(db, accountId),
      'payment_method_mandates.payment_method_id',
      'payment_states.payment_method_id',
    )
    .select(['payment_states.payment_method_id', 'payment_method_mandates.mandate_reference'])
    .where('batch_lines.account_id', '=', accountId)
    .where('batches.account_id', '=', accountId)
    .where('batches.rail', '=', 'sepa')
    .where('batches.id', '!=', exceptBatchId)
    .where('batches.state', 'in', ['submitted', 'processing', 'processed'])
    .where('payment_states.state', '!=', 'failed')
    .where((eb) =>
      mandateReferences.length === 0
        ? eb('payment_states.payment_method_id', 'in', paymentMethodIds)
        : eb.or([
            eb('payment_states.payment_method_id', 'in', paymentMethodIds),
            eb('payment_method_mandates.mandate_reference', 'in', mandateReferences),
          ]),
    )
    .execute();
  return rows.map(sepaCollectionFromRow);
}

/** The action date of the batch each of these payments is a line of (a payment in no batch is left out). */
export async function actionDatesOfLines(
  db: Db,
  accountId: number,
  paymentIds: readonly number[],
): Promise<Map<number, string>> {
  if (paymentIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('batch_lines')
    .innerJoin('batches', 'batches.id', 'batch_lines.batch_id')
    .select(['batch_lines.payment_id', 'batches.action_date'])
    .where('batch_lines.account_id', '=', accountId)
    .where('batch_lines.payment_id', 'in', paymentIds)
    .execute();
  return new Map(rows.map((row) => [row.payment_id, row.action_date]));
}
