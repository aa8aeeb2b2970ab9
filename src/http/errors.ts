import type { FastifyError, FastifyInstance } from 'fastify';
import { DomainError } from '../errors.ts';
import { isForeignKeyViolation, isTransientConflict } from '../storage/database.ts';
import { problem, sendProblem } from './problem.ts';
import { fieldProblemsFromAjv } from './validation.ts';

const STATUS_OF_KIND: Record<DomainError['kind'], number> = {
  not_found: 404,
  conflict: 409,
  validation: 422,
  not_allowed: 403,
};

// Fastify's own client errors, reworded for people and given stable codes.
const FASTIFY_ERRORS: Record<string, { status: number; code: string; detail?: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: {
    status: 400,
    code: 'malformed_json',
    detail: 'The body is not valid JSON',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'malformed_json', detail: 'The JSON body is empty' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'body_too_large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: 'unsupported_media_type',
    detail: 'Send the body as application/json',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'bad_content_length' },
};

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | DomainError, request, reply) => {
    if (error instanceof DomainError) {
      const fields = 'fields' in error ? (error.fields as { field: string; message: string }[]) : undefined;
      return sendProblem(reply, problem(STATUS_OF_KIND[error.kind], error.code, error.message, fields));
    }
    if (error.validation) {
      const fields = fieldProblemsFromAjv(error.validation as never, error.validationContext);
      return sendProblem(
        reply,
        problem(422, 'invalid_fields', 'The request has invalid values: see fields', fields),
      );
    }
    // Use cases check what a write refers to before writing; a foreign key can then only fail when a concurrent
    // request deleted it in between. The write was refused whole, so retrying is safe.
    if (isForeignKeyViolation(error)) {
      return sendProblem(
        reply,
        problem(
          409,
          'concurrent_change',
          'Something this request refers to was deleted meanwhile; nothing was changed',
        ),
      );
    }
    if (isTransientConflict(error)) {
      const body = problem(
        503,
        'try_again',
        'The request met a concurrent one and was rolled back whole; send it again',
      );
      return sendProblem(reply.header('retry-after', '1'), body);
    }
    const known = error.code ? FASTIFY_ERRORS[error.code] : undefined;
    if (known) return sendProblem(reply, problem(known.status, known.code, known.detail ?? error.message));
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return sendProblem(reply, problem(error.statusCode, 'bad_request', error.message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(
      reply,
      problem(500, 'internal_error', `Something went wrong on our side; quote request id ${request.id}`),
    );
  });

  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      problem(404, 'route_not_found', `No route ${request.method} ${request.url.split('?')[0]}`),
    ),
  );
}
