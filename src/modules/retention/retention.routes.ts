import type { App } from '../../http/types.ts';
import { getRetentionRules, setRetentionRules } from './retentionRules.service.ts';
import { retentionReportFromWire } from './retentionReport.service.ts';
import {
  RetentionReportOut,
  RetentionReportQuery,
  RetentionRulesBody,
  RetentionRulesOut,
} from './retention.schemas.ts';
import { reasonsFromWire, toRetentionReportDto, toRetentionRulesDto } from './retention.serializer.ts';

/** Beyond the spec: cancel with a way to stay (docs/portal.md, "Cancel with a way to stay"). */
export function registerRetentionRoutes(app: App): void {
  app.get(
    '/account/retention',
    {
      schema: {
        summary: 'Get the retention rules',
        operationId: 'getRetentionRules',
        description:
          'The cancel reasons the portal asks for and, per reason, the offers it may make before a cancel, in ' +
          'order. An account that never set them has the default reasons and no offers (UpdatedAt null).',
        tags: ['Account'],
        response: { 200: RetentionRulesOut },
      },
    },
    async (request) => toRetentionRulesDto(await getRetentionRules(request.ctx)),
  );

  app.put(
    '/account/retention',
    {
      schema: {
        summary: 'Replace the retention rules',
        operationId: 'setRetentionRules',
        description:
          'The cancel reasons (one of them `other`) and, per reason, offers in order: `coupon` (couponID: a live ' +
          'coupon marked IsRetention), `package` (packageID and packageRateTermID: a move to that rate term at ' +
          'the next renewal) or `pause`. The portal shows the first offer the subscription can take.',
        tags: ['Account'],
        body: RetentionRulesBody,
        response: { 200: RetentionRulesOut },
      },
    },
    async (request) =>
      toRetentionRulesDto(await setRetentionRules(request.ctx, reasonsFromWire(request.body))),
  );

  app.get(
    '/reports/retention',
    {
      schema: {
        summary: 'The retention report',
        operationId: 'getRetentionReport',
        description:
          "By month from `from` to `to` (inclusive, in the account's time zone): the portal's cancels by reason, " +
          'the offers shown, taken and declined by kind, and the subscriptions kept: an offer taken and the ' +
          'subscription not cancelled within 30 days.',
        tags: ['Reports'],
        querystring: RetentionReportQuery,
        response: { 200: RetentionReportOut },
      },
    },
    async (request) => toRetentionReportDto(await retentionReportFromWire(request.ctx, request.query)),
  );
}
