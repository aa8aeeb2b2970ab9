import crypto from 'node:crypto';
import { nowInstant, today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { earliestActionDate, isRail, notBusinessDayReason, railOfBatch } from '../../core/bankingDays.ts';
import { CANCELLABLE_STATES } from './batchRules.ts';
import type { BatchState } from './batchRules.ts';
import type { Rail } from '../../core/bankingDays.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Page } from '../../core/paging.ts';
import { optionalText } from '../../core/text.ts';
import { assertCurrencyEnabled } from '../catalogue/index.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import type { EventToEmit } from '../events/index.ts';
import {
  cancelBatchAtGateway,
  collectsBatches,
  getGateway,
  gatewayAccepts,
  gatewaysByIds,
  usableGatewayByToken,
} from '../gateways/index.ts';
import type { Gateway } from '../gateways/index.ts';
import { getInvoice, setCollectionSchedule } from '../invoicing/index.ts';
import { paymentsByIds, reversePayment } from '../ledger/index.ts';
import type { Read } from '../ledger/index.ts';
import * as repo from './batch.repository.ts';
import type { BatchRow } from './batch.repository.ts';
import { collectedByDebitOrder } from './debitCollection.service.ts';

/** A payment batch as the use cases answer it; its count and total come from its lines. */
export interface Batch {
  id: number;
  token: string;
  currencyCode: string;
  gatewayId: number;
  gatewayToken: string;
  actionDate: PlainDate;
  notes: string | null;
  state: BatchState;
  buildError: string | null;
  rail: Rail | null;
  createdAt: string;
  submittedAt: string | null;
  lines: number;
  totalMinor: number;
  /** The single read only: each line's payment and amount. */
  payments?: { paymentId: number; amountMinor: number }[];
}

export interface BatchInput {
  currencyCode: string;
  gatewayToken: string;
  actionDate: Read<PlainDate>;
  notes?: string | null;
}

const NOTES_MAX = 1000;

/** Events name a batch by its BatchToken, as the API does. */
export const batchRef = (token: string) => ({ type: 'batch', id: token });

async function assemble(ctx: ServiceContext, rows: BatchRow[]): Promise<Batch[]> {
  const ids = rows.map((row) => row.id);
  const figures = await repo.figuresOfBatches(ctx.db, ctx.account.id, ids);
  const gateways = await gatewaysByIds(ctx, [...new Set(rows.map((row) => row.gateway_id))]);
  return rows.map((row) => ({
    id: row.id,
    token: row.batch_token,
    currencyCode: row.currency_code,
    gatewayId: row.gateway_id,
    gatewayToken: gateways.get(row.gateway_id)?.token ?? '',
    actionDate: row.action_date,
    notes: row.notes,
    state: row.state as BatchState,
    buildError: row.build_error,
    rail: row.rail as Rail | null,
    createdAt: row.created_at,
    submittedAt: row.submitted_at,
    lines: figures.get(row.id)?.lines ?? 0,
    totalMinor: figures.get(row.id)?.total_minor ?? 0,
  }));
}

/** The batch row by its token (a GUID); 404 for another account's or an unknown one. */
export async function batchRowByToken(ctx: ServiceContext, token: string): Promise<BatchRow> {
  const row = await repo.findBatchByToken(ctx.db, ctx.account.id, token);
  if (!row) throw new NotFoundError('Batch', token);
  return row;
}

/** The batch with its lines (spec: the single read lists paymentID and Amount of each). */
export async function getBatch(ctx: ServiceContext, token: string): Promise<Batch> {
  const row = await batchRowByToken(ctx, token);
  const [batch] = await assemble(ctx, [row]);
  const lines = await repo.listLines(ctx.db, ctx.account.id, row.id);
  return {
    ...batch!,
    payments: lines.map((line) => ({ paymentId: line.payment_id, amountMinor: line.amount_minor })),
  };
}

export async function listBatches(ctx: ServiceContext, page: Page): Promise<Batch[]> {
  return assemble(ctx, await repo.listBatches(ctx.db, ctx.account.id, page));
}

/** What events show of batches: the list's shape (the lines are told by their payments' own events). */
export async function batchesByTokens(
  ctx: ServiceContext,
  tokens: readonly string[],
): Promise<Map<string, Batch>> {
  const found = await assemble(ctx, await repo.findBatchesByTokens(ctx.db, ctx.account.id, tokens));
  return new Map(found.map((batch) => [batch.token, batch]));
}

/** The gateway a request names by GatewayToken: the account's, usable, and collecting from bank accounts in batches. */
async function batchGateway(
  ctx: ServiceContext,
  token: string,
  problems: FieldProblem[],
): Promise<Gateway | undefined> {
  const gateway = await usableGatewayByToken(ctx, token, 'GatewayToken', problems);
  if (!gateway) return undefined;
  if (!gatewayAccepts(gateway, 'bank_account') || !collectsBatches(gateway)) {
    problems.push({
      field: 'GatewayToken',
      message: `gateway ${gateway.id} (${gateway.type}) does not collect bank debits in batches`,
    });
    return undefined;
  }
  return gateway;
}

interface CheckedBatch {
  currencyCode: string;
  gateway: Gateway;
  actionDate: PlainDate;
  notes: string | null;
}

function readActionDate(
  ctx: ServiceContext,
  read: Read<PlainDate>,
  problems: FieldProblem[],
): PlainDate | undefined {
  if ('refused' in read) {
    problems.push({ field: 'ActionDate', message: read.refused });
    return undefined;
  }
  if (read.value < today(ctx)) {
    problems.push({ field: 'ActionDate', message: `must not be before today (${today(ctx)})` });
    return undefined;
  }
  return read.value;
}

/**
 * A date a person sets is one the batch's banks process on (docs/gateways.md, "Action dates a person sets"): on
 * SA debit orders not a weekend nor a public holiday, refused with why and the next business day rather than
 * moved, so that the batch goes out on the day the person sees. `rail`: the batch's (null before its first line;
 * its currency then says, railOfBatch).
 */
function assertBusinessDay(rail: string | null, currencyCode: string, actionDate: PlainDate): void {
  const batchRail = railOfBatch(rail !== null && isRail(rail) ? rail : null, currencyCode);
  const reason = batchRail && notBusinessDayReason(batchRail, actionDate);
  if (reason) throw ValidationError.field('ActionDate', reason, 'not_business_day');
}

function readNotes(notes: string | null | undefined, problems: FieldProblem[]): string | null {
  const text = optionalText(notes) ?? null;
  if (text !== null && text.length > NOTES_MAX) {
    problems.push({ field: 'Notes', message: `must be at most ${NOTES_MAX} characters` });
  }
  return text;
}

async function checkBatch(ctx: ServiceContext, input: BatchInput): Promise<CheckedBatch> {
  const currencyCode = await assertCurrencyEnabled(ctx, input.currencyCode, 'CurrencyCode');
  const problems: FieldProblem[] = [];
  const gateway = await batchGateway(ctx, input.gatewayToken, problems);
  const actionDate = readActionDate(ctx, input.actionDate, problems);
  const notes = readNotes(input.notes, problems);
  if (problems.length > 0) throw new ValidationError(problems);
  return { currencyCode, gateway: gateway!, actionDate: actionDate!, notes };
}

/**
 * Spec: POST /v1/batches makes an open batch, SubmitDate null and no payments, in the caller's transaction (the
 * route's, which records the reply in it) or its own.
 */
export async function createBatch(ctx: ServiceContext, input: BatchInput): Promise<Batch> {
  const checked = await checkBatch(ctx, input);
  assertBusinessDay(null, checked.currencyCode, checked.actionDate);
  const token = crypto.randomUUID();
  return withTransaction(ctx, async (tctx) => {
    const now = nowInstant(tctx);
    await repo.insertBatch(tctx.db, {
      account_id: tctx.account.id,
      batch_token: token,
      currency_code: checked.currencyCode,
      gateway_id: checked.gateway.id,
      action_date: checked.actionDate,
      notes: checked.notes,
      state: 'open' satisfies BatchState,
      created_at: now,
      updated_at: now,
    });
    await emitEvent(tctx, 'batch.created', batchRef(token));
    // As the list shows it: the spec gives Payments to the single read only.
    return (await batchesByTokens(tctx, [token])).get(token)!;
  });
}

/**
 * Runs `work` on the batch under its row lock, in a transaction of its own (submit, cancel and edits of one batch
 * are serial; line changes take the same lock after their customer's).
 */
export async function withLockedBatch<T>(
  ctx: ServiceContext,
  token: string,
  work: (ctx: ServiceContext, row: BatchRow) => Promise<T>,
): Promise<T> {
  const { id } = await batchRowByToken(ctx, token);
  return withTransaction(ctx, async (tctx) => {
    const row = await repo.lockBatch(tctx.db, tctx.account.id, id);
    if (!row) throw new NotFoundError('Batch', token);
    return work(tctx, row);
  });
}

/** Whether the bank has the batch: a provider's once it accepted it, a bank file once it was downloaded. */
export const atTheBank = (row: BatchRow): boolean => !row.has_file || row.file_downloaded_at !== null;

export function assertOpen(row: BatchRow, action: string): void {
  if (row.state !== 'open') {
    throw new ConflictError(
      'batch_not_open',
      `Batch ${row.batch_token} is ${row.state}: ${action} only while it is open`,
    );
  }
}

/** Spec: PUT /v1/batches. An open batch only; its currency and gateway only while it has no lines. */
export async function updateBatch(ctx: ServiceContext, token: string, input: BatchInput): Promise<void> {
  const checked = await checkBatch(ctx, input);
  await withLockedBatch(ctx, token, async (tctx, row) => {
    assertOpen(row, 'a batch is edited');
    assertBusinessDay(row.rail, checked.currencyCode, checked.actionDate);
    const changesLines = checked.currencyCode !== row.currency_code || checked.gateway.id !== row.gateway_id;
    if (changesLines && (await repo.figuresOfBatches(tctx.db, tctx.account.id, [row.id])).has(row.id)) {
      throw new ConflictError(
        'batch_has_payments',
        `Batch ${token} has payments: its currency and gateway can no longer change`,
      );
    }
    const before = await snapshotResource(tctx, batchRef(row.batch_token));
    await repo.updateBatch(tctx.db, tctx.account.id, row.id, {
      currency_code: checked.currencyCode,
      gateway_id: checked.gateway.id,
      action_date: checked.actionDate,
      notes: checked.notes,
      updated_at: nowInstant(tctx),
    });
    await emitEvent(tctx, 'batch.updated', batchRef(row.batch_token), { before });
  });
}

/**
 * Spec: PUT /v1/batches/submit, a person's act or the run's (AutoSubmitBatches: batchSubmission.service.ts, which
 * re-dates a late batch first): open → build, SubmitDate set. The next
 * collection run builds it (batchRun.service.ts). The action date, the one sent or else the batch's own, must leave
 * the rail its lead time.
 */
export async function submitBatch(
  ctx: ServiceContext,
  token: string,
  input: { actionDate?: Read<PlainDate>; notes?: string | null },
): Promise<void> {
  const problems: FieldProblem[] = [];
  const sent = input.actionDate === undefined ? undefined : readActionDate(ctx, input.actionDate, problems);
  const notes = input.notes === undefined ? undefined : readNotes(input.notes, problems);
  if (problems.length > 0) throw new ValidationError(problems);
  await withLockedBatch(ctx, token, async (tctx, row) => {
    assertOpen(row, 'a batch is submitted');
    const lines = (await repo.figuresOfBatches(tctx.db, tctx.account.id, [row.id])).get(row.id)?.lines ?? 0;
    if (lines === 0 || row.rail === null || !isRail(row.rail)) {
      throw new ConflictError('batch_empty', `Batch ${token} has no payments to submit`);
    }
    const earliest = earliestActionDate(row.rail, today(tctx));
    const actionDate = sent ?? row.action_date;
    if (actionDate < earliest) {
      const which =
        sent === undefined ? `the batch's own (${actionDate}) is too early; send one ` : 'must be ';
      throw ValidationError.field(
        'ActionDate',
        `${which}on or after ${earliest}: ${row.rail} collections reach the bank ahead of their action date`,
      );
    }
    if (sent !== undefined) assertBusinessDay(row.rail, row.currency_code, actionDate);
    const before = await snapshotResource(tctx, batchRef(row.batch_token));
    await repo.updateBatch(tctx.db, tctx.account.id, row.id, {
      state: 'build' satisfies BatchState,
      action_date: actionDate,
      ...(notes === undefined ? {} : { notes }),
      build_error: null,
      submitted_at: nowInstant(tctx),
      updated_at: nowInstant(tctx),
    });
    await emitEvent(tctx, 'batch.updated', batchRef(row.batch_token), { before });
  });
}

/** Whether a person may cancel the batch now; 409 batch_not_cancellable otherwise. */
async function assertCancellable(ctx: ServiceContext, row: BatchRow): Promise<void> {
  const state = row.state as BatchState;
  // A submitted batch until its action date (a revocation), or a bank file nobody took to the bank.
  const tooLate = state === 'submitted' && today(ctx) >= row.action_date && atTheBank(row);
  if (!CANCELLABLE_STATES.includes(state) || tooLate) {
    throw new ConflictError(
      'batch_not_cancellable',
      `Batch ${row.batch_token} is ${state}${state === 'submitted' ? ' and its action date has come' : ''}: it can no longer be cancelled`,
    );
  }
  const lines = await repo.listLines(ctx.db, ctx.account.id, row.id);
  if (lines.some((line) => line.state === 'settled')) {
    throw new ConflictError(
      'batch_not_cancellable',
      `Batch ${row.batch_token} has payments recorded as paid`,
    );
  }
}

/**
 * Spec: PUT /v1/batches/cancel. From open or build, or from submitted until its action date (a revocation before
 * the bank debits); never once the bank is processing it. A batch its gateway's provider holds is withdrawn there
 * first, outside any transaction (409 when the provider says it is too late). Its lines fail (batch_cancelled):
 * their invoices owe the money again.
 */
export async function cancelBatch(ctx: ServiceContext, token: string): Promise<void> {
  const held = await withLockedBatch(ctx, token, async (tctx, row) => {
    await assertCancellable(tctx, row);
    return row.state === 'submitted' && row.provider_ref !== null && !row.has_file ? row : undefined;
  });
  if (held) {
    const gateway = await getGateway(ctx, held.gateway_id);
    const answer = await cancelBatchAtGateway(ctx, gateway, held.provider_ref!);
    if (answer.outcome !== 'cancelled') {
      throw new ConflictError(
        'batch_not_cancellable',
        `Gateway ${gateway.id} can no longer withdraw batch ${token}: ${answer.message}`,
      );
    }
  }
  const batchId = await withLockedBatch(ctx, token, async (tctx, row) => {
    if (row.state === 'cancelled') return undefined;
    // Withdrawn at its provider, nothing will be collected: cancelled even if the run moved it on meanwhile.
    if (!held || !['submitted', 'processing'].includes(row.state)) await assertCancellable(tctx, row);
    const before = await snapshotResource(tctx, batchRef(row.batch_token));
    const now = nowInstant(tctx);
    await repo.updateBatch(tctx.db, tctx.account.id, row.id, {
      state: 'cancelled' satisfies BatchState,
      cancelled_at: now,
      updated_at: now,
    });
    await emitEvent(tctx, 'batch.cancelled', batchRef(row.batch_token), { before });
    return row.id;
  });
  if (batchId !== undefined) await failLinesOfCancelledBatch(ctx, batchId);
}

/**
 * The pending lines of a cancelled batch fail, each in its own transaction under its customer's lock; an invoice
 * still collected by debit order (its own or its customer's: collectedByDebitOrder) that the batch had counted a try
 * for (it was built: its provider took it) is due again at once (the next run bundles it). Also run by the
 * collection run, which finishes what a crash after the cancel left.
 */
export async function failLinesOfCancelledBatch(ctx: ServiceContext, batchId: number): Promise<void> {
  const [batch] = await repo.findBatches(ctx.db, ctx.account.id, [batchId]);
  // A batch cancelled before its build counted no try: an invoice tried by another batch keeps its schedule.
  const countedTries = batch?.provider_ref != null;
  for (const line of await repo.listLines(ctx.db, ctx.account.id, batchId)) {
    if (line.state !== 'pending') continue;
    const payment = (await paymentsByIds(ctx, [line.payment_id])).get(line.payment_id);
    const invoiceIds = (payment?.allocations ?? [])
      .filter((a) => a.targetType === 'invoice')
      .map((a) => a.targetId);
    await reversePayment(
      ctx,
      line.payment_id,
      { reason: 'batch_cancelled', code: 'cancelled' },
      async (tctx) => {
        const events: EventToEmit[] = [];
        for (const invoiceId of invoiceIds) {
          const invoice = await getInvoice(tctx, invoiceId);
          if (!countedTries || invoice.numTries === 0) continue;
          if (!(await collectedByDebitOrder(tctx, invoice))) continue;
          const ref = { type: 'invoice', id: invoiceId };
          const before = await snapshotResource(tctx, ref);
          await setCollectionSchedule(tctx, invoiceId, { addTry: false, nextTryDate: nowInstant(tctx) });
          events.push({ type: 'invoice.updated', ref, before });
        }
        return events;
      },
    );
  }
}

/**
 * The date each of these payments is presented to the bank: its batch's action date, which a late batch's
 * re-dating moves (docs/gateways.md, "Batches that go out"); a payment in no batch is left out.
 */
export function debitDatesOfPayments(
  ctx: ServiceContext,
  paymentIds: readonly number[],
): Promise<Map<number, PlainDate>> {
  return repo.actionDatesOfLines(ctx.db, ctx.account.id, paymentIds);
}
