import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { idempotentCreate } from '../../http/idempotency.ts';
import { NoContent, emptyBodyAsObject, pageOf } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import * as adjustments from './adjustment.service.ts';
import type { AdjustmentAddress } from './adjustment.service.ts';
import {
  AddAdjustmentBody,
  AdjustmentAddedOut,
  AdjustmentGetOut,
  AdjustmentListOut,
  DeleteAdjustmentBody,
  DeleteAdjustmentQuery,
  EditAdjustmentBody,
  GetAdjustmentQuery,
  ListAdjustmentsQuery,
} from './adjustments.schemas.ts';
import {
  adjustmentInputFromWire,
  toAdjustmentDetailDto,
  toAdjustmentListEntryDto,
} from './adjustments.serializer.ts';

const tags = ['Adjustments'];

/**
 * Spec, Adjustments: DELETE's type, adjustmentID and customerID may travel in the query string or the JSON body
 * (which one is not shown); the query's value wins when both carry one.
 */
function deleteAddress(query: DeleteAdjustmentQuery, body: DeleteAdjustmentBody): AdjustmentAddress {
  const type = query.type ?? body.type;
  const adjustmentId = query.adjustmentID ?? body.adjustmentID;
  const customerId = query.customerID ?? body.customerID;
  const problems: FieldProblem[] = [];
  if (type === undefined) problems.push({ field: 'type', message: 'is required' });
  if (adjustmentId === undefined) problems.push({ field: 'adjustmentID', message: 'is required' });
  if (customerId === undefined) problems.push({ field: 'customerID', message: 'is required' });
  if (problems.length > 0) throw new ValidationError(problems);
  return { direction: type!, adjustmentId: adjustmentId!, customerId: customerId! };
}

export function registerAdjustmentsRoutes(app: App): void {
  app.get(
    '/adjustment/list',
    {
      schema: {
        summary: 'List adjustments',
        operationId: 'listAdjustments',
        tags,
        description:
          'Lists adjustments of a type (negative, positive or all), of one customer or, without customerID, of ' +
          'the account, in creation order.',
        querystring: ListAdjustmentsQuery,
        response: { 200: AdjustmentListOut },
      },
    },
    async (request) => {
      const { type, customerID } = request.query;
      const list = await adjustments.listAdjustments(request.ctx, pageOf(request.query), {
        ...(customerID !== undefined ? { customerId: customerID } : {}),
        ...(type !== 'all' ? { direction: type } : {}),
      });
      return {
        isSuccess: true,
        adjustments: list.map((a) => toAdjustmentListEntryDto(a, request.ctx.account.timeZone)),
      };
    },
  );

  app.get(
    '/adjustment/get',
    {
      schema: {
        summary: 'Get an adjustment',
        operationId: 'getAdjustment',
        tags,
        description:
          'Reads a positive or a negative adjustment with its allocations. A type or customerID that is not the ' +
          'adjustment’s is a 404.',
        querystring: GetAdjustmentQuery,
        response: { 200: AdjustmentGetOut },
      },
    },
    async (request) => {
      const { type, adjustmentID, customerID } = request.query;
      const adjustment = await adjustments.getAdjustment(request.ctx, {
        direction: type,
        adjustmentId: adjustmentID,
        customerId: customerID,
      });
      return {
        isSuccess: true,
        adjustment: toAdjustmentDetailDto(adjustment, request.ctx.account.timeZone),
        type: adjustment.direction,
      };
    },
  );

  app.post(
    '/adjustment/add',
    {
      schema: {
        summary: 'Add an adjustment',
        operationId: 'createAdjustment',
        tags,
        description:
          'Adds an adjustment in the customer’s currency. Positive (opening_balance, refund, interest): DueDate ' +
          'and Ref are required. Negative (credit_note, bad_debt): AutoApply (or isAutoApply) applies it to the ' +
          'earliest open invoices and positive adjustments; otherwise the allocation list (LinkedAllocations, ' +
          'Allocations or allocations: objectID, AmtAllocated or amountApplied, isAdjustment) is required.',
        body: AddAdjustmentBody,
        response: { 201: AdjustmentAddedOut },
      },
    },
    async (request, reply) => {
      const input = adjustmentInputFromWire(request.body, request.ctx.account.timeZone);
      return idempotentCreate(
        request,
        reply,
        (ctx) => adjustments.createAdjustment(ctx, input),
        (id): AdjustmentAddedOut => ({ isSuccess: true, AdjustmentID: id, Type: request.body.Type }),
        { customerId: input.customerId },
      );
    },
  );

  app.put(
    '/adjustment/edit',
    {
      schema: {
        summary: 'Edit an adjustment',
        operationId: 'editAdjustment',
        tags,
        description:
          'Replaces the adjustment’s fields; its customer and Type do not change. A positive adjustment’s Amount ' +
          'cannot drop below what is allocated to it. For a negative one the allocation list is made what is ' +
          'sent: an allocation with allocationID is edited, one without is added, one left out is deleted ' +
          '(or AutoApply re-spreads the whole amount). Answers 204 with no body.',
        body: EditAdjustmentBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await adjustments.updateAdjustment(
        request.ctx,
        request.body.AdjustmentID,
        adjustmentInputFromWire(request.body, request.ctx.account.timeZone),
      );
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/adjustment/delete',
    {
      schema: {
        summary: 'Delete an adjustment',
        operationId: 'deleteAdjustment',
        tags,
        description:
          'Deletes an adjustment; type, adjustmentID and customerID come in the query string or the JSON body ' +
          '(the query wins). A negative adjustment’s allocations go with it; a positive adjustment that money is ' +
          'allocated to is a 409 until those allocations are removed.',
        querystring: DeleteAdjustmentQuery,
        body: DeleteAdjustmentBody,
        response: NoContent,
      },
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) => {
      await adjustments.deleteAdjustment(request.ctx, deleteAddress(request.query, request.body));
      return reply.code(204).send(null);
    },
  );
}
