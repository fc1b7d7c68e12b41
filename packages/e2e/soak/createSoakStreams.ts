import { erc20TransferEventAbi } from '@tributary/evm';

/** The mix of a soak run's streams, by kind. */
export interface SoakStreamMix {
  /** Transfer logs of every contract: every log of every block, the largest webhooks. */
  allAddresses: number;
  /** Transfer logs of the emitter contract: every log too, found by address. */
  contract: number;
  /** The driver's transactions (includeNativeTxs): the follower then reads every block's transactions. */
  nativeTxs: number;
  /** 1 to 5 recipients each: one small webhook per block, the bulk of the count. */
  perAddress: number;
}

/** The mix for `count` streams: 3 % allAddresses, 2 % contract, 5 % native transactions (at least one each). */
export function soakStreamMix(count: number): SoakStreamMix {
  const allAddresses = Math.max(1, Math.round(count * 0.03));
  const contract = Math.max(1, Math.round(count * 0.02));
  const nativeTxs = Math.max(1, Math.round(count * 0.05));
  return {
    allAddresses,
    contract,
    nativeTxs,
    perAddress: Math.max(0, count - allAddresses - contract - nativeTxs),
  };
}

/**
 * Creates the soak's streams through the gateway, as users do (PUT, then the addresses), spread
 * over the receiver's origins. Each one matches every block the driver mines: per-address streams
 * watch recipients of every block's transfers.
 */
export async function createSoakStreams(o: {
  gatewayUrl: string;
  apiKey: string;
  urls: readonly string[];
  mix: SoakStreamMix;
  emitter: string;
  driverAccount: string;
  /** The recipients every block's transfers go to. */
  recipients: readonly string[];
}): Promise<number> {
  const call = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${o.gatewayUrl}${path}`, {
      method,
      headers: { 'x-api-key': o.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as { id: string };
  };
  const transfers = {
    includeContractLogs: true,
    topic0: ['Transfer(address,address,uint256)'],
    abi: [erc20TransferEventAbi],
  };
  const specs: { kind: string; extra: Record<string, unknown>; addresses: string[] }[] = [
    ...Array.from({ length: o.mix.allAddresses }, () => ({
      kind: 'all',
      extra: { ...transfers, allAddresses: true },
      addresses: [],
    })),
    ...Array.from({ length: o.mix.contract }, () => ({
      kind: 'contract',
      extra: transfers,
      addresses: [o.emitter],
    })),
    ...Array.from({ length: o.mix.nativeTxs }, () => ({
      kind: 'native',
      extra: { includeNativeTxs: true },
      addresses: [o.driverAccount],
    })),
    ...Array.from({ length: o.mix.perAddress }, (_, i) => ({
      kind: 'address',
      extra: transfers,
      addresses: Array.from(
        { length: 1 + (i % 5) },
        (_, j) => o.recipients[(i * 5 + j) % o.recipients.length]!,
      ),
    })),
  ];
  for (const [i, spec] of specs.entries()) {
    const tag = `soak-${spec.kind}-${i}`;
    const created = await call('PUT', '/streams/evm', {
      webhookUrl: `${o.urls[i % o.urls.length]}/${tag}`,
      description: tag,
      tag,
      chainIds: ['0x7a69'],
      ...spec.extra,
    });
    if (spec.addresses.length > 0)
      await call('POST', `/streams/evm/${created.id}/address`, { address: spec.addresses });
  }
  return specs.length;
}
