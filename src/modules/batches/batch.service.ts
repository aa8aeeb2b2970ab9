import crypto from 'node:crypto';
import { nowInstant, today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { earliestActionDate, isRail, notBusinessDayReason, railOfBatch } from '../../core/bankingDays.ts';
import { CANCELLABLE_STATES } from './batchRules.ts';
import type { BatchState } from './batchRules.ts';
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
import type { BatchRecord } from './batch.ts';
import { tellUploadToDelete } from './batchUploadNotices.ts';
import { collectedByDebitOrder } from './debitCollection.service.ts';

/**
 * A payment batch as the use cases answer it: what the API shows of its record (batch.ts), its gateway's token, and
 * its count and total, which come from its lines.
 */
export interface Batch extends Pick<
  BatchRecord,
  | 'id'
  | 'token'
  | 'currencyCode'
  | 'gatewayId'
  | 'actionDate'
  | 'notes'
  | 'state'
  | 'buildError'
  | 'rail'
  | 'createdAt'
  | 'submittedAt'
> {
  gatewayToken: string;
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

async function assemble(ctx: ServiceContext, records: BatchRecord[]): Promise<Batch[]> {
  const ids = records.map((record) => record.id);
  const figures = await repo.figuresOfBatches(ctx.db, ctx.account.id, ids);
  const gateways = await gatewaysByIds(ctx, [...new Set(records.map((record) => record.gatewayId))]);
  return records.map((record) => ({
    id: record.id,
    token: record.token,
    currencyCode: record.currencyCode,
    gatewayId: record.gatewayId,
    gatewayToken: gateways.get(record.gatewayId)?.token ?? '',
    actionDate: record.actionDate,
    notes: record.notes,
    state: record.state,
    buildError: record.buildError,
    rail: record.rail,
    createdAt: record.createdAt,
    submittedAt: record.submittedAt,
    lines: figures.get(record.id)?.lines ?? 0,
    totalMinor: figures.get(record.id)?.totalMinor ?? 0,
  }));
}

/** The batch by its token (a GUID), as its record; 404 for another account's or an unknown one. */
export async function getBatchRecord(ctx: ServiceContext, token: string): Promise<BatchRecord> {
  const batch = await repo.findBatchByToken(ctx.db, ctx.account.id, token);
  if (!batch) throw new NotFoundError('Batch', token);
  return batch;
}

/** The batch with its lines (spec: the single read lists paymentID and Amount of each). */
export async function getBatch(ctx: ServiceContext, token: string): Promise<Batch> {
  const record = await getBatchRecord(ctx, token);
  const [batch] = await assemble(ctx, [record]);
  const lines = await repo.listLines(ctx.db, ctx.account.id, record.id);
  return {
    ...batch!,
    payments: lines.map((line) => ({ paymentId: line.paymentId, amountMinor: line.amountMinor })),
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
      accountId: tctx.account.id,
      token,
      currencyCode: checked.currencyCode,
      gatewayId: checked.gateway.id,
      actionDate: checked.actionDate,
      notes: checked.notes,
      state: 'open' satisfies BatchState,
      createdAt: now,
      updatedAt: now,
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
  work: (ctx: ServiceContext, batch: BatchRecord) => Promise<T>,
): Promise<T> {
  const { id } = await getBatchRecord(ctx, token);
  return withTransaction(ctx, async (tctx) => {
    const batch = await repo.lockBatch(tctx.db, tctx.account.id, id);
    if (!batch) throw new NotFoundError('Batch', token);
    return work(tctx, batch);
  });
}

/**
 * Whether the bank has the batch: a provider's once it accepted it, a bank file once it was downloaded, or once its
 * provider loaded it (a netcash file uploaded through the web service: docs/gateways/netcash.md).
 */
export const atTheBank = (batch: BatchRecord): boolean =>
  !batch.hasFile || batch.fileDownloadedAt !== null || batch.uploadAcceptedAt !== null;

export function assertOpen(batch: BatchRecord, action: string): void {
  if (batch.state !== 'open') {
    throw new ConflictError(
      'batch_not_open',
      `Batch ${batch.token} is ${batch.state}: ${action} only while it is open`,
    );
  }
}

/** Spec: PUT /v1/batches. An open batch only; its currency and gateway only while it has no lines. */
export async function updateBatch(ctx: ServiceContext, token: string, input: BatchInput): Promise<void> {
  const checked = await checkBatch(ctx, input);
  await withLockedBatch(ctx, token, async (tctx, batch) => {
    assertOpen(batch, 'a batch is edited');
    assertBusinessDay(batch.rail, checked.currencyCode, checked.actionDate);
    const changesLines =
      checked.currencyCode !== batch.currencyCode || checked.gateway.id !== batch.gatewayId;
    if (changesLines && (await repo.countLines(tctx.db, tctx.account.id, batch.id)) > 0) {
      throw new ConflictError(
        'batch_has_payments',
        `Batch ${token} has payments: its currency and gateway can no longer change`,
      );
    }
    const before = await snapshotResource(tctx, batchRef(batch.token));
    await repo.updateBatch(tctx.db, tctx.account.id, batch.id, {
      currencyCode: checked.currencyCode,
      gatewayId: checked.gateway.id,
      actionDate: checked.actionDate,
      notes: checked.notes,
      updatedAt: nowInstant(tctx),
    });
    await emitEvent(tctx, 'batch.updated', batchRef(batch.token), { before });
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
  await withLockedBatch(ctx, token, async (tctx, batch) => {
    assertOpen(batch, 'a batch is submitted');
    const lines = await repo.countLines(tctx.db, tctx.account.id, batch.id);
    if (lines === 0 || batch.rail === null || !isRail(batch.rail)) {
      throw new ConflictError('batch_empty', `Batch ${token} has no payments to submit`);
    }
    const earliest = earliestActionDate(batch.rail, today(tctx));
    const actionDate = sent ?? batch.actionDate;
    if (actionDate < earliest) {
      const which =
        sent === undefined ? `the batch's own (${actionDate}) is too early; send one ` : 'must be ';
      throw ValidationError.field(
        'ActionDate',
        `${which}on or after ${earliest}: ${batch.rail} collections reach the bank ahead of their action date`,
      );
    }
    if (sent !== undefined) assertBusinessDay(batch.rail, batch.currencyCode, actionDate);
    const before = await snapshotResource(tctx, batchRef(batch.token));
    await repo.updateBatch(tctx.db, tctx.account.id, batch.id, {
      state: 'build' satisfies BatchState,
      actionDate,
      ...(notes === undefined ? {} : { notes }),
      buildError: null,
      submittedAt: nowInstant(tctx),
      updatedAt: nowInstant(tctx),
    });
    await emitEvent(tctx, 'batch.updated', batchRef(batch.token), { before });
  });
}

/** Whether a person may cancel the batch now; 409 batch_not_cancellable otherwise. */
async function assertCancellable(ctx: ServiceContext, batch: BatchRecord): Promise<void> {
  const state = batch.state;
  // A submitted batch until its action date (a revocation), or a bank file nobody took to the bank.
  const tooLate = state === 'submitted' && today(ctx) >= batch.actionDate && atTheBank(batch);
  if (!CANCELLABLE_STATES.includes(state) || tooLate) {
    throw new ConflictError(
      'batch_not_cancellable',
      `Batch ${batch.token} is ${state}${state === 'submitted' ? ' and its action date has come' : ''}: it can no longer be cancelled`,
    );
  }
  const lines = await repo.listLines(ctx.db, ctx.account.id, batch.id);
  if (lines.some((line) => line.state === 'settled')) {
    throw new ConflictError('batch_not_cancellable', `Batch ${batch.token} has payments recorded as paid`);
  }
}

/**
 * Spec: PUT /v1/batches/cancel. From open or build, or from submitted until its action date (a revocation before
 * the bank debits); never once the bank is processing it. A batch its gateway's provider holds is withdrawn there
 * first, outside any transaction (409 when the provider says it is too late). Its lines fail (batch_cancelled):
 * their invoices owe the money again.
 */
export async function cancelBatch(ctx: ServiceContext, token: string): Promise<void> {
  const held = await withLockedBatch(ctx, token, async (tctx, batch) => {
    await assertCancellable(tctx, batch);
    return batch.state === 'submitted' && batch.providerRef !== null && !batch.hasFile ? batch : undefined;
  });
  if (held) {
    const gateway = await getGateway(ctx, held.gatewayId);
    const answer = await cancelBatchAtGateway(ctx, gateway, held.providerRef!);
    if (answer.outcome !== 'cancelled') {
      throw new ConflictError(
        'batch_not_cancellable',
        `Gateway ${gateway.id} can no longer withdraw batch ${token}: ${answer.message}`,
      );
    }
  }
  let uploaded: BatchRecord | undefined;
  const batchId = await withLockedBatch(ctx, token, async (tctx, batch) => {
    if (batch.state === 'cancelled') return undefined;
    // Withdrawn at its provider, nothing will be collected: cancelled even if the run moved it on meanwhile.
    if (!held || !['submitted', 'processing'].includes(batch.state)) await assertCancellable(tctx, batch);
    const before = await snapshotResource(tctx, batchRef(batch.token));
    const now = nowInstant(tctx);
    await repo.updateBatch(tctx.db, tctx.account.id, batch.id, {
      state: 'cancelled' satisfies BatchState,
      cancelledAt: now,
      updatedAt: now,
    });
    await emitEvent(tctx, 'batch.cancelled', batchRef(batch.token), { before });
    if (batch.uploadToken !== null) uploaded = batch;
    return batch.id;
  });
  if (batchId !== undefined) await failLinesOfCancelledBatch(ctx, batchId);
  // Netcash keeps a file uploaded through its web service: a person deletes it there.
  if (uploaded) await tellUploadToDelete(ctx, uploaded, uploaded.providerRef ?? uploaded.token, 'cancelled');
}

/**
 * The pending lines of a cancelled batch fail, each in its own transaction under its customer's lock; an invoice
 * still collected by debit order (its own or its customer's: collectedByDebitOrder) that the batch had counted a try
 * for (it was built: its provider took it) is due again at once (the next run bundles it). Also run by the
 * collection run, which finishes what a crash after the cancel left.
 */
export async function failLinesOfCancelledBatch(ctx: ServiceContext, batchId: number): Promise<void> {
  const [batch] = await repo.findBatches(ctx.db, ctx.account.id, [batchId]);
  // A batch cancelled before its build counted no try, nor one whose upload Netcash had not loaded yet
  // (batchUpload.service.ts): an invoice tried by another batch keeps its schedule.
  const countedTries =
    batch?.providerRef != null && (batch.uploadToken === null || batch.uploadAcceptedAt !== null);
  for (const line of await repo.listLines(ctx.db, ctx.account.id, batchId)) {
    if (line.state !== 'pending') continue;
    const payment = (await paymentsByIds(ctx, [line.paymentId])).get(line.paymentId);
    const invoiceIds = (payment?.allocations ?? [])
      .filter((a) => a.targetType === 'invoice')
      .map((a) => a.targetId);
    await reversePayment(
      ctx,
      line.paymentId,
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
