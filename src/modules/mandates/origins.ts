/**
 * Who may frame the embedded signing page, and where the signee may be sent back to (docs/design/hosted-pages.md,
 * "Capture widget" rules, which the eMandate pages share): one origin, https unless it is loopback in development,
 * the port kept; wildcards, paths, quotes, whitespace, `;` and `,` refused, since they could inject directives.
 */

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The origin `text` names, normalised, or why it is not one. */
export function allowedFrameOrigin(text: string): string | { problem: string } {
  if (/[\s;,'"*]/.test(text))
    return { problem: 'must be one origin, without wildcards, quotes, spaces, ; or ,' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: 'must be an origin such as https://shop.example' };
  }
  if (
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    (url.pathname !== '/' && url.pathname !== '')
  ) {
    return { problem: 'must be an origin only (scheme, host and port), without a path' };
  }
  if (url.protocol === 'https:') return url.origin;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return url.origin;
  return { problem: 'must use https (http only on localhost)' };
}

/** Why a ReturnUrl cannot be used, or undefined: an absolute https URL (http only on localhost). */
export function returnUrlProblem(text: string): string | undefined {
  if (text.length > 2000) return 'must be at most 2000 characters';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return undefined;
  return 'must use https (http only on localhost)';
}
