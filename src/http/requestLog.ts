import { LogController } from 'fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * One line per request, once it is answered, whatever the answer (docs/operations.md, "Logs"): its id, method, URL,
 * status and time, so that 4xx and 5xx can be found in the logs. Fastify's own completion line carries only the
 * status, which left the method and URL on its arrival line; that line moves to debug level, since the completion
 * line now says all it said. The request serializer logs no header and no body: credentials and card numbers never
 * reach the line.
 */
export class RequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    logCompletion(request, reply, reply.elapsedTime, error);
  }
}

/** The completion line of a request, also for answers Fastify makes outside its request cycle (see frameworkErrors). */
export function logCompletion(
  request: FastifyRequest,
  reply: FastifyReply,
  responseTime: number,
  error?: Error | null,
): void {
  const entry = { req: request, res: reply, responseTime };
  // An error here is one of the response stream (the client went away mid-answer), not of the request.
  if (error) reply.log.warn({ ...entry, err: error }, 'request errored');
  else reply.log.info(entry, 'request completed');
}
