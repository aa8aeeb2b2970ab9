import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { ServiceContext } from '../../context.ts';
import { startOfDate } from '../../core/calendar.ts';
import { minorToWireNumber } from '../../core/money.ts';
import type { App } from '../../http/types.ts';
import { NoContent } from '../../http/schemas.ts';
import {
  InvoiceOut,
  UnsavedInvoiceOut,
  getInvoice,
  previewInvoice,
  toInvoiceDto,
} from '../invoicing/index.ts';
import { invoiceWithFigures, withInvoiceFigures } from '../../readModels/invoices.view.ts';
import { payableLinesOf, previewGrantCredit } from '../credits/index.ts';
import { changeBillCycleDay } from './subscriptionBillCycle.service.ts';
import * as changes from './subscriptionChanges.service.ts';
import * as terms from './subscriptionTerms.service.ts';
import type { ChangeResult } from './subscriptionChanges.service.ts';
import {
  CancelParams,
  ChangeBillCycleDayBody,
  ChangePackageBody,
  ChangeTermBody,
  CreditOut,
  PeriodOut,
  inlined,
  PreviewQuery,
  StoredCreditOut,
  SubscriptionUsageOut,
  UpcomingInvoiceOut,
} from './subscriptionChanges.schemas.ts';
import { SubscriptionIdParams } from './subscriptions.schemas.ts';
import { getSubscription } from './subscriptionReads.service.ts';
import { pauseSubscription, resumeSubscription } from './subscriptionPause.service.ts';
import { PauseBody, ResumeBody } from './subscriptionPause.schemas.ts';

const tags = ['Subscriptions'];

const ChangeOut = Type.Object({ Credits: Type.Array(CreditOut), Invoices: Type.Array(InvoiceOut) });
const changeResponses = { ...NoContent, 200: ChangeOut };
/** A resume's preview also says where it leaves the subscription: Paused while it waits for its payment. */
const ResumeOut = Type.Object({
  ...ChangeOut.properties,
  comp_Status: Type.Optional(
    Type.String({ description: 'The status the resume leaves it in on its day', examples: ['Paused'] }),
  ),
  ResumePayByDate: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'With WaitForPayment: the day the resumption invoice is voided if still unpaid',
      examples: ['2026-08-02T00:00:00.000Z'],
    }),
  ),
});

/** What a resume left the subscription as, for its preview. */
async function resumeStateOf(ctx: ServiceContext, subscriptionId: number) {
  const subscription = await getSubscription(ctx, subscriptionId);
  return {
    comp_Status: subscription.status,
    ...(subscription.resumePayBy === null
      ? {}
      : { ResumePayByDate: startOfDate(subscription.resumePayBy, ctx.account.timeZone) }),
  };
}

/** The wire form of a change's outcome; built inside the change's transaction so a preview can show it. */
async function toChangeDto(ctx: ServiceContext, result: ChangeResult, currencyCode: string) {
  const timeZone = ctx.account.timeZone;
  const invoices = [];
  for (const id of result.invoiceIds) invoices.push(await getInvoice(ctx, id));
  return {
    Credits: result.credits.map((credit) => ({
      Descrip: credit.descrip,
      Amount: minorToWireNumber(credit.totalMinor, currencyCode),
      CurrencyCode: currencyCode,
      PeriodStart: startOfDate(credit.start, timeZone),
      PeriodEnd: startOfDate(credit.end, timeZone),
    })),
    Invoices: (await withInvoiceFigures(ctx, invoices)).map((invoice) => toInvoiceDto(invoice, timeZone)),
  };
}

/**
 * Runs a change, or with `preview=true` runs it for real inside a transaction that is rolled back and answers
 * what it did: the preview is computed by the very code that acts.
 */
