import type { ChainLog } from './readChainLogs.ts';
import type { ReceivedWebhook } from './webhookLedger.ts';

/** A stream of the chaos run: ERC20 Transfer logs of one contract, or of every contract. */
export interface ChaosStream {
  id: string;
  address: string | 'all';
  /** Blocks after this one are the stream's (it was created when the chain was here). */
  fromBlock: number;
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

const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/**
 * What the chain says must arrive: for each stream and each block after its start with a
 * Transfer log it watches, one unconfirmed and one confirmed webhook (every block is confirmed
 * at the end of the run); compared with what the receiver wrote down.
 */
export function countWebhooks(
  streams: readonly ChaosStream[],
  logs: readonly ChainLog[],
  received: readonly ReceivedWebhook[],
): WebhookCounts {
  const expected = new Set<string>();
  for (const s of streams) {
    for (const l of logs) {
      if (l.blockNumber <= s.fromBlock || l.topics[0] !== TRANSFER) continue;
      if (s.address !== 'all' && l.address !== s.address) continue;
      expected.add(`${s.id}:${l.blockHash}:u`);
      expected.add(`${s.id}:${l.blockHash}:c`);
    }
  }
  const firstId = new Map<string, string>();
  let duplicated = 0;
  let duplicatesWithNewId = 0;
  let unexpected = 0;
  let badSignatures = 0;
  for (const r of received) {
    if (!r.signatureValid) badSignatures++;
    const key = `${r.streamId}:${r.blockHash}:${r.confirmed ? 'c' : 'u'}`;
    if (!expected.has(key)) unexpected++;
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
