/**
 * The AuthDomain of a capture session, normalised to the one origin allowed to frame the widget
 * (docs/design/hosted-pages.md, "Capture widget"): it becomes the frame's `frame-ancestors` source and the
 * exact `targetOrigin` of its messages, so anything that could widen it or inject into a header or markup is
 * refused rather than cleaned.
 */

export const AUTH_DOMAIN_MAX = 255;

/** Letters, digits and the punctuation of `scheme://host:port` (brackets for IPv6), and nothing else. */
const ALLOWED = /^[A-Za-z0-9.:/[\]-]+$/;

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]']);

function isLoopback(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

export type AuthDomainRead = { origin: string } | { refused: string };

/**
 * `https://shop.example.com`, `shop.example.com` (https assumed) or `http://localhost:3000` (plain http only on a
 * loopback host, for development) become `scheme://host[:port]`, lower case, the port kept unless it is the
 * scheme's default. Refused: wildcards, paths, queries, user names, quotes, whitespace, `;`, `,` and any
 * character outside a host name.
 */
export function normaliseAuthDomain(input: string): AuthDomainRead {
  if (input.length === 0) return { refused: 'must be an origin such as https://shop.example.com' };
  if (input.length > AUTH_DOMAIN_MAX) return { refused: `must be at most ${AUTH_DOMAIN_MAX} characters` };
  if (input.includes('*')) return { refused: 'must name one origin: wildcards are not allowed' };
  if (!ALLOWED.test(input)) {
    return {
      refused:
        'must be an origin (scheme://host[:port]) without spaces, quotes, ";", "," or other punctuation; ' +
        'write an international name in its punycode form',
    };
  }
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `https://${input}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return { refused: 'is not a valid origin (scheme://host[:port])' };
  }
  const afterHost = withScheme.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
  if (afterHost !== '' && afterHost !== '/') {
    return { refused: 'must be an origin without a path (scheme://host[:port])' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { refused: 'must use https (http only on localhost, for development)' };
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    return { refused: 'must use https (http only on localhost, for development)' };
  }
  if (url.hostname === '' || url.hostname.startsWith('.') || url.hostname.endsWith('.')) {
    return { refused: 'must name a host' };
  }
  return { origin: `${url.protocol}//${url.host}` };
}
