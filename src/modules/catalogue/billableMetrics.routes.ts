import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { NoContent, PagingQuery, pageOf } from '../../http/schemas.ts';
import { archiveBillableMetric } from '../../flows/archiveBillableMetric.ts';
import * as metrics from './billableMetric.service.ts';
import {
  BillableMetricIdParams,
  BillableMetricOut,
  CreateBillableMetricBody,
  EditBillableMetricBody,
} from './billableMetrics.schemas.ts';
import {
  billableMetricEditFromWire,
  billableMetricInputFromWire,
  toBillableMetricDto,
} from './billableMetrics.serializer.ts';

const tags = ['Billable metrics'];

/** Beyond the spec: docs/usage.md, "Billable metrics". */
export function registerBillableMetricRoutes(app: App): void {
  app.get(
    '/billable-metrics',
    {
      schema: {
        summary: 'List billable metrics',
        operationId: 'listBillableMetrics',
        description: "The account's billable metrics in creation order, archived ones included.",
        tags,
        querystring: PagingQuery,
        response: { 200: Type.Array(BillableMetricOut) },
      },
    },
    async (request) =>
      (await metrics.listBillableMetrics(request.ctx, pageOf(request.query))).map(toBillableMetricDto),
  );

  app.get(
    '/billable-metrics/:billableMetricID',
    {
      schema: {
        summary: 'Get a billable metric',
        operationId: 'getBillableMetric',
        description: 'One billable metric.',
        tags,
        params: BillableMetricIdParams,
        response: { 200: BillableMetricOut },
      },
    },
    async (request) =>
      toBillableMetricDto(await metrics.getBillableMetric(request.ctx, request.params.billableMetricID)),
  );

  app.post(
    '/billable-metrics',
    {
      schema: {
        summary: 'Create a billable metric',
        operationId: 'createBillableMetric',
        description:
          'Defines what a metered component counts: events whose `code` is the Code, filtered, grouped and ' +
          'aggregated as the metric says. Its reading (Aggregation, Property, Filters, GroupBy) is fixed from now on.',
        tags,
        body: CreateBillableMetricBody,
        response: { 201: BillableMetricOut },
      },
    },
    async (request, reply) => {
      const metric = await metrics.createBillableMetric(
        request.ctx,
        billableMetricInputFromWire(request.body),
      );
      return reply.code(201).send(toBillableMetricDto(metric));
    },
  );

  app.put(
    '/billable-metrics/:billableMetricID',
    {
      schema: {
        summary: 'Edit a billable metric',
        operationId: 'editBillableMetric',
        description:
          'Replaces Name and Descrip (Descrip left out is null). Aggregation, Property, Filters and GroupBy may ' +
          'be sent only as they are: a different reading is a new metric (422 naming the field).',
        tags,
        params: BillableMetricIdParams,
        body: EditBillableMetricBody,
        response: { 200: BillableMetricOut },
      },
    },
    async (request) =>
      toBillableMetricDto(
        await metrics.editBillableMetric(
          request.ctx,
          request.params.billableMetricID,
          billableMetricEditFromWire(request.body),
        ),
      ),
  );

  app.delete(
    '/billable-metrics/:billableMetricID',
    {
      schema: {
        summary: 'Archive a billable metric',
        operationId: 'archiveBillableMetric',
        description:
          'Archives the metric: it refuses new events and keeps its Code; it stays readable. 409 while a ' +
          'component that is active or on subscriptions links it.',
        tags,
        params: BillableMetricIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await archiveBillableMetric(request.ctx, request.params.billableMetricID);
      return reply.code(204).send(null);
    },
  );
}
