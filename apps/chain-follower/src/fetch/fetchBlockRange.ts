import {
  type RpcBlock,
  type RpcLog,
  classifyRpcError,
  createBlockContentsReader,
  hexToNumber,
  mapLimit,
  toBlockHeader,
  toChainLog,
  toHex,
} from '@tributary/evm';
import type { Logger } from '@tributary/runtime';
import type {
  BlockContents,
  BlockHeader,
  ChainLog,
  ChainTransaction,
  InternalTransaction,
} from '@tributary/schema';
import type { AdaptiveRange } from './createAdaptiveRange.ts';
import type { Rpc } from '../rpc/createRpc.ts';
import { readRangeHint } from '../rpc/readRangeHint.ts';

export interface FetchedBlock {
  header: BlockHeader;
  logs: ChainLog[];
  /** null when transactions were not fetched for this block. */
  transactions: ChainTransaction[] | null;
  internalTransactions: InternalTransaction[] | null;
}

/** The node's answers do not form one chain (a reorg happened while we fetched): retry the range. */
class ChainMovedError extends Error {
  override readonly name = 'ChainMovedError';
}

/** A block's header says it has logs (its bloom is not empty) and the node keeps answering none: retry later. */
class LogsNotReadyError extends Error {
  override readonly name = 'LogsNotReadyError';
}

const EMPTY_BLOOM = /^0x0*$/;

export interface BlockFetcher {
  /** Blocks [from, to] with their logs and, as `contents` asks, their transactions and internal transactions. */
  fetchRange(from: number, to: number, contents: BlockContents): Promise<FetchedBlock[]>;
  fetchHeader(number: number | 'latest'): Promise<BlockHeader | null>;
}

/**
 * Fetches blocks [from, to]: headers (batched), logs with eth_getLogs over adaptive sub-ranges
 * run in parallel, and the transactions with receipts and call traces that `contents` names
 * (readBlockContents, shared with the matcher). Checks that the headers link by parent hash and
 * that every log belongs to the header's hash.
 */
