import type { App } from '../../http/types.ts';
import { NoContent, emptyBodyAsObject } from '../../http/schemas.ts';
import * as accounts from './account.service.ts';
import { AccountOut, EditAccountBody } from './account.schemas.ts';
import { accountSettingsFromWire, toAccountDto } from './account.serializer.ts';

const tags = ['Account'];

/** The calling account's own settings (beyond the spec: the original has no such resource). */
export function registerAccountRoutes(app: App): void {
  app.get(
    '/account',
    {
      schema: {
        tags,
        description: 'The account the credentials belong to.',
        response: { 200: AccountOut },
      },
    },
    // The context's account was read by this request's authentication, so it is current.
    async (request) => toAccountDto(request.ctx.account),
  );

  app.put(
    '/account',
    {
      schema: {
        tags,
        description:
          'Changes the settings sent; settings left out keep their values and null clears notes or terms.',
        body: EditAccountBody,
        response: NoContent,
      },
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) => {
      await accounts.editAccount(request.ctx, accountSettingsFromWire(request.body));
      return reply.code(204).send(null);
    },
  );
}
