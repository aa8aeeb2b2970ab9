import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../errors.ts';

/** The words bodies holding NUL are refused with (registerJsonBodies). */
export const NUL_REFUSED = 'must not contain NUL (\\u0000) characters';

/** The name of the first parameter whose name or value holds NUL; undefined if none does. */
function parameterWithNul(parameters: unknown): string | undefined {
  if (parameters === null || typeof parameters !== 'object') return undefined;
  for (const [name, value] of Object.entries(parameters)) {
    if (name.includes('\u0000')) return 'querystring';
    const values: unknown[] = Array.isArray(value) ? value : [value];
    if (values.some((text) => typeof text === 'string' && text.includes('\u0000'))) return name;
  }
  return undefined;
}

/**
 * Path and query parameters holding NUL are refused for every route, with 422 naming the parameter, as bodies are
 * (see registerJsonBodies): PostgreSQL text cannot hold NUL and would fail the query, and no identifier or filter
 * of ours contains one. Checked once here rather than by every route, so that no route can forget it.
 */
export function refuseNulInUrls(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    // A URL can carry NUL only percent-encoded (Node refuses raw control characters in a request line).
    if (!request.url.includes('%00')) return;
    const parameter = parameterWithNul(request.params) ?? parameterWithNul(request.query);
    if (parameter !== undefined) throw ValidationError.field(parameter, NUL_REFUSED);
  });
}
