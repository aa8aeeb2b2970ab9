import type { Clock } from '../../clock.ts';
import type { App } from '../../http/types.ts';
import { emptyBodyAsObject } from '../../http/schemas.ts';
import { goLive } from './goLive.service.ts';
import { GoLiveBody, WentLiveOut } from './goLive.schemas.ts';
import { toWentLiveDto } from './goLive.serializer.ts';

/** POST /v1/account/golive (docs/spec-decisions.md, "Going live"; beyond the spec). */
export function registerGoLiveRoutes(app: App, options: { clock: Clock }): void {
  app.post(
    '/account/golive',
    {
      schema: {
        summary: 'Make the live account of this test account',
        operationId: 'goLive',
        tags: ['Account'],
        description:
          "Makes a new live account with this test account's settings, seller details, logo, taxes, currencies, " +
          'catalogue, features and coupons, and its webhook endpoints disabled until confirmed; no customers, ' +
          'payment methods, invoices or test-clock state (docs/going-live.md). The answer carries the live ' +
          "account's first API key and each endpoint's new secret, shown this once, and what is left to do by " +
          'hand. A live account is 403 `not_a_test_account`; a test account made live before is 409 ' +
          '`account_already_live`, naming the live account.',
        body: GoLiveBody,
        response: { 201: WentLiveOut },
      },
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) => {
      const made = await goLive(request.ctx, { name: request.body.Name }, options.clock);
      return reply.code(201).send(toWentLiveDto(made));
    },
  );
}
