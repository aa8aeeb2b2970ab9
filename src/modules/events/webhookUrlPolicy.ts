import net from 'node:net';

import type { WebhookRules, WebhookUrlPolicy } from '../../context.ts';

/**
 * Where webhooks may be sent (docs/design/webhooks.md, "Endpoint addresses"): `https` only unless allowed,
 * and never to the service's own networks (private, loopback, link-local, ...) unless an operator lists those
 * addresses. The URL's literal host is checked when an endpoint is saved; the delivery's HTTP client checks every
 * address a name resolves to when it connects (`addressAllowed`), so a name rebound to an internal address after
 * the check is refused as well. Each service has its own (ServiceContext.webhookRules).
 */
export type { WebhookUrlPolicy } from '../../context.ts';

export const WEBHOOK_URL_MAX_LENGTH = 2048;

/**
 * NOTE: BlockList matches IPv4-mapped IPv6 addresses (`::ffff:10.0.0.1`) against the IPv4 rules, so the mapped
 * forms need no rules of their own.
 */
const REFUSED_RANGES: readonly [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'], // unspecified, "this network"
  ['10.0.0.0', 8, 'ipv4'], // private
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local (cloud metadata services live here)
  ['168.63.129.16', 32, 'ipv4'], // Azure's wire server: metadata, health probes and DNS of every VM there
  ['172.16.0.0', 12, 'ipv4'], // private
  ['192.168.0.0', 16, 'ipv4'], // private
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.0.2.0', 24, 'ipv4'], // documentation
  ['192.88.99.0', 24, 'ipv4'], // 6to4 relay anycast (deprecated, RFC 7526): a tunnel, never a receiver
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['198.51.100.0', 24, 'ipv4'], // documentation
  ['203.0.113.0', 24, 'ipv4'], // documentation
  ['224.0.0.0', 4, 'ipv4'], // multicast: never a receiver
  ['240.0.0.0', 4, 'ipv4'], // reserved, and the broadcast address
  ['::', 96, 'ipv6'], // unspecified, loopback, and the deprecated IPv4-compatible form
  ['::ffff:0:0:0', 96, 'ipv6'], // IPv4-translated (SIIT)
  // Local-use NAT64 (RFC 8215): an operator's own translator, whose prefix may be /48 to /96 long, so where the IPv4
  // address sits inside cannot be known from outside: the whole /48 is internal.
  ['64:ff9b:1::', 48, 'ipv6'],
  ['100::', 64, 'ipv6'], // discard
  ['2001::', 32, 'ipv6'], // Teredo: a tunnel to an address it hides
  ['2001:db8::', 32, 'ipv6'], // documentation
  ['fc00::', 7, 'ipv6'], // unique local (private)
  ['fe80::', 10, 'ipv6'], // link-local
  ['fec0::', 10, 'ipv6'], // site-local (deprecated, still routed internally)
  ['ff00::', 8, 'ipv6'], // multicast
];

const refused = new net.BlockList();
for (const [address, prefix, family] of REFUSED_RANGES) refused.addSubnet(address, prefix, family);

function familyOf(ip: string): 'ipv4' | 'ipv6' | undefined {
  const version = net.isIP(ip);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : undefined;
}

/**
 * The policy from the configuration's values: `allowedPrivateHosts` is WEBHOOK_ALLOWED_PRIVATE_HOSTS as written
 * (comma-separated) or already split. Throws an Error naming the variable on an entry that is neither an IP nor
 * a CIDR.
 */
export function parseWebhookUrlPolicy(values: {
  allowHttp?: boolean;
  allowedPrivateHosts?: string | readonly string[];
}): WebhookUrlPolicy {
  const raw = values.allowedPrivateHosts ?? [];
  const entries = (typeof raw === 'string' ? raw.split(',') : raw)
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const allowedPrivate = new net.BlockList();
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/');
    const family = familyOf(address);
    const widest = family === 'ipv4' ? 32 : 128;
    const bits = prefix === undefined ? widest : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    if (!family || extra !== undefined || !(bits <= widest)) {
      throw new Error(
        `WEBHOOK_ALLOWED_PRIVATE_HOSTS: "${entry}" is not an IP address or CIDR (e.g. 10.0.0.0/8)`,
      );
    }
    allowedPrivate.addSubnet(address, bits, family);
  }
  return { allowHttp: values.allowHttp === true, allowedPrivateHosts: entries, allowedPrivate };
}

const DEFAULT_POLICY = parseWebhookUrlPolicy({});

