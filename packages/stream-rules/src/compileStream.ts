import type { BlockContents, StreamStatus } from '@tributary/schema';
import { type CompiledFilter, compileFilter } from './evaluateFilter.ts';
import { type AbiEvent, abiEvents, topic0OfSignature } from './eventSignature.ts';
import type { StreamConfig } from '@tributary/schema';
import { streamReads } from './streamReads.ts';
import { type CompiledTrigger, compileTriggers } from './triggers.ts';

/** A stream as the matcher holds it in memory: config compiled once, addresses in a Set. */
export interface CompiledStream {
  id: string;
  accountId: string;
  status: StreamStatus;
  /** Chain id -> the last block before the stream's first; a chain without an entry delivers every block. */
  startBlocks: Map<number, number>;
  chainIds: Set<number>;
  config: StreamConfig;
  addresses: Set<string>;
  /** topic0 selectors to match; empty = any topic0. */
  topic0: Set<string>;
  events: Map<string, AbiEvent>;
  /** Compiled advancedOptions filters by topic0 selector. */
  filters: Map<string, CompiledFilter>;
  /** topic0 selectors whose advancedOptions entry has includeNativeTxs: the txs of their matched logs are sent. */
  nativeTxsOfTopics: Set<string>;
  triggers: CompiledTrigger[];
  /** What of a block beyond its logs the stream reads (streamReads): a block lacking it is completed first. */
  reads: BlockContents;
}

export function compileStream(row: {
  id: string;
  accountId: string;
  status: StreamStatus;
  startBlocks: Record<string, number>;
  config: StreamConfig;
  addresses: Iterable<string>;
}): CompiledStream {
  const events = new Map(abiEvents(row.config.abi ?? []).map((e) => [e.selector as string, e]));
  const topic0 = new Set<string>();
  for (const sig of row.config.topic0 ?? []) {
    const s = topic0OfSignature(sig);
    if (s) topic0.add(s);
  }
  const filters = new Map<string, CompiledFilter>();
  const nativeTxsOfTopics = new Set<string>();
  for (const opt of row.config.advancedOptions ?? []) {
    const s = topic0OfSignature(opt.topic0);
    if (s && opt.filter) filters.set(s, compileFilter(opt.filter));
    if (s && opt.includeNativeTxs) nativeTxsOfTopics.add(s);
  }
  return {
    id: row.id,
    accountId: row.accountId,
    status: row.status,
    startBlocks: new Map(
      Object.entries(row.startBlocks).map(([chain, block]) => [Number(chain), Number(block)]),
    ),
    chainIds: new Set(row.config.chainIds.map((c) => Number.parseInt(c, 16))),
    config: row.config,
    addresses: new Set([...row.addresses].map((a) => a.toLowerCase())),
    topic0,
    events,
    filters,
    nativeTxsOfTopics,
    triggers: compileTriggers(row.config),
    reads: streamReads(row.config),
  };
}

/** Whether a block is new to the stream: after the follower's checkpoint when the stream was created. */
export function isAfterStreamStart(stream: CompiledStream, chainId: number, blockNumber: number): boolean {
  return blockNumber > (stream.startBlocks.get(chainId) ?? -1);
}
