import crypto from 'node:crypto';
import type { FastifyReply } from 'fastify';

/**
 * A script merchants' pages load from the service and pin by its subresource-integrity hash (docs/hosted-pages.md):
 * served at a versioned path that never changes, so that the hash they copied stays right. A new script is a new
 * path (`/widget/v2/…` after `/widget/v1/…`), never new bytes at an old one.
 */
export interface PinnedScript {
  /** The versioned path, e.g. `/widget/v2/emandate.js`. */
  path: string;
  source: string;
  /** `sha384-…` of the source's UTF-8 bytes, as an `integrity` attribute takes it. */
  integrity: string;
}

export function pinnedScript(path: string, source: string): PinnedScript {
  const integrity = `sha384-${crypto.createHash('sha384').update(source, 'utf8').digest('base64')}`;
  return { path, source, integrity };
}

/** A year, as the path's bytes never change. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Sends a script to pages of any origin: `cacheControl` IMMUTABLE at its pinned path, shorter at an older path
 * whose pages did not pin it. CORS allows any origin, so that `crossorigin="anonymous"` (which an integrity check
 * needs) loads it.
 */
export function sendScript(reply: FastifyReply, source: string, cacheControl: string): FastifyReply {
  return reply
    .type('text/javascript; charset=utf-8')
    .header('cache-control', cacheControl)
    .header('access-control-allow-origin', '*')
    .header('cross-origin-resource-policy', 'cross-origin')
    .header('x-content-type-options', 'nosniff')
    .send(source);
}

/** The tag a merchant's page puts in: the script from `origin`, with its integrity hash. */
export function scriptTag(origin: string, script: PinnedScript): string {
  return (
    `<script src="${origin}${script.path}" integrity="${script.integrity}" ` +
    `crossorigin="anonymous"></script>`
  );
}
