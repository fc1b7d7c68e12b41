import { isIPv4, isIPv6 } from 'node:net';

/**
 * The client a failed authentication is charged to: its IPv4 address, or the /64 network of its
 * IPv6 address (one host is usually given a whole /64, so per address would be no bound at all).
 * An IPv4-mapped IPv6 address counts as its IPv4 address.
 */
export function clientAddressKey(ip: string | undefined): string {
  if (ip === undefined || ip === '') return 'unknown';
  const address = ip.replace(/%.*$/, '').toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address)?.[1];
  if (mapped !== undefined && isIPv4(mapped)) return mapped;
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return address;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, in hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const part = (s: string) =>
    s === ''
      ? []
      : s.split(':').flatMap((g) => {
          if (!g.includes('.')) return [g];
          // An IPv4 tail: two groups.
          const [a = 0, b = 0, c = 0, d = 0] = g.split('.').map(Number);
          return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
        });
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  const zeros = Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((g) => Number.parseInt(g, 16).toString(16));
}
