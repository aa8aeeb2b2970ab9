import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../errors.ts';

/**
 * Bodies that are a file as its sender made it (a bank's XML report, a NACHA text file) rather than JSON, for the
 * routes registered in `scope` only: every other route keeps taking JSON alone (jsonBody.ts). The body limit is
 * the server's, the same as for JSON. The text arrives as the route's body, a string; `field` is the name the
 * route gives the file in its JSON form, so that a problem names the same field whichever way it was sent. A
 * leading byte-order mark is dropped (editors on Windows write one); NUL is refused, as in JSON bodies, since
 * PostgreSQL text cannot hold it; an empty file is refused.
 */
export function acceptFileBodies(scope: FastifyInstance, mediaTypes: readonly string[], field: string): void {
  scope.addContentTypeParser([...mediaTypes], { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).replace(/^\uFEFF/, '');
    if (text.trim() === '') return done(ValidationError.field(field, 'must not be empty'), undefined);
    if (text.includes('\u0000')) {
      return done(ValidationError.field(field, 'must not contain NUL (\\u0000) characters'), undefined);
    }
    done(null, text);
  });
}
