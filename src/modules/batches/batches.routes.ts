import { Type } from '@sinclair/typebox';
import { idempotentCreate } from '../../http/idempotency.ts';
import { NoContent, PagingQuery, pageOf } from '../../http/schemas.ts';
import { acceptFileBodies } from '../../http/fileBody.ts';
import type { App } from '../../http/types.ts';
import { ValidationError } from '../../errors.ts';
import { Id, Text } from '../../http/schemas.ts';
import { SIMULATE_SCENARIOS, simulateGatewayEvent } from '../collections/index.ts';
import { PaymentOut, dateFromWire, getPayment, toPaymentDto } from '../ledger/index.ts';
import { isBatchLine, simulateBatchReport, simulateLineReport } from './batchSimulate.service.ts';
import * as batches from './batch.service.ts';
import { downloadBankFile } from './batchFile.service.ts';
import { addBatchLine, deleteBatchLine, editBatchLine } from './batchLine.service.ts';
import { recordLineResult, uploadBatchReturns } from './batchReturns.service.ts';
import { submitBatchAsked } from './batchSubmission.service.ts';
import {
  BatchOut,
  BatchPaymentOut,
  BatchTokenParams,
  CancelBatchBody,
  CreateBatchBody,
  CreateBatchPaymentBody,
  EditBatchBody,
  EditBatchPaymentBody,
  LinePaymentParams,
  LineResultBody,
  RETURNS_FILE_TYPES,
  ReturnsOut,
  ReturnsUpload,
  SubmitBatchBody,
} from './batches.schemas.ts';
import type { ReturnsBody } from './batches.schemas.ts';
import {
  batchInputFromWire,
  batchLineEditFromWire,
  batchLineInputFromWire,
  toBatchDto,
  toBatchPaymentDto,
} from './batches.serializer.ts';

const tags = ['Batches'];

