import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import type { PortalRequests } from './portalHttp.ts';
import { SlugParams } from './portal.schemas.ts';
import { statementPage, statementPdfPage } from './statementPage.ts';

/** The period of a statement page, as the period picker (a GET form) or a quick choice sends it. */
const StatementPageQuery = Type.Object({
  startDate: Type.Optional(Type.String({ maxLength: 40 })),
  endDate: Type.Optional(Type.String({ maxLength: 40 })),
});

/**
 * The statement of account and its PDF (docs/portal.md, "Statement and payments"). Each route parses and answers
 * with its page (statementPage.ts).
 */
export function registerStatementRoutes(portal: App, pages: PortalRequests): void {
  portal.get(
    '/portal/:slug/statement',
    { schema: { hide: true, params: SlugParams, querystring: StatementPageQuery } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      return page ? statementPage(page, request.query) : reply;
    },
  );
  portal.get(
    '/portal/:slug/statement.pdf',
    { schema: { hide: true, params: SlugParams, querystring: StatementPageQuery } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      return page ? statementPdfPage(page, request.query) : reply;
    },
  );
}