/**
 * The most endpoints one account may have, enabled or not (docs/webhooks.md): every event is one request to each
 * endpoint subscribed to it, so without a cap one account's change could fan out into hundreds of requests. 16 is
 * Stripe's cap; a service sets its own from WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT.
 */
export const DEFAULT_MAX_ENDPOINTS_PER_ACCOUNT = 16;

const DEFAULT_RULES: WebhookRules = {
  urlPolicy: DEFAULT_POLICY,
  maxEndpointsPerAccount: DEFAULT_MAX_ENDPOINTS_PER_ACCOUNT,
};

/**
 * A service's webhook settings, from its configuration (made once when it starts). Throws an Error naming the
 * variable of an entry of `allowedPrivateHosts` that is neither an IP nor a CIDR.
 */
export function webhookRules(values: {
  allowHttp?: boolean;
  allowedPrivateHosts?: string | readonly string[];
  maxEndpointsPerAccount?: number;
}): WebhookRules {
  return {
    urlPolicy: parseWebhookUrlPolicy(values),
    maxEndpointsPerAccount: values.maxEndpointsPerAccount ?? DEFAULT_MAX_ENDPOINTS_PER_ACCOUNT,
  };
}

/**
 * The settings a context (or a worker's deps) carries: its service's, else the defaults (https only, no internal
 * address, 16 endpoints), as for a command, which starts no service.
 */
export function webhookRulesOf(holder: { webhookRules?: WebhookRules }): WebhookRules {
  return holder.webhookRules ?? DEFAULT_RULES;
}

/** Whether a delivery may connect to this address; false for anything that is not an IP address. */
export function addressAllowed(ip: string, policy: WebhookUrlPolicy = DEFAULT_POLICY): boolean {
  const family = familyOf(ip);
  if (!family) return false;
  if (refused.check(ip, family) && !policy.allowedPrivate.check(ip, family)) return false;
  // A NAT64 or 6to4 address reaches the IPv4 address inside it, which must pass too.
  const inner = family === 'ipv6' ? embeddedIPv4(ip) : undefined;
  return inner === undefined || policy.allowedPrivate.check(ip, family) || addressAllowed(inner, policy);
}

/** The 8 groups of an IPv6 address, the `::` expanded and a trailing dotted IPv4 read as two groups. */
function ipv6Groups(ip: string): number[] {
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  let text = ip;
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number);
    text = `${ip.slice(0, dotted.index)}${((a! << 8) | b!).toString(16)}:${((c! << 8) | d!).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The well-known NAT64 prefix, always /96 (RFC 6052); the local-use one is refused whole (REFUSED_RANGES). */
const nat64 = new net.BlockList();
nat64.addSubnet('64:ff9b::', 96, 'ipv6');
const sixToFour = new net.BlockList();
sixToFour.addSubnet('2002::', 16, 'ipv6');

function embeddedIPv4(ip: string): string | undefined {
  const groups = ipv6Groups(ip);
  const quad = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  if (nat64.check(ip, 'ipv6')) return quad(groups[6]!, groups[7]!);
  if (sixToFour.check(ip, 'ipv6')) return quad(groups[1]!, groups[2]!);
  return undefined;
}

/** RFC 6761: `localhost` and every name under it are the loopback interface, whatever DNS says. */
function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * What is wrong with a webhook URL under the policy, as a message for the `Url` field; undefined when it may be
 * saved. A host name is judged by its text alone: where it points is checked at connect time.
 */
export function webhookUrlProblem(
  url: string,
  policy: WebhookUrlPolicy = DEFAULT_POLICY,
): string | undefined {
  if (url.length > WEBHOOK_URL_MAX_LENGTH) return `must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL (https://…)';
  }
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && policy.allowHttp)) {
    // The operator's switch is named, so that a developer with a local http receiver knows what to set.
    return policy.allowHttp
      ? 'must be an http or https URL'
      : 'must be an https URL (http is allowed only when the service runs with WEBHOOK_ALLOW_HTTP=true)';
  }
  if (parsed.username !== '' || parsed.password !== '') return 'must not carry credentials (user:password@)';
  // The URL parser has already normalised the host: 0x7f.1 and 2130706433 both read 127.0.0.1.
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') return 'must name a host';
  if (isLocalhostName(host)) {
    const loopbackAllowed = addressAllowed('127.0.0.1', policy) || addressAllowed('::1', policy);
    return loopbackAllowed ? undefined : 'must not point at localhost';
  }
  if (familyOf(host) && !addressAllowed(host, policy)) {
    return 'must not point at a private, loopback, link-local or reserved address';
  }
  return undefined;
}