async function changeOrPreview(
  ctx: ServiceContext,
  reply: FastifyReply,
  previewOnly: boolean | undefined,
  subscriptionId: number,
  change: (ctx: ServiceContext) => Promise<ChangeResult>,
  stateAfter?: (ctx: ServiceContext, subscriptionId: number) => Promise<Record<string, unknown>>,
) {
  if (!previewOnly) {
    await change(ctx);
    return reply.code(204).send(null);
  }
  const dto = await changes.preview(ctx, async (tctx) => {
    const result = await change(tctx);
    const outcome = await toChangeDto(tctx, result, await changes.subscriptionCurrency(tctx, subscriptionId));
    return stateAfter ? { ...outcome, ...(await stateAfter(tctx, subscriptionId)) } : outcome;
  });
  return reply.code(200).send(dto);
}

export function registerSubscriptionChangeRoutes(app: App): void {
  app.put(
    '/subscriptions/:subscriptionID/cancel/:type',
    {
      schema: {
        summary: 'Cancel a subscription',
        operationId: 'cancelSubscription',
        tags,
        description:
          'Cancels: at renewal (end of the billed term), or now with no refund, a pro-rated credit, or full ' +
          'credit for the current term. Each credit is issued as a credit_note adjustment applied to the earliest open ' +
          'invoices, what is left staying as the customer’s credit (GET .../credits).',
        params: CancelParams,
        querystring: PreviewQuery,
        response: changeResponses,
      },
    },
    async (request, reply) =>
      changeOrPreview(request.ctx, reply, request.query.preview, request.params.subscriptionID, (ctx) =>
        changes.cancelSubscription(ctx, request.params.subscriptionID, request.params.type),
      ),
  );

  app.put(
    '/subscriptions/:subscriptionID/changePackage',
    {
      schema: {
        summary: 'Change package',
        operationId: 'changeSubscriptionPackage',
        tags,
        description:
          'Moves the subscription to another package, version or rate term: at the next renewal ' +
          '(isFutureChange) or now: the unused part credited pro rata and the new terms charged pro rata up to ' +
          'the unchanged renewal date, or from today for a whole new term with resetBillingAnchor. The credit pays ' +
          'the change’s own invoice first, so its Balance (in the preview too) is the net amount due now; what is ' +
          'left pays the other open invoices, then stays as the customer’s credit.',
        params: SubscriptionIdParams,
        querystring: PreviewQuery,
        body: ChangePackageBody,
        response: changeResponses,
      },
    },
    async (request, reply) => {
      const body = request.body;
      return changeOrPreview(
        request.ctx,
        reply,
        request.query.preview,
        request.params.subscriptionID,
        (ctx) =>
          terms.changeSubscriptionTerms(ctx, request.params.subscriptionID, {
            packageId: body.packageID,
            packageVersionId: body.packageVersionID,
            packageVersionNumber: body.packageVersionNumber,
            packageRateTermId: body.packageRateTermID,
            atRenewal: body.isFutureChange ?? false,
            // Absent and false differ: false with a term of another length is refused (422).
            resetBillingAnchor: body.resetBillingAnchor,
          }),
      );
    },
  );

  app.put(
    '/subscriptions/:subscriptionID/changeterm',
    {
      schema: {
        summary: 'Change rate term',
        operationId: 'changeSubscriptionTerm',
        tags,
        description: 'Moves the subscription to another rate term of its package version, as changePackage.',
        params: SubscriptionIdParams,
        querystring: PreviewQuery,
        body: ChangeTermBody,
        response: changeResponses,
      },
    },
    async (request, reply) =>
      changeOrPreview(request.ctx, reply, request.query.preview, request.params.subscriptionID, (ctx) =>
        terms.changeRateTerm(ctx, request.params.subscriptionID, {
          packageRateTermId: request.body.packageRateTermID,
          atRenewal: request.body.isFutureChange ?? false,
          resetBillingAnchor: request.body.resetBillingAnchor,
        }),
      ),
  );

  app.put(
    '/subscriptions/:subscriptionID/changebillcycleday',
    {
      schema: {
        summary: 'Change the bill-cycle day',
        operationId: 'changeSubscriptionBillCycleDay',
        tags,
        description:
          'Beyond the spec (docs/pricing.md, "Bill-cycle day"): moves the day of the month the subscription renews ' +
          'on. Time already billed stays as billed; from its end, a stub up to the first new-day date is charged ' +
          'pro rata over the new cycle period holding it (30.00 a month billed to Apr 1, moved to the 15th: ' +
          '30.00 × 14 / 31 = 13.55 for Apr 1–15), then whole terms on the new day. Before the first whole term ' +
          'is billed, the first period is planned again from the start (or the trial’s end). The same day is a ' +
          'no-op. 409 for a term of days, a cancelled or expired subscription, or a scheduled change to a term of ' +
          'another length. With preview=true: 200 with what the change bills now (nothing, unless already due) and ' +
          'UpcomingInvoice, the next invoice as the bill run will make it.',
        params: SubscriptionIdParams,
        querystring: PreviewQuery,
        body: ChangeBillCycleDayBody,
        response: {
          ...NoContent,
          200: Type.Object({
            ...ChangeOut.properties,
            UpcomingInvoice: Type.Union([inlined(UnsavedInvoiceOut), Type.Null()], {
              description: 'The next invoice after the move; null when none is coming',
            }),
          }),
        },
      },
    },
    async (request, reply) => {
      const ctx = request.ctx;
      const id = request.params.subscriptionID;
      const move = (tctx: ServiceContext) => changeBillCycleDay(tctx, id, request.body.BillCycleDay);
      if (!request.query.preview) {
        await move(ctx);
        return reply.code(204).send(null);
      }
      const dto = await changes.preview(ctx, async (tctx) => {
        const result = await move(tctx);
        const upcoming = await changes.upcomingInvoice(tctx, id);
        return {
          ...(await toChangeDto(tctx, result, await changes.subscriptionCurrency(tctx, id))),
          UpcomingInvoice: upcoming
            ? toInvoiceDto(
                await invoiceWithFigures(tctx, await previewInvoice(tctx, upcoming)),
                tctx.account.timeZone,
              )
            : null,
        };
      });
      return reply.code(200).send(dto);
    },
  );

  app.put(
    '/subscriptions/:subscriptionID/reactivate',
    {
      schema: {
        summary: 'Reactivate a subscription',
        operationId: 'reactivateSubscription',
        tags,
        description:
          'Undoes a cancellation: billing resumes where the paid time ends, or today on a new cycle.',
        params: SubscriptionIdParams,
        querystring: PreviewQuery,
        response: changeResponses,
      },
    },
    async (request, reply) =>
      changeOrPreview(request.ctx, reply, request.query.preview, request.params.subscriptionID, (ctx) =>
        changes.reactivateSubscription(ctx, request.params.subscriptionID),
      ),
  );

  app.put(
    '/subscriptions/:subscriptionID/unpark',
    {
      schema: {
        summary: 'Unpark a subscription',
        operationId: 'unparkSubscription',
        tags,
        description:
          'Takes a parked subscription (its record broke an invariant, see ParkedReason) back into billing and ' +
          'bills what is due; 409 unless parked.',
        params: SubscriptionIdParams,
        querystring: PreviewQuery,
        response: changeResponses,
      },
    },
    async (request, reply) =>
      changeOrPreview(request.ctx, reply, request.query.preview, request.params.subscriptionID, (ctx) =>
        changes.unparkSubscription(ctx, request.params.subscriptionID),
      ),
  );

  app.delete(
    '/subscriptions/:subscriptionID/futurechanges',
    {
      schema: {
        summary: 'Remove scheduled changes',
        operationId: 'deleteSubscriptionFutureChanges',
        tags,
        description:
          'Removes scheduled changes: a change at renewal, a cancellation at renewal, and a scheduled pause or ' +
          'resume (docs/subscriptions.md, "Pause and resume").',
        params: SubscriptionIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await changes.removeFutureChanges(request.ctx, request.params.subscriptionID);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/subscriptions/:subscriptionID/usage',
    {
      schema: {
        summary: "Read a subscription's usage so far",
        operationId: 'getSubscriptionUsage',
        tags,
        description:
          'Beyond the spec: for each usage component linked to a billable metric, the quantity read from the ' +
          'events so far in the current usage period, per group, and what it costs so far (docs/usage.md, ' +
          '"Reading usage"). Empty Usage and null period once billing has stopped.',
        params: SubscriptionIdParams,
        response: { 200: SubscriptionUsageOut },
      },
    },
    async (request) => {
      const ctx = request.ctx;
      const usage = await changes.subscriptionUsage(ctx, request.params.subscriptionID);
      const timeZone = ctx.account.timeZone;
      return {
        subscriptionID: request.params.subscriptionID,
        CurrencyCode: usage.currencyCode,
        PeriodStart: usage.period ? startOfDate(usage.period.start, timeZone) : null,
        PeriodEnd: usage.period ? startOfDate(usage.period.end, timeZone) : null,
        Usage: usage.lines.map((line) => ({
          componentID: line.componentId,
          MetricCode: line.metricCode,
          UsageGroup: line.group,
          Quantity: line.quantity,
          Amount: minorToWireNumber(line.amountMinor, usage.currencyCode),
        })),
      };
    },
  );

  app.get(
    '/subscriptions/:subscriptionID/upcoming-invoice',
    {
      schema: {
        summary: 'Preview the next invoice',
        operationId: 'getUpcomingInvoice',
        tags,
        description:
          'The next invoice the subscription will get, computed by the bill run’s own code (invoiceID and ' +
          'invoiceNum null), with the prepaid credit its issue will apply (PrepaidCreditApplied) and what is ' +
          'left to pay after it (AmountDueAfterCredit); 404 when no invoice is coming; 409 subscription_invalid when the record cannot be ' +
          'planned (the bill run parks it).',
        params: SubscriptionIdParams,
        response: { 200: UpcomingInvoiceOut },
      },
    },
    async (request) => {
      const ctx = request.ctx;
      const upcoming = await changes.upcomingInvoice(ctx, request.params.subscriptionID);
      if (!upcoming) {
        throw changes.noUpcomingInvoice(request.params.subscriptionID);
      }
      const invoice = await previewInvoice(ctx, upcoming);
      // The credit the bill run's issue will consume, planned by the same rules and consuming nothing
      // (docs/credits.md, "The upcoming invoice").
      const creditMinor = await previewGrantCredit(ctx, {
        customerId: invoice.customer.id,
        currencyCode: invoice.currencyCode,
        invoiceDate: invoice.invoiceDate,
        totalMinor: invoice.money.totalMinor,
        lines: payableLinesOf(invoice.charges),
      });
      return {
        ...toInvoiceDto(await invoiceWithFigures(ctx, invoice), ctx.account.timeZone),
        PrepaidCreditApplied: minorToWireNumber(creditMinor, invoice.currencyCode),
        AmountDueAfterCredit: minorToWireNumber(invoice.money.totalMinor - creditMinor, invoice.currencyCode),
      };
    },
  );

  app.get(
    '/subscriptions/:subscriptionID/credits',
    {
      schema: {
        summary: "List a subscription's credits",
        operationId: 'listSubscriptionCredits',
        tags,
        description:
          'Credits owed from cancellations and changes made now, with the adjustment that issued each once issued.',
        params: SubscriptionIdParams,
        response: { 200: Type.Array(StoredCreditOut) },
      },
    },
    async (request) => {
      const timeZone = request.ctx.account.timeZone;
      return (await changes.listSubscriptionCredits(request.ctx, request.params.subscriptionID)).map((c) => ({
        subscriptionCreditID: c.id,
        Descrip: c.descrip,
        Amount: minorToWireNumber(c.amountMinor, c.currencyCode),
        CurrencyCode: c.currencyCode,
        PeriodStart: startOfDate(c.periodStart, timeZone),
        PeriodEnd: startOfDate(c.periodEnd, timeZone),
        adjustmentID: c.adjustmentId,
        CreatedDate: c.createdAt,
      }));
    },
  );

  app.get(
    '/subscriptions/:subscriptionID/periods',
    {
      schema: {
        summary: 'List billed periods',
        operationId: 'listSubscriptionPeriods',
        tags,
        description:
          'The periods billed so far, in order: they tile time from the start with no gap or overlap.',
        params: SubscriptionIdParams,
        response: { 200: Type.Array(PeriodOut) },
      },
    },
    async (request) => {
      const timeZone = request.ctx.account.timeZone;
      const { currencyCode, periods } = await changes.listBilledPeriods(
        request.ctx,
        request.params.subscriptionID,
      );
      return periods.map((p) => ({
        PeriodNo: p.periodNo,
        PeriodStart: startOfDate(p.periodStart, timeZone),
        PeriodEnd: startOfDate(p.periodEnd, timeZone),
        Kind: p.kind as 'trial' | 'stub' | 'term',
        Amount: minorToWireNumber(p.amountMinor, currencyCode),
        invoiceID: p.invoiceId,
      }));
    },
  );
}

/** docs/subscriptions.md, "Pause and resume". */
export function registerSubscriptionPauseRoutes(app: App): void {
  app.put(
    '/subscriptions/:subscriptionID/pause',
    {
      schema: {
        summary: 'Pause a subscription',
        operationId: 'pauseSubscription',
        tags,
        description:
          'Beyond the spec: stops billing from PauseDate (default today) until ResumeDate (null: until resumed). ' +
          'Credit none (default): the billed period is served to its end and the pause starts then; prorata: the ' +
          'pause starts on PauseDate and the unused days are credited. No invoice is made for the paused time. 409 ' +
          'for a cancelled, expired or already paused subscription.',
        params: SubscriptionIdParams,
        querystring: PreviewQuery,
        body: PauseBody,
        response: changeResponses,
      },
    },
    async (request, reply) =>
      changeOrPreview(request.ctx, reply, request.query.preview, request.params.subscriptionID, (ctx) =>
        pauseSubscription(ctx, request.params.subscriptionID, {
          pauseDate: request.body.PauseDate,
          resumeDate: request.body.ResumeDate,
          credit: request.body.Credit,
          billingAnchor: request.body.BillingAnchor,
        }),
      ),
  );

  app.put(
    '/subscriptions/:subscriptionID/resume',
    {
      schema: {
        summary: 'Resume a paused subscription',
        operationId: 'resumeSubscription',
        tags,
        description:
          'Beyond the spec: billing resumes on ResumeDate (default today), on a new cycle from that day ' +
          '(BillingAnchor resume_day, the default) or on the old cycle with the days to its next boundary billed ' +
          'pro rata (unchanged). With WaitForPayment the subscription stays Paused until the resumption invoice is ' +
          'paid, and stays paused if it is voided unpaid on ResumePayByDate. A resume on or before the pause’s ' +
          'first day withdraws it. 409 unless paused or a pause is scheduled.',
        params: SubscriptionIdParams,
        querystring: PreviewQuery,
        body: Type.Optional(ResumeBody),
        response: { ...NoContent, 200: ResumeOut },
      },
    },
    async (request, reply) =>
      changeOrPreview(
        request.ctx,
        reply,
        request.query.preview,
        request.params.subscriptionID,
        (ctx) =>
          resumeSubscription(ctx, request.params.subscriptionID, {
            resumeDate: request.body?.ResumeDate,
            billingAnchor: request.body?.BillingAnchor,
            waitForPayment: request.body?.WaitForPayment,
          }),
        resumeStateOf,
      ),
  );
}