export function createBlockFetcher(deps: {
  rpc: Rpc;
  range: AdaptiveRange;
  concurrency: number;
  logger: Logger;
}): BlockFetcher {
  const { rpc, range, logger } = deps;
  const contentsReader = createBlockContentsReader({ call: rpc.call, logger });

  /**
   * eth_getLogs over [from, to], split when the provider says the range is too large: into its
   * suggested range when it names one that is smaller, else in halves. Every split is strictly
   * smaller, and a suggested range that fails again is halved, so a wrong hint cannot loop.
   */
  async function getLogs(from: number, to: number, suggested = false): Promise<RpcLog[]> {
    const started = Date.now();
    try {
      const logs = await rpc.call<RpcLog[]>('eth_getLogs', [{ fromBlock: toHex(from), toBlock: toHex(to) }]);
      range.succeeded(to - from + 1, logs.length, Date.now() - started);
      return logs;
    } catch (err) {
      const kind = classifyRpcError(err);
      const why = kind.kind;
      // A timeout that outlived the retries is, for eth_getLogs, most often a range too heavy
      // (a dropped connection or a 5xx is not: splitting would only multiply the calls to a failing node).
      if (from === to || !(why === 'range' || (kind.kind === 'transient' && kind.timeout))) throw err;
      const span = to - from + 1;
      const hint = why === 'range' && !suggested ? readRangeHint(err) : undefined;
      const useHint = hint !== undefined && hint.blocks < span;
      const size = useHint ? hint.blocks : Math.ceil(span / 2);
      if (useHint && hint.fixed) range.limit(size);
      else range.cap(size);
      logger.debug(
        { from, to, size, hinted: useHint, err: (err as Error).message.split('\n')[0] },
        'eth_getLogs range too large: splitting',
      );
      const parts: Promise<RpcLog[]>[] = [];
      for (let a = from; a <= to; a += size)
        parts.push(getLogs(a, Math.min(to, a + size - 1), useHint && !hint.fixed));
      return (await Promise.all(parts)).flat();
    }
  }

  async function fetchLogs(from: number, to: number): Promise<RpcLog[]> {
    const size = range.size();
    const parts: [number, number][] = [];
    for (let a = from; a <= to; a += size) parts.push([a, Math.min(to, a + size - 1)]);
    const results = await mapLimit(parts, deps.concurrency, ([a, b]) => getLogs(a, b));
    return results.flat();
  }

  async function fetchHeader(n: number | 'latest'): Promise<BlockHeader | null> {
    const b = await rpc.call<RpcBlock | null>('eth_getBlockByNumber', [
      n === 'latest' ? 'latest' : toHex(n),
      false,
    ]);
    return b ? toBlockHeader(b) : null;
  }

  /**
   * A node behind its own head answers eth_getLogs with [] for blocks it has not executed yet.
   * A header whose logs bloom is not empty has logs: ask for those blocks again, a few times,
   * then fail the range (the step retries it) rather than publish a block without its logs.
   */
  async function refetchMissingLogs(
    blocks: (RpcBlock | null)[],
    from: number,
    byBlock: Map<number, ChainLog[]>,
  ) {
    for (let attempt = 0; ; attempt++) {
      const missing = blocks.filter(
        (b): b is RpcBlock =>
          b !== null && !EMPTY_BLOOM.test(b.logsBloom ?? '0x') && !byBlock.has(hexToNumber(b.number)),
      );
      if (missing.length === 0) return;
      if (attempt === 3) {
        throw new LogsNotReadyError(
          `blocks ${missing.map((b) => hexToNumber(b.number)).join(', ')} have a logs bloom and no logs`,
        );
      }
      logger.warn(
        { blocks: missing.map((b) => hexToNumber(b.number)), attempt },
        'node answered no logs for blocks that have some: asking again',
      );
      await new Promise((r) => setTimeout(r, 200 * attempt));
      const logs = (
        await mapLimit(missing, deps.concurrency, (b) =>
          getLogs(hexToNumber(b.number), hexToNumber(b.number)),
        )
      ).flat();
      addLogs(logs, blocks, from, byBlock);
    }
  }

  return {
    fetchHeader,
    async fetchRange(from, to, contents) {
      const numbers = Array.from({ length: to - from + 1 }, (_, i) => from + i);
      const withTxs = contents.transactions || contents.internalTransactions;
      const [blocks, logs] = await Promise.all([
        mapLimit(numbers, deps.concurrency * 25, (n) =>
          rpc.call<RpcBlock | null>('eth_getBlockByNumber', [toHex(n), withTxs]),
        ),
        fetchLogs(from, to),
      ]);
      const byBlock = new Map<number, ChainLog[]>();
      addLogs(logs, blocks, from, byBlock);
      await refetchMissingLogs(blocks, from, byBlock);
      const out: FetchedBlock[] = [];
      for (let i = 0; i < blocks.length; i++) {
        const b = blocks[i];
        if (!b) throw new ChainMovedError(`block ${from + i} not available (head moved back?)`);
        const prev = blocks[i - 1];
        if (prev && b.parentHash.toLowerCase() !== prev.hash.toLowerCase()) {
          throw new ChainMovedError(`block ${from + i} does not link to ${from + i - 1}`);
        }
        const blockLogs = (byBlock.get(from + i) ?? []).sort((x, y) => x.logIndex - y.logIndex);
        out.push({
          header: toBlockHeader(b),
          logs: blockLogs,
          transactions: null,
          internalTransactions: null,
        });
      }
      if (withTxs) {
        const untraced: number[] = [];
        await mapLimit(out, deps.concurrency, async (fb, i) => {
          const read = await contentsReader.read(blocks[i]!, contents);
          fb.transactions = read.transactions;
          fb.internalTransactions = read.internalTransactions;
          if (read.untraced) untraced.push(fb.header.number);
        });
        if (untraced.length > 0) {
          // Published as it is (hasInternalTransactions false): the matcher asks the node again, or waits.
          logger.warn(
            { blocks: untraced.slice(0, 20), count: untraced.length },
            'the node could not trace blocks that a stream reads: published without internal transactions',
          );
        }
      }
      return out;
    },
  };
}

function addLogs(
  logs: RpcLog[],
  blocks: (RpcBlock | null)[],
  from: number,
  byBlock: Map<number, ChainLog[]>,
) {
  for (const l of logs) {
    if (l.removed) continue;
    const n = hexToNumber(l.blockNumber);
    const block = blocks[n - from];
    if (!block || block.hash.toLowerCase() !== l.blockHash.toLowerCase()) {
      throw new ChainMovedError(`log of block ${n} has hash ${l.blockHash}, header differs`);
    }
    const list = byBlock.get(n);
    if (list) list.push(toChainLog(l));
    else byBlock.set(n, [toChainLog(l)]);
  }
}
