import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { classifyAddress, isAllowedAddress } from './classifyAddress.ts';

/** Resolves a host name to its addresses (dns.lookup's answer by default; tests answer their own). */
export type ResolveHost = (
  hostname: string,
  opts: { family: 0 | 4 | 6; hints?: number },
) => Promise<LookupAddress[]>;

const resolveWithSystem: ResolveHost = (hostname, opts) => dnsLookup(hostname, { ...opts, all: true });

/** A connection refused in the lookup: the name resolved to an address webhooks may not reach. */
export class AddressRefusedError extends Error {
  override readonly name = 'AddressRefusedError';
  readonly code = 'ERR_WEBHOOK_ADDRESS_REFUSED';
  /** For the operator's log only: what the client is told never names the address. */
  readonly address: string;
  constructor(hostname: string, address: string) {
    super(`${hostname} resolves to ${address} (${classifyAddress(address)}), which webhooks may not reach`);
    this.address = address;
  }
}

const familyOf = (f: unknown): 0 | 4 | 6 => (f === 4 || f === 'IPv4' ? 4 : f === 6 || f === 'IPv6' ? 6 : 0);

/**
 * The socket's `lookup`: resolves the name when the connection is made and hands the socket only
 * addresses that passed the check, so the address checked is the address connected to (a resolver
 * that answers a public address first and a private one later gets nowhere). A name with any
 * refused address is refused as a whole.
 */
export function createWebhookLookup(opts: { allowPrivate: boolean; resolve?: ResolveHost }): LookupFunction {
  const resolve = opts.resolve ?? resolveWithSystem;
  return (hostname, options, callback) => {
    const query = { family: familyOf(options.family), ...(options.hints ? { hints: options.hints } : {}) };
    resolve(hostname, query).then(
      (addresses) => {
        const refused = addresses.find((a) => !isAllowedAddress(a.address, opts));
        if (refused) return callback(new AddressRefusedError(hostname, refused.address), '');
        const first = addresses[0];
        if (!first)
          return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
        if (options.all) return callback(null, addresses);
        callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}
