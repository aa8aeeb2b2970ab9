import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../errors.ts';
import type { FieldProblem } from '../errors.ts';
import { NUL_REFUSED } from './urlText.ts';

/**
 * The HTML forms' routes (the customer portal's pages, the eMandate signing pages) declare no body schema: they read
 * their body as text fields. Whatever else reaches them is refused here, once for each scope of such routes rather
 * than by every route (docs/spec-decisions.md, "Request bodies"): a JSON body whose values are numbers, lists or
 * objects (read as text, they failed with a 500), and a field holding NUL, which PostgreSQL text cannot store (a 500
 * there, a success on SQLite). A 422 names the field. A route of the scope that declares a body schema validates its
 * own body.
 */
export function refuseOddFormFields(scope: FastifyInstance): void {
  scope.addHook('preValidation', async (request) => {
    const body: unknown = request.body;
    if (body === undefined || body === null || request.routeOptions.schema?.body !== undefined) return;
    const fromForm = /^application\/x-www-form-urlencoded\b/i.test(request.headers['content-type'] ?? '');
    const odd = oddField(body, fromForm);
    if (odd) throw ValidationError.field(odd.field, odd.message);
  });
}

/** The first field that is not text, or holds NUL; undefined when every field is text. */
function oddField(body: unknown, fromForm: boolean): FieldProblem | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { field: 'body', message: 'must be form fields' };
  }
  for (const [name, value] of Object.entries(body)) {
    if (name.includes('\u0000')) return { field: 'body', message: NUL_REFUSED };
    // A field sent twice in a form arrives as a list of its values (@fastify/formbody); in JSON a list is no text.
    const values: unknown[] = fromForm && Array.isArray(value) ? value : [value];
    if (values.length === 0 || values.some((text) => typeof text !== 'string')) {
      return { field: name, message: 'must be text' };
    }
    if (values.some((text) => (text as string).includes('\u0000')))
      return { field: name, message: NUL_REFUSED };
  }
  return undefined;
}
