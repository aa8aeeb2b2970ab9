import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import { StringDecoder } from 'node:string_decoder';

/**
 * One webhook POST (docs/design/webhooks.md, "Sending"): redirects are never followed (a 3xx is the receiver's
 * answer and a failure), one timeout covers the whole attempt (look-up, connect, request and response), and at most
 * 1 KB of the response is kept. The address is checked when the connection is made, on every address the name
 * resolves to, so that a name that resolved to a public address when the endpoint was saved cannot later point us at
 * a private one (DNS rebinding); an IP literal is checked before connecting, since Node does not look it up.
 */
export interface WebhookRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Whether plain http:// may be used (WEBHOOK_ALLOW_HTTP). */
  allowHttp: boolean;
  /** Whether the service may connect to this IP address (the URL policy). */
  addressAllowed(ip: string): boolean;
  /** Aborts the attempt (the service is stopping). */
  signal?: AbortSignal;
}

export interface WebhookResponse {
  /** Undefined when no response came (refused address, connection error, timeout). */
  statusCode: number | undefined;
  retryAfter: string | undefined;
  durationMs: number;
  /** At most EXCERPT_BYTES of the response body, as text. */
  excerpt: string | undefined;
  error: string | undefined;
}

export const EXCERPT_BYTES = 1024;

export class AddressNotAllowedError extends Error {
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, an address webhooks may not be sent to`);
  }
}

// Keep-alive connections: each was checked when it was made, and a reused one still goes to that checked address.
const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64 });

function checkingLookup(allowed: (ip: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((entry) => !allowed(entry.address));
      if (refused) return callback(new AddressNotAllowedError(hostname, refused.address), '', 0);
      if (addresses.length === 0) {
        const none = Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
        return callback(none, '', 0);
      }
      // Node asks for every address when it tries several families (autoSelectFamily), else for one.
      if (options.all) return (callback as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

export function postWebhook(request: WebhookRequest): Promise<WebhookResponse> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (error: string): WebhookResponse => ({
    statusCode: undefined,
    retryAfter: undefined,
    durationMs: elapsed(),
    excerpt: undefined,
    error,
  });

  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return Promise.resolve(failed('the endpoint URL cannot be read'));
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && request.allowHttp)) {
    return Promise.resolve(failed(`${url.protocol} URLs are not allowed (https only)`));
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (net.isIP(host) && !request.addressAllowed(host)) {
    return Promise.resolve(failed(`${host} is an address webhooks may not be sent to`));
  }

  return new Promise((resolve) => {
    let settled = false;
    const finish = (response: WebhookResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      resolve(response);
    };
    const secure = url.protocol === 'https:';
    const outgoing = (secure ? https : http).request(url, {
      method: 'POST',
      agent: secure ? httpsAgent : httpAgent,
      lookup: checkingLookup(request.addressAllowed),
      headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
    });
    const timer = setTimeout(
      () => outgoing.destroy(new Error(`no response within ${request.timeoutMs} ms`)),
      request.timeoutMs,
    );
    const onAbort = () => outgoing.destroy(new Error('the service is stopping'));
    request.signal?.addEventListener('abort', onAbort);
    outgoing.on('error', (error) => finish(failed(describe(error))));
    outgoing.on('response', (response) => {
      const decoder = new StringDecoder('utf8');
      let kept = 0;
      let excerpt = '';
      const answer = (): WebhookResponse => ({
        statusCode: response.statusCode,
        retryAfter: response.headers['retry-after'],
        durationMs: elapsed(),
        excerpt: excerpt + decoder.end(),
        error: undefined,
      });
      response.on('data', (chunk: Buffer) => {
        const room = EXCERPT_BYTES - kept;
        if (room > 0) {
          excerpt += decoder.write(chunk.subarray(0, room));
          kept += Math.min(room, chunk.length);
        }
        // The rest of a long answer is not read: the connection is dropped instead of kept for reuse.
        if (chunk.length > room) {
          finish(answer());
          response.destroy();
        }
      });
      response.on('end', () => finish(answer()));
      // A body cut short (the timeout, a reset) fails the attempt whatever the status said.
      response.on('error', (error) => finish({ ...answer(), error: describe(error) }));
      response.on('close', () => finish({ ...answer(), error: 'the response ended early' }));
    });
    outgoing.end(request.body);
  });
}
