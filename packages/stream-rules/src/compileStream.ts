import { type AbiEvent, abiEvents, topic0OfSignature } from './eventSignature.ts';
import type { StreamConfig } from './streamConfig.ts';
import { type CompiledTrigger, compileTriggers } from './triggers.ts';

export type StreamStatus = 'active' | 'paused' | 'error' | 'terminated';

/** A stream as the matcher holds it in memory: config compiled once, addresses in a Set. */
export interface CompiledStream {
  id: string;
  accountId: string;
  status: StreamStatus;
  /** Blocks older than the stream (Unix seconds) are never delivered to it. */
  createdAtSeconds: number;
  chainIds: Set<number>;
  config: StreamConfig;
  addresses: Set<string>;
  /** topic0 selectors to match; empty = any topic0. */
  topic0: Set<string>;
  events: Map<string, AbiEvent>;
  filters: Map<string, Record<string, unknown>>;
  /** topic0 selectors whose advancedOptions entry has includeNativeTxs: the txs of their matched logs are sent. */
  nativeTxsOfTopics: Set<string>;
  triggers: CompiledTrigger[];
}

export function compileStream(row: {
  id: string;
  accountId: string;
  status: StreamStatus;
  createdAt: Date;
  config: StreamConfig;
  addresses: Iterable<string>;
}): CompiledStream {
  const events = new Map(abiEvents(row.config.abi ?? []).map((e) => [e.selector as string, e]));
  const topic0 = new Set<string>();
  for (const sig of row.config.topic0 ?? []) {
    const s = topic0OfSignature(sig);
    if (s) topic0.add(s);
  }
  const filters = new Map<string, Record<string, unknown>>();
  const nativeTxsOfTopics = new Set<string>();
  for (const opt of row.config.advancedOptions ?? []) {
    const s = topic0OfSignature(opt.topic0);
    if (s && opt.filter) filters.set(s, opt.filter);
    if (s && opt.includeNativeTxs) nativeTxsOfTopics.add(s);
  }
  return {
    id: row.id,
    accountId: row.accountId,
    status: row.status,
    createdAtSeconds: Math.floor(row.createdAt.getTime() / 1000),
    chainIds: new Set(row.config.chainIds.map((c) => Number.parseInt(c, 16))),
    config: row.config,
    addresses: new Set([...row.addresses].map((a) => a.toLowerCase())),
    topic0,
    events,
    filters,
    nativeTxsOfTopics,
    triggers: compileTriggers(row.config),
  };
}
