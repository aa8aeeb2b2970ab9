import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../errors.ts';
import {
  PoolTimeoutError,
  isForeignKeyViolation,
  isLockTimeout,
  isTooManyConnections,
  isTransientConflict,
} from '../storage/database.ts';
import { withProblemsBesideSchema } from './besideSchema.ts';
import { ServiceBusyError } from './customerQueue.ts';
import { PROBLEM_CONTENT_TYPE, problem, sendProblem } from './problem.ts';
import type { Problem } from './problem.ts';
import { logCompletion } from './requestLog.ts';
import { fieldProblemsFromAjv } from './validation.ts';

const STATUS_OF_KIND: Record<DomainError['kind'], number> = {
  not_found: 404,
  conflict: 409,
  validation: 422,
  not_allowed: 403,
  gone: 410,
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

/**
 * What an error thrown by a route means to the client, as a problem (docs/spec-decisions.md, "Errors"). A retry hint
 * goes in `retryAfterSeconds`; an error no client could cause is logged and answered 500.
 */
export function problemOf(
  error: FastifyError | DomainError,
  request: FastifyRequest,
): { problem: Problem; retryAfterSeconds?: number } {
  if (error instanceof DomainError) {
    const fields = 'fields' in error ? (error.fields as { field: string; message: string }[]) : undefined;
    return { problem: problem(STATUS_OF_KIND[error.kind], error.code, error.message, fields) };
  }
  if (error.validation) {
    const fields = fieldProblemsFromAjv(error.validation as never, error.validationContext);
    return { problem: problem(422, 'invalid_fields', 'The request has invalid values: see fields', fields) };
  }
  // Use cases check what a write refers to before writing; a foreign key can then only fail when a concurrent
  // request deleted it in between. The write was refused whole, so retrying is safe.
  if (isForeignKeyViolation(error)) {
    return {
      problem: problem(
        409,
        'concurrent_change',
        'Something this request refers to was deleted meanwhile; nothing was changed',
      ),
    };
  }
  if (isTransientConflict(error)) {
    return {
      problem: problem(
        503,
        'try_again',
        'The request met a concurrent one and was rolled back whole; send it again',
      ),
      retryAfterSeconds: 1,
    };
  }
  // Load, not the request (docs/spec-decisions.md, "Fairness under load"): nothing was written; send it again.
  if (error instanceof ServiceBusyError) {
    const { status, code, message, retryAfterSeconds } = error;
    return { problem: problem(status, code, message), retryAfterSeconds };
  }
  if (isLockTimeout(error)) {
    return {
      problem: problem(
        503,
        'lock_timeout',
        'Another request held a lock this one needed for too long; nothing was changed: send it again after Retry-After',
      ),
      retryAfterSeconds: 1,
    };
  }
  if (error instanceof PoolTimeoutError) {
    return {
      problem: problem(
        503,
        'database_busy',
        'No database connection came free in time; nothing was changed: send the request again after Retry-After',
      ),
      retryAfterSeconds: 1,
    };
  }
  if (isTooManyConnections(error)) {
    return {
      problem: problem(
        503,
        'database_busy',
        'The database refused a new connection (it has too many clients); send the request again after Retry-After',
      ),
      retryAfterSeconds: 1,
    };
  }
  const known = error.code ? FASTIFY_ERRORS[error.code] : undefined;
  if (known) return { problem: problem(known.status, known.code, known.detail ?? error.message) };
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return { problem: problem(error.statusCode, 'bad_request', error.message) };
  }
  request.log.error({ err: error }, 'unhandled error');
  return {
    problem: problem(
      500,
      'internal_error',
      `Something went wrong on our side; quote request id ${request.id}`,
    ),
  };
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(async (error: FastifyError | DomainError, request, reply) => {
    const answer = problemOf(error, request);
    if ('validation' in error && error.validation && error.validationContext === 'body') {
      const fields = await withProblemsBesideSchema(request, answer.problem.fields ?? []);
      answer.problem = problem(422, answer.problem.code, answer.problem.detail, fields);
    }
    if (answer.retryAfterSeconds !== undefined) reply.header('retry-after', String(answer.retryAfterSeconds));
    return sendProblem(reply, answer.problem);
  });

  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      problem(404, 'route_not_found', `No route ${request.method} ${request.url.split('?')[0]}`),
    ),
  );
}

/** What Fastify's router refuses before any route runs, as problems (docs/spec-decisions.md, "Errors"). */
function frameworkProblem(error: FastifyError, request: FastifyRequest): Problem {
  const path = request.url.split('?')[0];
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return problem(
        400,
        'malformed_url',
        `The path ${path} is not a valid URL: % must be followed by two hex digits`,
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return problem(
        414,
        'path_segment_too_long',
        'A path segment is longer than any identifier (200 characters)',
      );
    default:
      request.log.error({ err: error }, 'unhandled error');
      return problem(
        500,
        'internal_error',
        `Something went wrong on our side; quote request id ${request.id}`,
      );
  }
}

/**
 * Answers what Fastify refuses in its router (frameworkErrors), where neither hooks nor the error handler run:
 * `withHeaders` gives the answer the headers every other answer carries, and the request gets its log line.
 */
export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
  withHeaders: (request: FastifyRequest, reply: FastifyReply) => void,
): void {
  const started = performance.now();
  reply.raw.once('finish', () => logCompletion(request, reply, performance.now() - started));
  withHeaders(request, reply);
  sendProblem(reply, frameworkProblem(error, request));
}

/** What Node's HTTP parser refuses before Fastify sees a request (a timeout, oversized headers, not HTTP). */
function clientProblem(error: NodeJS.ErrnoException): Problem {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return problem(408, 'request_timeout', 'The request did not arrive in time');
    case 'HPE_HEADER_OVERFLOW':
      return problem(431, 'headers_too_large', 'The request headers are larger than the server accepts');
    default:
      return problem(400, 'malformed_request', 'The request is not valid HTTP');
  }
}

/**
 * Answers a connection whose request Node could not parse (the server's clientError), as problem+json like every
 * other error, and closes it. There is no request to answer through Fastify, so the answer is written on the socket.
 */
export function answerClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  // A connection reset leaves nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const body = clientProblem(error);
  this.log.info({ res: { statusCode: body.status }, code: error.code }, `request refused: ${body.detail}`);
  if (socket.writable) {
    const text = JSON.stringify(body);
    socket.write(
      [
        `HTTP/1.1 ${body.status} ${http.STATUS_CODES[body.status]}`,
        `content-type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
        `content-length: ${Buffer.byteLength(text)}`,
        'x-content-type-options: nosniff',
        'cache-control: no-store',
        'connection: close',
        '',
        text,
      ].join('\r\n'),
    );
  }
  socket.destroy(error);
}
