import { isIPv4, isIPv6 } from 'node:net';

/**
 * A client address as per-client limits count it. One IPv6 subscriber line gets a whole /64 (and often more), so an
 * IPv6 address counts by its /64 prefix (`2001:db8:1:2::/64`): stepping through the addresses of one's own network
 * buys nothing. An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, a dual-stack socket's view of an IPv4 client) is
 * that IPv4 address. Anything else (no address, a name) is counted as given.
 */
export function clientKey(address: string): string {
  const ip = address.replace(/%.*$/, '');
  if (isIPv4(ip)) return ip;
  if (!isIPv6(ip)) return address;
  const groups = ipv6Groups(ip);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 part folded in). */
function ipv6Groups(ip: string): number[] {
  let text = ip;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const first = parse(head);
  const last = tail === undefined ? [] : parse(tail);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}

/**
 * TRUST_PROXY as Fastify's `trustProxy`. A hop count becomes "trust that many proxies in front, whatever their
 * address": Fastify itself now ignores a bare number (it cannot tell a proxy from a client who sends the header
 * himself), which left `TRUST_PROXY=1` silently counting every client as the proxy. A count is right only when clients
 * cannot reach the service but through the proxies; otherwise name the proxies' addresses (README).
 */
export function trustProxyOption(value: boolean | number | string): boolean | string | ((address: string, hop: number) => boolean) {
  if (typeof value !== 'number') return value;
  return (_address, hop) => hop < value;
}
