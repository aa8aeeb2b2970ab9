import type { FastifyReply, FastifyRequest } from 'fastify';

/** Time limits on a connection, so that a slow or idle client cannot hold a socket for ever. */
export interface ConnectionTimeouts {
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/** Fastify's server options for the timeouts (Fastify itself sets only the request and keep-alive ones). */
export function serverTimeouts(timeouts: ConnectionTimeouts) {
  return {
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    http: {
      requestTimeout: timeouts.requestTimeoutMs,
      headersTimeout: timeouts.headersTimeoutMs,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      // Node looks for expired requests this often (30 s by default, longer than a short timeout).
      connectionsCheckingInterval: Math.min(1000, timeouts.headersTimeoutMs),
    },
  };
}

/**
 * The API reference page loads only its own scripts and styles: nothing from elsewhere, nothing inline but style
 * attributes (which Swagger UI sets), and it cannot be framed (clickjacking).
 */
const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Every answer: `nosniff`. API answers (`/v1`) hold account data and are never cached by a browser or proxy.
 * The reference page (`/docs`) gets a content security policy and frame protection.
 */
export function setSecurityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-content-type-options', 'nosniff');
  const path = request.url;
  if (path === '/v1' || path.startsWith('/v1/') || path.startsWith('/v1?')) {
    reply.header('cache-control', 'no-store');
  } else if (path === '/docs' || path.startsWith('/docs/') || path.startsWith('/docs?')) {
    reply.header('content-security-policy', DOCS_CSP);
    reply.header('x-frame-options', 'DENY');
  }
}
