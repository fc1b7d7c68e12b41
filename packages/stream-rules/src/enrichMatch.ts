import type { TriggerResult, WebhookBody, WebhookLog } from '@tributary/schema';
import type { CompiledStream } from './compileStream.ts';
import { type ItemKind, itemKindOf, resolveSelector } from './selectors.ts';
import {
  type CompiledTrigger,
  type ContractCall,
  planTriggerCall,
  triggerError,
  triggerResult,
} from './triggers.ts';

/** Reads chain state at the block being evaluated (the matcher batches and caches per block). */
export interface ChainReader {
  /** eth_call; rejects with the node's message when the call reverts or fails. */
  call(call: ContractCall): Promise<`0x${string}`>;
  /** eth_getBalance in wei. */
  balance(address: `0x${string}`): Promise<bigint>;
}

type Item = Record<string, unknown> & { triggers?: TriggerResult[] };

function itemsOf(body: WebhookBody, kind: ItemKind): Item[] {
  switch (kind) {
    case 'tx':
      return body.txs as unknown as Item[];
    case 'log':
      return body.logs as unknown as Item[];
    case 'erc20transfer':
      return body.erc20Transfers as unknown as Item[];
    case 'erc20approval':
      return body.erc20Approvals as Item[];
    case 'nfttransfer':
      return body.nftTransfers as unknown as Item[];
    case 'internaltx':
      return body.txsInternal as unknown as Item[];
    default: {
      const never: never = kind;
      return never;
    }
  }
}

/** The decoded event fields of a webhook log under the stream's ABI (for `$field` selectors). */
function decodeWebhookLog(stream: CompiledStream, log: WebhookLog): Record<string, unknown> | undefined {
  const event = log.topic0 ? stream.events.get(log.topic0) : undefined;
  if (!event) return undefined;
  const topics = [log.topic0, log.topic1, log.topic2, log.topic3].filter((t): t is string => t !== null);
  return event.decode(topics, log.data);
}

async function runTrigger(
  trigger: CompiledTrigger,
  item: Item,
  decoded: Record<string, unknown> | undefined,
  reader: ChainReader,
  meter: (ms: number) => void,
): Promise<TriggerResult> {
  const planned = planTriggerCall(trigger, item, decoded);
  if (!planned.ok) return { name: 'error', value: planned.error };
  try {
    const returned = await reader.call(planned.call);
    const started = performance.now();
    try {
      return triggerResult(trigger, returned);
    } finally {
      meter(performance.now() - started);
    }
  } catch (err) {
    return triggerError(err);
  }
}

const KINDS: readonly ItemKind[] = [
  'log',
  'tx',
  'erc20transfer',
  'erc20approval',
  'nfttransfer',
  'internaltx',
];

/**
 * Completes a matched body with what needs the chain: `triggers` results on each item (in the
 * stream's trigger order; a failed call gives `{name:"error", value:<message>}`) and
 * `nativeBalances` of the addresses the getNativeBalances selectors pick, de-duplicated.
 * Every call goes through `reader`, which runs them at the webhook's block. `meter` is told the
 * time spent computing (planning calls, decoding their results), not the time waiting for the node.
 */
export async function enrichMatch(
  stream: CompiledStream,
  body: WebhookBody,
  reader: ChainReader,
  meter: (ms: number) => void = () => undefined,
): Promise<void> {
  const started = performance.now();
  const jobs: Promise<void>[] = [];
  const decodedLogs = new Map<Item, Record<string, unknown> | undefined>();
  const decodedOf = (kind: ItemKind, item: Item) => {
    if (kind !== 'log') return undefined;
    if (!decodedLogs.has(item))
      decodedLogs.set(item, decodeWebhookLog(stream, item as unknown as WebhookLog));
    return decodedLogs.get(item);
  };

  for (const kind of KINDS) {
    const triggers = stream.triggers.filter((t) => t.kind === kind);
    if (triggers.length === 0) continue;
    for (const item of itemsOf(body, kind)) {
      const applicable = triggers.filter((t) => t.topic0 === undefined || item['topic0'] === t.topic0);
      if (applicable.length === 0) continue;
      const decoded = decodedOf(kind, item);
      jobs.push(
        Promise.all(applicable.map((t) => runTrigger(t, item, decoded, reader, meter))).then((results) => {
          item.triggers = results;
        }),
      );
    }
  }

  const addresses: `0x${string}`[] = [];
  const seen = new Set<string>();
  for (const spec of stream.config.getNativeBalances ?? []) {
    const kind = itemKindOf(spec.type);
    if (!kind) continue;
    for (const item of itemsOf(body, kind)) {
      for (const selector of spec.selectors) {
        const v = resolveSelector(kind, item, selector, decodedOf(kind, item));
        const a = typeof v === 'string' ? v.toLowerCase() : '';
        if (/^0x[0-9a-f]{40}$/.test(a) && !seen.has(a)) {
          seen.add(a);
          addresses.push(a as `0x${string}`);
        }
      }
    }
  }
  meter(performance.now() - started);
  const balances = Promise.all(
    addresses.map(async (address) => ({ address, balance: (await reader.balance(address)).toString() })),
  );
  const [, nativeBalances] = await Promise.all([Promise.all(jobs), balances]);
  body.nativeBalances = nativeBalances;
}
