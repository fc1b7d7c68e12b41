import type { BlockSegment, RemovedBlock, SegmentTransfer } from '@tributary/db/chain';
import type { BlockEvent, FullBlockEvent } from '@tributary/schema';

export type BatchStep = { kind: 'segment'; segment: BlockSegment } | { kind: 'remove'; block: RemovedBlock };

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

function toSegment(items: { event: FullBlockEvent; confirmed: boolean }[]): BlockSegment {
  const seg: BlockSegment = { blocks: [], tokens: [], addressKinds: [] };
  for (const { event: e, confirmed } of items) {
    const chainId = e.chainId;
    seg.blocks.push({
      chainId,
      number: e.block.number,
      hash: e.block.hash,
      parentHash: e.block.parentHash,
      timestamp: e.block.timestamp,
      confirmed,
      // Log objects are written as they are.
      logs: e.logs,
      transfers: resolveTransfers(e),
    });
    for (const t of e.tokens) {
      seg.tokens.push({
        chainId,
        address: t.address,
        name: t.name,
        symbol: t.symbol,
        decimals: t.decimals,
        totalSupply: t.totalSupply,
        readAtBlock: t.readAtBlock,
        firstSeenHash: e.block.hash,
      });
    }
    for (const a of e.accounts)
      seg.addressKinds.push({ chainId, address: a.address, isContract: a.isContract });
  }
  return seg;
}

/** Transfers name their log: token and transaction come from it (the schema checked it is there). */
function resolveTransfers(e: FullBlockEvent): SegmentTransfer[] {
  const logs = e.logs;
  let byIndex: Map<number, (typeof logs)[number]> | undefined;
  const logAt = (logIndex: number) => {
    // Logs usually sit at their index (a block's logs are numbered from 0).
    const direct = logs[logIndex];
    if (direct?.logIndex === logIndex) return direct;
    byIndex ??= new Map(logs.map((l) => [l.logIndex, l]));
    const log = byIndex.get(logIndex);
    if (!log) throw new Error(`block ${e.block.number}: transfer names missing log ${logIndex}`);
    return log;
  };
  const out: SegmentTransfer[] = new Array(e.transfers.length);
  for (let i = 0; i < e.transfers.length; i++) {
    const t = e.transfers[i]!;
    const log = logAt(t.logIndex);
    out[i] = {
      logIndex: t.logIndex,
      transactionHash: log.transactionHash,
      transactionIndex: log.transactionIndex,
      token: log.address,
      from: t.from,
      to: t.to,
      value: t.value,
    };
  }
  return out;
}
