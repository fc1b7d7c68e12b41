import { isIP } from 'node:net';
import { isAllowedAddress } from './classifyAddress.ts';
import type { RefusalReason, WebhookPolicy } from './webhookPolicy.ts';

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: RefusalReason };

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * What can be told of a webhook URL without resolving it: scheme, port and, for an address
 * literal, the address (a literal is connected to as it is, without a lookup). A host name's
 * addresses are checked where the connection is made (createWebhookLookup), not here: a check of
 * a name ahead of the connection is undone by a resolver that answers differently the second time.
 */
export function checkWebhookUrl(raw: string, policy: WebhookPolicy): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a valid URL' };
  }
  const defaultPort = DEFAULT_PORTS[url.protocol];
  if (defaultPort === undefined) return { ok: false, reason: 'not an http(s) URL' };
  if (policy.requireHttps && url.protocol !== 'https:') return { ok: false, reason: 'https is required' };
  const port = url.port === '' ? defaultPort : Number(url.port);
  if (policy.allowedPorts.length > 0 && !policy.allowedPorts.includes(port))
    return { ok: false, reason: 'the port is not allowed' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !isAllowedAddress(host, policy))
    return { ok: false, reason: 'the address is not allowed' };
  return { ok: true, url };
}