export function registerBatchesRoutes(app: App): void {
  app.get(
    '/batches',
    {
      schema: {
        summary: 'List payment batches',
        operationId: 'listBatches',
        tags,
        description: "The account's batches in creation order, without their payments.",
        querystring: PagingQuery,
        response: { 200: Type.Array(BatchOut) },
      },
    },
    async (request) =>
      (await batches.listBatches(request.ctx, pageOf(request.query))).map((b) =>
        toBatchDto(b, request.ctx.account.timeZone),
      ),
  );

  app.get(
    '/batches/:BatchToken',
    {
      schema: {
        summary: 'Get a payment batch',
        operationId: 'getBatch',
        tags,
        description: 'One batch with its payments (paymentID and Amount of each).',
        params: BatchTokenParams,
        response: { 200: BatchOut },
      },
    },
    async (request) =>
      toBatchDto(
        await batches.getBatch(request.ctx, request.params.BatchToken),
        request.ctx.account.timeZone,
      ),
  );

  app.post(
    '/batches',
    {
      schema: {
        summary: 'Create a payment batch',
        operationId: 'createBatch',
        tags,
        description:
          'An open batch (SubmitDate null, no payments) collecting bank debits in one currency through one gateway.',
        body: CreateBatchBody,
        response: { 201: BatchOut },
      },
    },
    async (request, reply) => {
      const { timeZone } = request.ctx.account;
      const input = batchInputFromWire(request.body, timeZone);
      return idempotentCreate(
        request,
        reply,
        (ctx) => batches.createBatch(ctx, input),
        (batch) => toBatchDto(batch, timeZone),
      );
    },
  );

  app.put(
    '/batches',
    {
      schema: {
        summary: 'Edit a payment batch',
        operationId: 'editBatch',
        tags,
        description:
          'An open batch only (409 otherwise); its currency and gateway only while it has no payments.',
        body: EditBatchBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      const { BatchToken, ...fields } = request.body;
      await batches.updateBatch(
        request.ctx,
        BatchToken,
        batchInputFromWire(fields, request.ctx.account.timeZone),
      );
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/batches/submit',
    {
      schema: {
        summary: 'Submit a payment batch',
        operationId: 'submitBatch',
        tags,
        description:
          'Moves an open batch with payments to build and sets SubmitDate; the next collection run checks every ' +
          'line and hands the batch to its gateway (submitted), or sends it back to open with BuildError. ' +
          'Without ActionDate the batch keeps its own; past its last safe day it is re-dated within its ' +
          "mandates' periods, and a debit that cannot keep its period is carried to its next date or to its " +
          'customer, who is told (409 batch_too_late when none is left to submit).',
        body: SubmitBatchBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      const { BatchToken, ActionDate, Notes } = request.body;
      await submitBatchAsked(request.ctx, BatchToken, {
        ...(ActionDate === undefined
          ? {}
          : { actionDate: dateFromWire(ActionDate, request.ctx.account.timeZone) }),
        notes: Notes,
      });
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/batches/cancel',
    {
      schema: {
        summary: 'Cancel a payment batch',
        operationId: 'cancelBatch',
        tags,
        description:
          'From open or build, or from submitted before its action date. Its payments fail (batch_cancelled) ' +
          'and their invoices owe the money again.',
        body: CancelBatchBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await batches.cancelBatch(request.ctx, request.body.BatchToken);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/batches/payments',
    {
      schema: {
        summary: 'Add a payment to a batch',
        operationId: 'createBatchPayment',
        tags,
        description:
          'A Pending payment debiting the customer’s bank account, allocated as PaymentApplied says (or, with ' +
          'isAutoApply, to the earliest open invoices). The batch must be open and hold fewer than 500.',
        body: CreateBatchPaymentBody,
        response: { 201: BatchPaymentOut },
      },
    },
    async (request, reply) => {
      const { timeZone } = request.ctx.account;
      const input = batchLineInputFromWire(request.body);
      return idempotentCreate(
        request,
        reply,
        (ctx) => addBatchLine(ctx, input),
        (payment) => toBatchPaymentDto(payment, timeZone),
        { customerId: input.customerId },
      );
    },
  );

  app.put(
    '/batches/payments',
    {
      schema: {
        summary: 'Edit a payment of a batch',
        operationId: 'editBatchPayment',
        tags,
        description:
          'Its amount, bank account and allocations: an entry with allocationID is edited, one without is added, ' +
          'one left out is deleted. The batch must be open.',
        body: EditBatchPaymentBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await editBatchLine(
        request.ctx,
        request.body.paymentID,
        batchLineEditFromWire(request.body, request.ctx.account.timeZone),
      );
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/batches/payments/:paymentID',
    {
      schema: {
        summary: 'Remove a payment from a batch',
        operationId: 'deleteBatchPayment',
        tags,
        description: 'The payment and its allocations go; the batch must be open.',
        params: LinePaymentParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await deleteBatchLine(request.ctx, request.params.paymentID);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/batches/payments/:paymentID/result',
    {
      schema: {
        summary: "Record a batch payment's result",
        operationId: 'recordBatchPaymentResult',
        tags,
        description:
          'Beyond the spec: what the bank said of one line, recorded by hand. paid settles a pending line; ' +
          'unpaid with the rail’s ReasonCode fails it, even after the batch was processed.',
        params: LinePaymentParams,
        body: LineResultBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await recordLineResult(request.ctx, request.params.paymentID, {
        status: request.body.Status,
        ...(request.body.ReasonCode === undefined ? {} : { reasonCode: request.body.ReasonCode }),
      });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/batches/:BatchToken/file',
    {
      schema: {
        summary: "Download a batch's bank file",
        operationId: 'downloadBatchFile',
        tags,
        description:
          'Beyond the spec, for batches of a bankfile gateway once built: SEPA pain.008.001.02 XML or a NACHA ' +
          'file, the same on every download. The first download is the batch leaving for the bank.',
        params: BatchTokenParams,
        produces: ['application/xml', 'text/plain'],
        response: { 200: Type.String({ description: 'The file' }) },
      },
    },
    async (request, reply) => {
      const file = await downloadBankFile(request.ctx, request.params.BatchToken);
      return reply
        .header('content-type', `${file.contentType}; charset=utf-8`)
        .header('content-disposition', `attachment; filename="${file.fileName}"`)
        .send(file.body);
    },
  );

  // The bank's file may come as it is (its own media type) or wrapped in JSON: a scope of its own, so that only
  // this route takes bodies other than JSON.
  app.register(async (scope: App) => {
    acceptFileBodies(scope, [...RETURNS_FILE_TYPES], 'document');
    scope.post(
      '/batches/:BatchToken/returns',
      {
        schema: {
          summary: "Upload the bank's returns for a batch",
          operationId: 'uploadBatchReturns',
          tags,
          description:
            'Beyond the spec, for batches of a bankfile gateway: a pain.002 status report (RJCT fails a line with ' +
            'its reason code, ACSC settles it once the batch is processing) or a NACHA return file; for a netcash ' +
            "gateway's batch, Netcash's statement (an entry whose amount or sign is not its line's is listed in " +
            'Mismatched and changes nothing). Every entry must be a line of the batch. A file that cannot be read ' +
            'is refused whole (422 naming document and the line). Send the file as it came from the bank, with Content-Type ' +
            'application/xml (or text/xml) for a pain.002 and text/plain for a NACHA file, or wrapped in JSON as ' +
            '{"document": "..."}; what is in it decides how it is read. The body limit is the same either way.',
          params: BatchTokenParams,
          body: ReturnsUpload,
          response: { 200: ReturnsOut },
        },
      },
      async (request) => {
        const upload = request.body as ReturnsBody | string;
        const document = typeof upload === 'string' ? upload : upload.document;
        const outcome = await uploadBatchReturns(request.ctx, request.params.BatchToken, document);
        return {
          Returned: outcome.returned,
          Settled: outcome.settled,
          Unchanged: outcome.unchanged,
          Mismatched: outcome.mismatched.map((entry) => ({
            Line: entry.line,
            paymentID: entry.paymentId,
            Reason: entry.reason,
          })),
        };
      },
    );
  });

  app.post(
    '/test/simulate',
    {
      schema: {
        summary: "Simulate a test gateway's late answer",
        operationId: 'simulateGatewayEvent',
        tags: ['Test clock'],
        description:
          'Beyond the spec, for test accounts only (403 `not_a_test_account` on a live account, even for its test ' +
          "gateway's payments; 403 for a gateway not in test mode): what a gateway or its bank reports days " +
          'later, now, on a payment (paymentID) or on every line of a batch (BatchToken). On a card payment ' +
          '`dispute` and `refund` reverse it, `unpaid:<code>` fails it with the code, `paid` settles a pending one. ' +
          'On a batch line the report takes the path of the bank’s: `paid` settles it once the batch is ' +
          'processing, `unpaid:<code>` returns it with the rail’s code, `dispute` and `refund` with the rail’s ' +
          'code for them. Answers the payment, or the batch, as it now is. docs/gateways.md.',
        body: Type.Object(
          {
            paymentID: Type.Optional(Id()),
            BatchToken: Type.Optional(Text(64, { minLength: 1, description: 'Every line of this batch' })),
            scenario: Type.String({ maxLength: 16, description: SIMULATE_SCENARIOS.join(', ') }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Union([PaymentOut, BatchOut]) },
      },
    },
    async (request) => {
      const { ctx } = request;
      const { paymentID, BatchToken, scenario } = request.body;
      if ((paymentID === undefined) === (BatchToken === undefined)) {
        throw ValidationError.field('paymentID', 'name either a paymentID or a BatchToken');
      }
      if (BatchToken !== undefined) {
        await simulateBatchReport(ctx, BatchToken, scenario);
        return toBatchDto(await batches.getBatch(ctx, BatchToken), ctx.account.timeZone);
      }
      if (await isBatchLine(ctx, paymentID!)) await simulateLineReport(ctx, paymentID!, scenario);
      else await simulateGatewayEvent(ctx, { paymentId: paymentID!, scenario });
      return toPaymentDto(await getPayment(ctx, paymentID!), ctx.account.timeZone);
    },
  );
}
