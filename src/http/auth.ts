import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { problem, sendProblem } from './problem.ts';

export interface PresentedCredentials {
  apiKey: string;
  accountId?: number;
}

/**
 * The original service's scheme is HTTP Basic with the account's numeric id as user name and an API key as
 * password; `Authorization: Bearer <key>` is accepted as well.
 */
export function readCredentials(header: string | undefined): PresentedCredentials | undefined {
  if (!header) return undefined;
  const space = header.indexOf(' ');
  if (space < 0) return undefined;
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (scheme === 'bearer') return value && value.length <= 256 ? { apiKey: value } : undefined;
  if (scheme !== 'basic') return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const user = decoded.slice(0, colon);
  const apiKey = decoded.slice(colon + 1);
  if (!/^\d{1,15}$/.test(user) || apiKey === '' || apiKey.length > 256) return undefined;
  return { accountId: Number(user), apiKey };
}

export const WWW_AUTHENTICATE = 'Basic realm="billing", charset="UTF-8", Bearer realm="billing"';

export function sendUnauthorized(
  request: FastifyRequest,
  reply: FastifyReply,
  presented: boolean,
): FastifyReply {
  reply.header('WWW-Authenticate', WWW_AUTHENTICATE);
  return sendProblem(
    reply,
    problem(
      401,
      presented ? 'invalid_credentials' : 'credentials_required',
      presented
        ? 'The credentials are not valid (unknown or revoked key, or a key of another account)'
        : 'Send HTTP Basic credentials (account id and API key) or Authorization: Bearer <API key>',
    ),
  );
}

/** Decides what a request whose credentials failed is answered: a 401, or a 429 once its address failed too often. */
export type FailedAuthentication = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/**
 * Failed authentications are counted per client address (an IPv6 client's /64) over a minute; past
 * `perMinute` the address's failures are answered 429 with `Retry-After`. Only failures are counted and valid keys
 * are never refused, so a client sharing an address (a NAT) with a guesser keeps working.
 */
export async function throttleFailedAuthentication(
  app: FastifyInstance,
  perMinute: number,
): Promise<FailedAuthentication> {
  // Every limiter made from this registration (these failures, the eMandate pages' routes) keys a client by its
  // address, an IPv6 client by its /64, as addressKey does for the portal's limits (docs/operations.md, "Files and
  // network limits"). The plugin's own key does so by default; it is named here so that no upgrade changes it.
  await app.register(rateLimit, { global: false, ipv6Subnet: 64 });
  const countFailure = app.createRateLimit({ max: perMinute, timeWindow: 60_000 });
  return async (request, reply) => {
    const limit = await countFailure(request);
    if (limit.isAllowed || !limit.isExceeded) return sendUnauthorized(request, reply, true);
    reply.header('Retry-After', String(Math.max(1, limit.ttlInSeconds)));
    return sendProblem(
      reply,
      problem(
        429,
        'too_many_failed_authentications',
        'Too many failed authentications from this address; retry later',
      ),
    );
  };
}
