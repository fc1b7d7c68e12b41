import { isIP } from 'node:net';

/**
 * What an IP address is, for deciding whether a webhook may connect to it. `public` is the only
 * class always allowed; `private`, `loopback` and `link-local` are allowed when the operator allows
 * private addresses (ALLOW_PRIVATE_WEBHOOK_URLS); every other class is always refused.
 */
export type AddressClass =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link-local'
  | 'unspecified'
  | 'broadcast'
  | 'multicast'
  | 'reserved'
  | 'cgnat'
  | 'documentation'
  | 'benchmark'
  | 'teredo'
  | 'not-an-address';

const WIDENED_BY_ALLOW_PRIVATE: ReadonlySet<AddressClass> = new Set(['private', 'loopback', 'link-local']);

// First match wins: the broadcast address sits inside the reserved 240.0.0.0/4.
const IPV4_RANGES: readonly (readonly [AddressClass, string, number])[] = [
  ['unspecified', '0.0.0.0', 8],
  ['private', '10.0.0.0', 8],
  ['cgnat', '100.64.0.0', 10],
  ['loopback', '127.0.0.0', 8],
  ['link-local', '169.254.0.0', 16],
  ['private', '172.16.0.0', 12],
  ['documentation', '192.0.2.0', 24],
  ['reserved', '192.0.0.0', 24],
  ['reserved', '192.88.99.0', 24],
  ['private', '192.168.0.0', 16],
  ['benchmark', '198.18.0.0', 15],
  ['documentation', '198.51.100.0', 24],
  ['documentation', '203.0.113.0', 24],
  ['multicast', '224.0.0.0', 4],
  ['broadcast', '255.255.255.255', 32],
  ['reserved', '240.0.0.0', 4],
];

const ipv4Number = (ip: string) => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
const ipv4Prefixes = IPV4_RANGES.map(([cls, net, bits]) => ({ cls, net: ipv4Number(net), bits }));

function classifyIpv4(n: number): AddressClass {
  for (const { cls, net, bits } of ipv4Prefixes) {
    const shift = 32 - bits;
    if (Math.floor(n / 2 ** shift) === Math.floor(net / 2 ** shift)) return cls;
  }
  return 'public';
}

/** The 16 bytes of a valid IPv6 address (a zone id is dropped; a trailing dotted quad is read). */
function ipv6Bytes(ip: string): number[] {
  const zone = ip.indexOf('%');
  const text = zone < 0 ? ip : ip.slice(0, zone);
  const groups = (part: string) =>
    part === ''
      ? []
      : part.split(':').flatMap((g) => {
          if (!g.includes('.')) return [Number.parseInt(g, 16)];
          const n = ipv4Number(g);
          return [Math.floor(n / 65_536), n % 65_536];
        });
  const [head = '', tail] = text.split('::');
  const before = groups(head);
  const after = tail === undefined ? [] : groups(tail);
  const all = [...before, ...Array(8 - before.length - after.length).fill(0), ...after];
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

const prefix = (cidr: string) => {
  const [net = '', bits = ''] = cidr.split('/');
  return { bytes: ipv6Bytes(net), bits: Number(bits) };
};

function inPrefix(bytes: readonly number[], p: { bytes: readonly number[]; bits: number }): boolean {
  for (let bit = 0; bit < p.bits; bit += 8) {
    const mask = (0xff << (8 - Math.min(8, p.bits - bit))) & 0xff;
    if (((bytes[bit / 8] ?? 0) & mask) !== ((p.bytes[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

const v4At = (bytes: readonly number[], at: number) =>
  bytes.slice(at, at + 4).reduce((n, b) => n * 256 + b, 0);

const MAPPED = prefix('::ffff:0:0/96');
const COMPATIBLE = prefix('::/96');
const SIIT = prefix('::ffff:0:0:0/96');
const NAT64 = prefix('64:ff9b::/96');
const NAT64_LOCAL = prefix('64:ff9b:1::/48');
const SIX_TO_FOUR = prefix('2002::/16');
const TEREDO = prefix('2001::/32');
const GLOBAL_UNICAST = prefix('2000::/3');

const IPV6_RANGES: readonly (readonly [AddressClass, ReturnType<typeof prefix>])[] = [
  ['documentation', prefix('2001:db8::/32')],
  ['documentation', prefix('3fff::/20')],
  ['benchmark', prefix('2001:2::/48')],
  ['private', prefix('fc00::/7')],
  ['link-local', prefix('fe80::/10')],
  ['multicast', prefix('ff00::/8')],
];

function classifyIpv6(bytes: readonly number[]): AddressClass {
  if (bytes.every((b) => b === 0)) return 'unspecified';
  if (bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1) return 'loopback';
  // IPv4 inside IPv6: what decides is the IPv4 address the packets end up at.
  if (
    inPrefix(bytes, MAPPED) ||
    inPrefix(bytes, COMPATIBLE) ||
    inPrefix(bytes, SIIT) ||
    inPrefix(bytes, NAT64)
  )
    return classifyIpv4(v4At(bytes, 12));
  // Local-use NAT64 translates into the network that runs it (IANA: not globally reachable); its
  // IPv4 address is read where a /96 prefix puts it, and refused even when that one is public.
  if (inPrefix(bytes, NAT64_LOCAL)) {
    const cls = classifyIpv4(v4At(bytes, 12));
    return cls === 'public' ? 'reserved' : cls;
  }
  if (inPrefix(bytes, SIX_TO_FOUR)) return classifyIpv4(v4At(bytes, 2));
  // Teredo's embedded server and client addresses are obfuscated and its relays are anyone's.
  if (inPrefix(bytes, TEREDO)) return 'teredo';
  for (const [cls, p] of IPV6_RANGES) if (inPrefix(bytes, p)) return cls;
  return inPrefix(bytes, GLOBAL_UNICAST) ? 'public' : 'reserved';
}

/** The class of an IPv4 or IPv6 address (embedded IPv4 forms are classed by their IPv4 address). */
export function classifyAddress(ip: string): AddressClass {
  switch (isIP(ip)) {
    case 4:
      return classifyIpv4(ipv4Number(ip));
    case 6:
      return classifyIpv6(ipv6Bytes(ip));
    default:
      return 'not-an-address';
  }
}

/** Whether a webhook may connect to this address under the operator's setting. */
export function isAllowedAddress(ip: string, opts: { allowPrivate: boolean }): boolean {
  const cls = classifyAddress(ip);
  return cls === 'public' || (opts.allowPrivate && WIDENED_BY_ALLOW_PRIVATE.has(cls));
}
