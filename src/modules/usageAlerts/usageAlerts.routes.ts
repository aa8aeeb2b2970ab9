import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { NoContent, PagingQuery, pageOf } from '../../http/schemas.ts';
import * as alerts from './usageAlert.service.ts';
import {
  SubscriptionParams,
  UsageAlertBody,
  UsageAlertOut,
  UsageAlertParams,
} from './usageAlerts.schemas.ts';
import { toUsageAlertDto, usageAlertInputFromWire } from './usageAlerts.serializer.ts';

const tags = ['Usage alerts'];
const base = '/subscriptions/:subscriptionID/usage-alerts';

/** A subscription's usage alerts (docs/usage.md, "Alerts"). */
export function registerUsageAlertRoutes(app: App): void {
  app.get(
    base,
    {
      schema: {
        summary: "List a subscription's usage alerts",
        operationId: 'listUsageAlerts',
        description:
          "The subscription's usage alerts in creation order, each with whether it fired this period.",
        tags,
        params: SubscriptionParams,
        querystring: PagingQuery,
        response: { 200: Type.Array(UsageAlertOut) },
      },
    },
    async (request) =>
      (await alerts.listUsageAlerts(request.ctx, request.params.subscriptionID, pageOf(request.query))).map(
        toUsageAlertDto,
      ),
  );

  app.get(
    `${base}/:usageAlertID`,
    {
      schema: {
        summary: 'Get a usage alert',
        operationId: 'getUsageAlert',
        description:
          'One alert, with its current period, whether it fired in it, and its last firing (the value seen and when).',
        tags,
        params: UsageAlertParams,
        response: { 200: UsageAlertOut },
      },
    },
    async (request) =>
      toUsageAlertDto(
        await alerts.getUsageAlert(request.ctx, request.params.subscriptionID, request.params.usageAlertID),
      ),
  );

  app.post(
    base,
    {
      schema: {
        summary: 'Create a usage alert',
        operationId: 'createUsageAlert',
        description:
          "A threshold on the subscription's usage so far in its period: a metric's quantity, or what its usage " +
          'costs (one metric, or every metered component). Reaching it emits usage.threshold_crossed, and e-mails ' +
          'the customer when the account’s UsageAlertEmails is on; once a period. Checked within a minute.',
        tags,
        params: SubscriptionParams,
        body: UsageAlertBody,
        response: { 201: UsageAlertOut },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          toUsageAlertDto(
            await alerts.createUsageAlert(
              request.ctx,
              request.params.subscriptionID,
              usageAlertInputFromWire(request.body),
            ),
          ),
        ),
  );

  app.put(
    `${base}/:usageAlertID`,
    {
      schema: {
        summary: 'Replace a usage alert',
        operationId: 'editUsageAlert',
        description:
          'Replaces the alert’s name, kind, metric, group and threshold; a firing of this period stays, and it ' +
          'fires again from the next period.',
        tags,
        params: UsageAlertParams,
        body: UsageAlertBody,
        response: { 200: UsageAlertOut },
      },
    },
    async (request) =>
      toUsageAlertDto(
        await alerts.updateUsageAlert(
          request.ctx,
          request.params.subscriptionID,
          request.params.usageAlertID,
          usageAlertInputFromWire(request.body),
        ),
      ),
  );

  app.delete(
    `${base}/:usageAlertID`,
    {
      schema: {
        summary: 'Delete a usage alert',
        operationId: 'deleteUsageAlert',
        description: 'The alert no longer fires; the events it emitted stay.',
        tags,
        params: UsageAlertParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await alerts.deleteUsageAlert(request.ctx, request.params.subscriptionID, request.params.usageAlertID);
      return reply.code(204).send(null);
    },
  );
}
