/**
 * The service's one icon, for the pages it serves to people (docs/hosted-pages.md, "Favicon"; docs/portal.md): the
 * customer portal, the capture frame and the eMandate pages link it from their heads, and their CSPs allow images
 * from 'self'. A browser that asks for /favicon.ico by habit gets the same picture, so no page logs a failed request.
 */

import type { FastifyInstance } from 'fastify';

export const FAVICON_PATH = '/favicon.svg';

/** A neutral mark (a coin on a rounded square), not a brand: the portal shows the seller's logo beside it. */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
  '<rect width="32" height="32" rx="7" fill="#1d4f91"/>' +
  '<circle cx="16" cy="16" r="9" fill="none" stroke="#fff" stroke-width="3"/>' +
  '<path d="M16 11v10" stroke="#fff" stroke-width="3" stroke-linecap="round"/>' +
  '</svg>\n';

/** The tag each page puts in its head. */
export const FAVICON_LINK = `<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">`;

export function registerFavicon(app: FastifyInstance): void {
  for (const path of [FAVICON_PATH, '/favicon.ico'])
    app.get(path, { schema: { hide: true } }, async (_request, reply) =>
      reply
        .type('image/svg+xml')
        // A day: the picture changes with a release, if ever.
        .header('cache-control', 'public, max-age=86400')
        .send(FAVICON_SVG),
    );
}
