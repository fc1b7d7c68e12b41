import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const refused = new BlockList();
// IPv4: this network, private, carrier-grade NAT, loopback, link-local, benchmarking, multicast and reserved.
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  refused.addSubnet(net, prefix, 'ipv4');
}
// IPv6: unspecified, loopback, unique local, link-local, multicast; IPv4-mapped addresses are checked as IPv4.
refused.addAddress('::', 'ipv6');
refused.addAddress('::1', 'ipv6');
refused.addSubnet('fc00::', 7, 'ipv6');
refused.addSubnet('fe80::', 10, 'ipv6');
refused.addSubnet('ff00::', 8, 'ipv6');

export function isPrivateAddress(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1]) return refused.check(mapped[1], 'ipv4');
  const family = isIP(ip);
  if (family === 0) return true;
  return refused.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * Refuses webhook URLs that are not http(s) or that resolve to private, loopback or link-local
 * addresses (no SSRF into the operator's network) unless the operator allows them.
 */
export async function checkWebhookUrl(raw: string, opts: { allowPrivate: boolean }): Promise<UrlCheck> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, reason: 'not an http(s) URL' };
  if (opts.allowPrivate) return { ok: true, url };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch (err) {
    return { ok: false, reason: `cannot resolve ${host}: ${(err as Error).message}` };
  }
  const bad = addresses.find(isPrivateAddress);
  if (bad !== undefined) return { ok: false, reason: `${host} resolves to a private address (${bad})` };
  return { ok: true, url };
}
