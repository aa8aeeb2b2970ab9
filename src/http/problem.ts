import type { FastifyReply } from 'fastify';
import type { FieldProblem } from '../errors.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  fields?: FieldProblem[];
  /** The original service's error shape, so its clients can read our errors too. */
  Errors: { Message: string }[];
}

export function problem(status: number, code: string, detail: string, fields?: FieldProblem[]): Problem {
  const messages = fields?.length ? fields.map((f) => `${f.field}: ${f.message}`) : [detail];
  return {
    type: `/problems/${code}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
    ...(fields ? { fields } : {}),
    Errors: messages.map((Message) => ({ Message })),
  };
}

export function sendProblem(reply: FastifyReply, body: Problem): FastifyReply {
  return reply.code(body.status).type(PROBLEM_CONTENT_TYPE).send(body);
}
