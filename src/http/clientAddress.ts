import net from 'node:net';

/** The eight 16-bit groups of an IPv6 address, or undefined when `ip` is not one. */
function ipv6Groups(ip: string): number[] | undefined {
  if (net.isIPv6(ip) === false) return undefined;
  const bare = ip.split('%')[0]!;
  let text = bare;
  // An IPv4 tail (::ffff:192.0.2.1) is two groups written in dotted form.
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -tail[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  const zeros = rest === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<number>(zeros).fill(0), ...right];
}

/** An IPv4 address an IPv6 one carries as IPv4-mapped (::ffff:a.b.c.d), or undefined. */
function mappedIpv4(groups: number[]): string | undefined {
  if (groups.slice(0, 5).some((g) => g !== 0) || groups[5] !== 0xffff) return undefined;
  const [hi, lo] = [groups[6]!, groups[7]!];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/**
 * The key per-address limits count a client under (docs/operations.md, "Files and network limits"): an IPv4 address as it is,
 * an IPv6 address by its /64. One subscriber is routinely handed a whole /64 (RFC 6177), so a client that counted
 * per address could take a fresh one for every request and never reach a limit.
 */
export function addressKey(ip: string): string {
  const groups = ipv6Groups(ip);
  if (!groups) return ip;
  const v4 = mappedIpv4(groups);
  if (v4) return v4;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** Whether `ip` is a loopback address: 127.0.0.0/8, ::1, or 127.0.0.0/8 mapped into IPv6. */
export function isLoopbackAddress(ip: string | undefined): boolean {
  if (ip === undefined) return false;
  if (net.isIPv4(ip)) return ip.startsWith('127.');
  const groups = ipv6Groups(ip);
  if (!groups) return false;
  const v4 = mappedIpv4(groups);
  if (v4) return v4.startsWith('127.');
  return groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1;
}
