/**
 * Checks a route runs beside its schema when the schema refuses a body (docs/spec-decisions.md, "One answer for
 * every problem of a body"): a schema failure answers before the use case runs, so a cheap domain check (is this
 * currency enabled?) would otherwise be reported only on the next try. The check reads the body as sent, not
 * validated, so it must look only at values of the right shape and skip the rest.
 */

import type { FastifyRequest } from 'fastify';
import type { FieldProblem } from '../errors.ts';

/** `reported` are the schema's problems: a check skips a field they name already. */
export type BesideSchemaCheck = (
  request: FastifyRequest,
  reported: readonly FieldProblem[],
) => Promise<FieldProblem[]>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Problems to report together with the schema's when it refuses the body. */
    checksBesideSchema?: BesideSchemaCheck;
  }
}

/** The schema's problems and the route's own, one per field and message, the schema's first. */
export async function withProblemsBesideSchema(
  request: FastifyRequest,
  schemaProblems: FieldProblem[],
): Promise<FieldProblem[]> {
  const check = request.routeOptions.config.checksBesideSchema;
  // Without an account (an unauthenticated request is refused before validation) there is nothing to check.
  if (!check || !request.ctx) return schemaProblems;
  const seen = new Set(schemaProblems.map((p) => `${p.field}\u0000${p.message}`));
  const more = (await check(request, schemaProblems)).filter(
    (p) => !seen.has(`${p.field}\u0000${p.message}`),
  );
  return [...schemaProblems, ...more];
}
