import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/*
 * Which addresses the server may send a request to on someone else's say-so (an image address in a template):
 * public unicast only. Loopback, private, link-local (169.254.169.254, cloud metadata), carrier-grade NAT,
 * documentation, benchmarking, multicast and reserved ranges are refused, in IPv4 and IPv6 (IPv4-mapped, NAT64 and
 * 6to4 addresses as the IPv4 address they carry).
 */

const V4: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
const V6: [string, number][] = [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];

const refused = new BlockList();
for (const [net, prefix] of V4) refused.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of V6) refused.addSubnet(net, prefix, 'ipv6');
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** The IPv4 address an IPv6 one carries (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002:AABB:CCDD::/48`). */
function embeddedV4(address: string): string | null {
  const groups = expand(address);
  if (!groups) return null;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zeros(0, 5) && (groups[5] === 0xffff || groups[5] === 0)) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return v4(groups[1]!, groups[2]!);
  return null;
}

/** An IPv6 address as its eight 16-bit groups (a trailing dotted IPv4 part read as two). */
function expand(address: string): number[] | null {
  let text = address.toLowerCase();
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[2]!.split('.').map(Number) as [number, number, number, number];
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const groups = tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

export interface AddressPolicy {
  /** Tests only (IMAGE_CHECK_ALLOW_LOOPBACK): 127.0.0.0/8 and ::1 pass, every other refused range stays refused. */
  readonly allowLoopback: boolean;
}

/** Whether a literal IP address may be connected to. */
export function isPublicAddress(address: string, policy: AddressPolicy): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (policy.allowLoopback && loopback.check(address, type)) return true;
  if (refused.check(address, type)) return false;
  if (family === 6) {
    const inner = embeddedV4(address);
    if (inner !== null) return isPublicAddress(inner, policy);
  }
  return true;
}

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

export class NonPublicAddressError extends Error {}

/**
 * Resolves a host name (or takes an IP literal, brackets allowed) and answers the address to connect to, after
 * checking *every* address the name has: one private address among public ones is refused too, so that a name
 * cannot be made to point elsewhere between this check and the connection (the caller connects to the answer).
 */
export async function resolvePublic(host: string, policy: AddressPolicy): Promise<ResolvedAddress> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const literal = isIP(bare);
  const found = literal ? [{ address: bare, family: literal }] : await lookup(bare, { all: true, verbatim: true });
  if (found.length === 0 || !found.every((a) => isPublicAddress(a.address, policy))) {
    throw new NonPublicAddressError('not a public address');
  }
  return { address: found[0]!.address, family: found[0]!.family === 6 ? 6 : 4 };
}
