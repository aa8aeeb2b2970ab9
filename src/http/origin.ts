import net from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { problem, sendProblem } from './problem.ts';
import { isLoopbackAddress } from './clientAddress.ts';

/** A DNS label or an IPv4 number; underscores too, which container and service names often carry. */
const LABEL = '[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?';
const PLAIN_HOST = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*\\.?|\\[([0-9A-Fa-f:.]+)\\])(?::(\\d{1,5}))?$`);

/** Whether a Host (or X-Forwarded-Host) value is a plain host[:port]: no user info, path, or anything else. */
export function isPlainHost(value: string): boolean {
  const match = value.length <= 261 ? PLAIN_HOST.exec(value) : null;
  if (!match) return false;
  if (match[1] !== undefined && !net.isIPv6(match[1])) return false;
  return match[2] === undefined || Number(match[2]) <= 65535;
}

/**
 * docs/portal.md, "PUBLIC_URL and links": a request whose Host is not a plain host[:port] is refused, service-wide,
 * before any route sees it. Whatever reads the host (a link, a page's origin, a log line) then reads a host, never
 * `localhost:1@evil.example`, which a URL parser takes for user info and a host of the client's choosing.
 */
export function refuseUnplainHosts(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    const given = request.headers.host;
    // request.host is X-Forwarded-Host when a trusted proxy sends one.
    const derived = request.host;
    const bad = [given, derived].find(
      (host) => typeof host === 'string' && host !== '' && !isPlainHost(host),
    );
    if (bad === undefined) return;
    return sendProblem(
      reply,
      problem(400, 'invalid_host', 'The Host header must be a host name or address, with an optional port', [
        { field: 'Host', message: 'must be a plain host[:port]' },
      ]),
    );
  });
}

/**
 * Whether a request really arrived over loopback: both ends of its connection are loopback addresses, and so is the
 * client a trusted proxy names (a proxy on the same machine connects over loopback for clients anywhere). Judged by
 * the socket, never by the Host header, which the client writes (docs/portal.md, "PUBLIC_URL and links").
 */
export function arrivedOnLoopback(request: FastifyRequest): boolean {
  const socket = request.raw.socket;
  return (
    isLoopbackAddress(socket.localAddress) &&
    isLoopbackAddress(socket.remoteAddress) &&
    isLoopbackAddress(request.ip)
  );
}

/** The host of a plain host[:port], without the port (brackets kept off an IPv6 address). */
function hostnameOf(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  return host.split(':')[0]!;
}

/**
 * The origin of every link that leaves the service (e-mails, PortalURL, sign-in links, the capture widget's Html):
 * PUBLIC_URL; without it, the loopback address the request arrived on, for development; undefined elsewhere, where
 * the service cannot know where browsers reach it (docs/portal.md, "PUBLIC_URL and links"). On loopback the Host is
 * kept only when it names loopback itself (localhost, 127.0.0.1, [::1]); any other name gives way to the socket's
 * own address, so that not even a local client can point a link at another host.
 */
export function linkOrigin(request: FastifyRequest, publicUrl: string | undefined): string | undefined {
  if (publicUrl) return publicUrl;
  if (!arrivedOnLoopback(request)) return undefined;
  const hostname = hostnameOf(request.host);
  if (hostname === 'localhost' || isLoopbackAddress(hostname)) return `${request.protocol}://${request.host}`;
  // The socket's own address is where the service itself answers, in plain HTTP.
  const socket = request.raw.socket;
  const local = socket.localAddress!;
  return `http://${net.isIPv6(local) ? `[${local}]` : local}:${socket.localPort}`;
}
