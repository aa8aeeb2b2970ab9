import { linkOrigin } from '../../http/origin.ts';
import type { App } from '../../http/types.ts';
import { NoContent, emptyBodyAsObject } from '../../http/schemas.ts';
import * as accounts from './account.service.ts';
import { AccountOut, EditAccountBody } from './account.schemas.ts';
import { accountSettingsFromWire, toAccountDto } from './account.serializer.ts';

const tags = ['Account'];

/** The calling account's own settings (beyond the spec: the original has no such resource). */
export function registerAccountRoutes(app: App, options: { publicUrl?: string } = {}): void {
  app.get(
    '/account',
    {
      schema: {
        summary: 'Get the account',
        operationId: 'getAccount',
        tags,
        description: 'The account the credentials belong to.',
        response: { 200: AccountOut },
      },
    },
    // The context's account was read by this request's authentication, so it is current.
    async (request) =>
      toAccountDto(
        request.ctx.account,
        await accounts.getSellerDetails(request.ctx),
        linkOrigin(request, options.publicUrl),
      ),
  );

  app.get(
    '/account/logo',
    {
      schema: {
        summary: 'Download the invoice logo',
        operationId: 'getAccountLogo',
        tags,
        description:
          'The logo printed on invoices, as uploaded (PNG or JPEG); 404 when the account has none.',
        produces: ['image/png', 'image/jpeg'],
        response: {
          200: {
            description: 'The logo image',
            content: {
              'image/png': { schema: { type: 'string', format: 'binary' } },
              'image/jpeg': { schema: { type: 'string', format: 'binary' } },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const logo = await accounts.getAccountLogo(request.ctx);
      return reply.type(logo.contentType).send(logo.image);
    },
  );

  app.put(
    '/account',
    {
      schema: {
        summary: 'Edit the account settings',
        operationId: 'editAccount',
        tags,
        description:
          'Changes the settings and seller details sent, all at once or none; settings left out keep their values, ' +
          'null (or blank text) clears one, and `Logo: null` removes the logo.',
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
