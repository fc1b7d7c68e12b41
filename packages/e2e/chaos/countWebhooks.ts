import { TRANSFER_TOPIC0 } from '@tributary/evm';
import type { ChainLog } from './readChainLogs.ts';
import type { ReceivedWebhook } from './webhookLedger.ts';

/** A stream of the chaos run: ERC20 Transfer logs of one contract, or of every contract. */
export interface ChaosStream {
  id: string;
  address: string | 'all';
  /** Blocks after this one are due to the stream (its calls had answered when the chain was here). */
  fromBlock: number;
  /**
   * Its start block (the follower's checkpoint when it was stored): blocks after this one and up
   * to `fromBlock` may come or not; blocks up to it never.
   */
  startBlock: number;
}

export interface WebhookCounts {
  expected: number;
  /** Expected webhooks that arrived at least once. */
  delivered: number;
  lost: number;
  /** Arrivals beyond the first of one (stream, block, confirmed). */
  duplicated: number;
  /** Of the duplicates, those whose webhook-id differed from the first arrival's (should be 0). */
  duplicatesWithNewId: number;
  /** Arrivals for no expected (stream, block, confirmed): an orphaned or unknown block. */
  unexpected: number;
  badSignatures: number;
  /** Up to 20 lost keys, for the report. */
  lostSample: string[];
}

/**
 * What the chain says must arrive: for each stream and each block after its `fromBlock` with a
 * Transfer log it watches, one unconfirmed and one confirmed webhook (every block is confirmed
 * at the end of the run); compared with what the receiver wrote down for these streams.
 */
export function countWebhooks(
  streams: readonly ChaosStream[],
  logs: readonly ChainLog[],
  allReceived: readonly ReceivedWebhook[],
): WebhookCounts {
  const expected = new Set<string>();
  const allowed = new Set<string>();
  for (const s of streams) {
    for (const l of logs) {
      if (l.blockNumber <= s.startBlock || l.topics[0] !== TRANSFER_TOPIC0) continue;
      if (s.address !== 'all' && l.address !== s.address) continue;
      const into = l.blockNumber > s.fromBlock ? expected : allowed;
      into.add(`${s.id}:${l.blockHash}:u`);
      into.add(`${s.id}:${l.blockHash}:c`);
    }
  }
  const ids = new Set(streams.map((s) => s.id));
  const received = allReceived.filter((r) => ids.has(r.streamId));
  const firstId = new Map<string, string>();
  let duplicated = 0;
  let duplicatesWithNewId = 0;
  let unexpected = 0;
  let badSignatures = 0;
  for (const r of received) {
    if (!r.signatureValid) badSignatures++;
    const key = `${r.streamId}:${r.blockHash}:${r.confirmed ? 'c' : 'u'}`;
    if (!expected.has(key) && !allowed.has(key)) unexpected++;
    const first = firstId.get(key);
    if (first === undefined) firstId.set(key, r.webhookId);
    else {
      duplicated++;
      if (first !== r.webhookId) duplicatesWithNewId++;
    }
  }
  const lost = [...expected].filter((k) => !firstId.has(k));
  return {
    expected: expected.size,
    delivered: expected.size - lost.length,
    lost: lost.length,
    duplicated,
    duplicatesWithNewId,
    unexpected,
    badSignatures,
    lostSample: lost.slice(0, 20),
  };
}
