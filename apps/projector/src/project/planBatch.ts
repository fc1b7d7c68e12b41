import type { ChainSegment, RemovedBlock } from '@tributary/db';
import type { BlockEvent, FullBlockEvent } from '@tributary/schema';

export type BatchStep = { kind: 'segment'; segment: ChainSegment } | { kind: 'remove'; block: RemovedBlock };

/**
 * Splits a batch of block events into steps that keep their order: runs of new/confirmed blocks
 * (projected set-based; one block appearing twice is merged, confirmed winning) and single
 * removals between them.
 */
export function planBatch(events: readonly BlockEvent[]): BatchStep[] {
  const steps: BatchStep[] = [];
  let run = new Map<string, { event: FullBlockEvent; confirmed: boolean }>();
  const flush = () => {
    if (run.size > 0) steps.push({ kind: 'segment', segment: toSegment([...run.values()]) });
    run = new Map();
  };
  for (const e of events) {
    switch (e.type) {
      case 'removed':
        flush();
        steps.push({
          kind: 'remove',
          block: { chainId: e.chainId, number: e.block.number, hash: e.block.hash },
        });
        break;
      case 'new':
      case 'confirmed': {
        const key = `${e.chainId}:${e.block.hash}`;
        const seen = run.get(key);
        run.set(key, {
          event: seen?.event ?? e,
          confirmed: (seen?.confirmed ?? false) || e.type === 'confirmed',
        });
        break;
      }
      default: {
        const never: never = e;
        throw new Error(`unknown block event ${JSON.stringify(never)}`);
      }
    }
  }
  flush();
  return steps;
}

function toSegment(items: { event: FullBlockEvent; confirmed: boolean }[]): ChainSegment {
  const seg: ChainSegment = { blocks: [], logs: [], transfers: [], tokens: [], addressKinds: [] };
  for (const { event: e, confirmed } of items) {
    const chainId = e.chainId;
    const blockNumber = e.block.number;
    const blockHash = e.block.hash;
    const blockTimestamp = e.block.timestamp;
    seg.blocks.push({
      chainId,
      number: blockNumber,
      hash: blockHash,
      parentHash: e.block.parentHash,
      timestamp: blockTimestamp,
      confirmed,
    });
    // Object literals with one fixed shape (no spread): blocks can carry tens of thousands of logs.
    for (const l of e.logs) {
      seg.logs.push({
        chainId,
        blockNumber,
        logIndex: l.logIndex,
        blockHash,
        blockTimestamp,
        transactionHash: l.transactionHash,
        transactionIndex: l.transactionIndex,
        address: l.address,
        topics: l.topics,
        data: l.data,
      });
    }
    for (const t of e.transfers) {
      seg.transfers.push({
        chainId,
        blockNumber,
        logIndex: t.logIndex,
        blockHash,
        blockTimestamp,
        transactionHash: t.transactionHash,
        transactionIndex: t.transactionIndex,
        token: t.token,
        from: t.from,
        to: t.to,
        value: t.value,
      });
    }
    for (const t of e.tokens) {
      seg.tokens.push({
        chainId,
        address: t.address,
        name: t.name,
        symbol: t.symbol,
        decimals: t.decimals,
        totalSupply: t.totalSupply,
        readAtBlock: t.readAtBlock,
        firstSeenHash: blockHash,
      });
    }
    for (const a of e.accounts)
      seg.addressKinds.push({ chainId, address: a.address, isContract: a.isContract });
  }
  return seg;
}
