import { nowInstant, today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ValidationError } from '../../errors.ts';
import { isBusinessDay, oldestActionDateWithLateReturns } from '../../core/bankingDays.ts';
import { addDays, startOfDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { groupBy } from '../../core/groupBy.ts';
import { queueStaffMail } from '../collections/index.ts';
import {
  getGateway,
  readsStatements,
  requestStatementAtGateway,
  retrieveStatementAtGateway,
} from '../gateways/index.ts';
import type { Gateway } from '../gateways/index.ts';
import * as repo from './batch.repository.ts';
import type { BatchRecord } from './batch.ts';
import { uploadBatchReturns } from './batchReturns.service.ts';
import type { LineCounts } from './batchReturns.service.ts';
import * as statements from './netcashStatement.repository.ts';
import type { NetcashStatementRecord } from './netcashStatement.repository.ts';
import { statementDaysOf } from './netcashStatementDays.ts';

/**
 * Netcash's daily statement fetched by the run (docs/gateways/netcash.md, "Statements"), for a netcash gateway that
 * uploads through the web service: each business day, every day's statement the gateway's batches may still need
 * (statementDaysOf) is asked for (RequestMerchantStatement, a polling id), fetched (RetrieveMerchantStatement) and
 * applied to each batch exactly as a statement uploaded to POST /v1/batches/{BatchToken}/returns is
 * (uploadBatchReturns), then marked applied: a day is applied once, and applying one twice changes nothing more.
 * A statement not ready is fetched again half an hour later; one refused is asked for again the next day, and the
 * staff are told, since until a statement comes unpaids go unrecorded.
 */

/** How long a statement not ready waits before it is fetched again (business time). */
const NOT_READY_WAIT_MS = 30 * 60 * 1000;
/** At most this many days' statements are asked for in one run of a gateway; the rest wait for the next run. */
const DAYS_PER_RUN = 10;

/** The run's step: the statements of each gateway that hands them out, applied to its batches. */
export async function readNetcashStatements(ctx: ServiceContext, counts: LineCounts): Promise<void> {
  const on = today(ctx);
  if (!isBusinessDay('debit_order', on)) return;
  const reporting = [
    ...(await repo.listBatchesInStates(ctx.db, ctx.account.id, ['processing'])),
    ...(await repo.listProcessedSince(ctx.db, ctx.account.id, oldestActionDateWithLateReturns(on))),
  ].filter((batch) => batch.rail === 'debit_order' && batch.hasFile);
  for (const [gatewayId, batches] of groupBy(reporting, (batch) => batch.gatewayId)) {
    try {
      const gateway = await getGateway(ctx, gatewayId);
      if (!(await readsStatements(ctx, gateway))) continue;
      await readStatementsOf(ctx, gateway, batches, counts);
    } catch (error) {
      ctx.log.error({ err: error, gatewayId }, "reading Netcash's statements failed");
    }
  }
}

/** Each day the gateway's batches need, in order, asked for and applied; what went wrong, told to the staff. */
async function readStatementsOf(
  ctx: ServiceContext,
  gateway: Gateway,
  batches: readonly BatchRecord[],
  counts: LineCounts,
): Promise<void> {
  const days = statementDaysOf(
    batches.map((batch) => batch.actionDate),
    today(ctx),
  );
  const known = await statements.statementsOn(ctx.db, ctx.account.id, gateway.id, days);
  const problems: [string, string][] = [];
  let asked = 0;
  for (const day of days) {
    const statement =
      known.get(day) ??
      (await statements.addStatement(ctx.db, {
        accountId: ctx.account.id,
        gatewayId: gateway.id,
        statementDate: day,
        createdAt: nowInstant(ctx),
      }));
    if (statement.appliedAt !== null) continue;
    if (statement.nextAskAt !== null && statement.nextAskAt > nowInstant(ctx)) continue;
    if (asked === DAYS_PER_RUN) break;
    asked += 1;
    const problem = await fetchAndApply(ctx, gateway, statement, batches, counts);
    if (problem) problems.push([`Statement of ${day}`, problem]);
  }
  if (problems.length > 0) await tellStatementProblems(ctx, gateway, problems);
}

/**
 * One day's statement: asked for when it has no polling id, fetched, applied, marked applied. What kept it from
 * being applied, in words, when the staff must know (a refusal, a document that cannot be read); undefined when it
 * was applied or is not ready yet.
 */
async function fetchAndApply(
  ctx: ServiceContext,
  gateway: Gateway,
  statement: NetcashStatementRecord,
  batches: readonly BatchRecord[],
  counts: LineCounts,
): Promise<string | undefined> {
  const day = statement.statementDate;
  const later = new Date(Date.parse(nowInstant(ctx)) + NOT_READY_WAIT_MS).toISOString();
  const tomorrow = startOfDate(addDays(today(ctx), 1), ctx.account.timeZone);
  // Asked again no sooner than this whatever happens below (a crash, an answer lost): never at every run.
  await statements.updateStatement(ctx.db, ctx.account.id, statement.id, { nextAskAt: later });
  let pollingId = statement.pollingId;
  if (pollingId === null) {
    const request = await requestStatementAtGateway(ctx, gateway, day);
    if (request.outcome === 'refused') {
      await statements.updateStatement(ctx.db, ctx.account.id, statement.id, { nextAskAt: tomorrow });
      return request.message;
    }
    pollingId = request.pollingId;
    await statements.updateStatement(ctx.db, ctx.account.id, statement.id, { pollingId });
  }
  const retrieved = await retrieveStatementAtGateway(ctx, gateway, pollingId, day);
  if (retrieved.outcome === 'not_ready') return undefined;
  const askAnew = { pollingId: null, nextAskAt: tomorrow };
  if (retrieved.outcome === 'refused') {
    await statements.updateStatement(ctx.db, ctx.account.id, statement.id, askAnew);
    return retrieved.message;
  }
  try {
    await applyStatement(ctx, retrieved.document, day, batches, counts);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    await statements.updateStatement(ctx.db, ctx.account.id, statement.id, askAnew);
    return `it could not be read: ${error.message}`;
  }
  await statements.updateStatement(ctx.db, ctx.account.id, statement.id, { appliedAt: nowInstant(ctx) });
  return undefined;
}

/**
 * The statement applied to each batch of the gateway it may speak of, as an uploaded statement is: only its entries
 * about the batch's lines are read (uploadBatchReturns). A statement without entries (NO CHANGE) says nothing.
 */
async function applyStatement(
  ctx: ServiceContext,
  document: string,
  day: PlainDate,
  batches: readonly BatchRecord[],
  counts: LineCounts,
): Promise<void> {
  if (document.trim() === '') return;
  for (const batch of batches) {
    if (batch.actionDate > day) continue;
    const outcome = await uploadBatchReturns(ctx, batch.token, document);
    counts.settled += outcome.settled;
    counts.returned += outcome.returned;
  }
}

/** One e-mail a run for a gateway whose statements could not be had: which days, why, and what it means. */
async function tellStatementProblems(
  ctx: ServiceContext,
  gateway: Gateway,
  problems: [string, string][],
): Promise<void> {
  const mailed = await withTransaction(ctx, (tctx) =>
    queueStaffMail(tctx, {
      subject: `Netcash's statement could not be fetched for gateway ${gateway.id}`,
      blocks: [
        {
          paragraph: `The service fetches Netcash's statement each business day to record the debit orders collected and the unpaids. For gateway ${gateway.id} (${gateway.friendlyName}) it could not:`,
        },
        { figures: problems },
        {
          paragraph: `It asks again tomorrow. Until a statement comes, unpaids are not recorded, and debit orders count as paid once their return window passes. Check the gateway's Account service key (billing gateway settings ${gateway.id} --settings '<json>'), or upload Netcash's statement by hand: billing batch returns --account ${ctx.account.id} --batch <BatchToken> --file <statement>.`,
        },
      ],
    }),
  );
  if (mailed) ctx.mailQueued();
}
