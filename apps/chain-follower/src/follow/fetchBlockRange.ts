import type { BlockHeader, ChainLog, ChainTransaction, InternalTransaction } from '@tributary/schema';
import type { Logger } from '@tributary/runtime';
import { classifyRpcError } from './classifyRpcError.ts';
import type { AdaptiveRange } from './createAdaptiveRange.ts';
import { type Rpc, hexToDecimal, hexToNumber, toHex } from './createRpc.ts';
import { mapLimit } from './mapLimit.ts';
import { readRangeHint } from './readRangeHint.ts';
import type { RpcBlock, RpcCallFrame, RpcLog, RpcReceipt, RpcTransaction } from './rpcTypes.ts';

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

export interface FetchOptions {
  transactions: boolean;
  traces: boolean;
}

export interface BlockFetcher {
  fetchRange(from: number, to: number, opts: FetchOptions): Promise<FetchedBlock[]>;
  fetchHeader(number: number | 'latest'): Promise<BlockHeader | null>;
}

/**
 * Fetches blocks [from, to]: headers (batched), logs with eth_getLogs over adaptive sub-ranges
 * run in parallel, and optionally transactions with receipts and call traces. Checks that the
 * headers link by parent hash and that every log belongs to the header's hash.
 */
export function createBlockFetcher(deps: {
  rpc: Rpc;
  range: AdaptiveRange;
  concurrency: number;
  logger: Logger;
}): BlockFetcher {
  const { rpc, range, logger } = deps;
  let tracesSupported = true;
  let blockReceiptsSupported = true;

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

  async function receiptsOf(block: RpcBlock): Promise<Map<string, RpcReceipt>> {
    const txs = block.transactions as RpcTransaction[];
    if (txs.length === 0) return new Map();
    let receipts: RpcReceipt[] | null = null;
    if (blockReceiptsSupported) {
      try {
        receipts = await rpc.call<RpcReceipt[]>('eth_getBlockReceipts', [block.hash]);
      } catch (err) {
        // Only a missing method turns it off: a timeout or a dropped connection is retried by the step.
        if (classifyRpcError(err).kind !== 'unsupported') throw err;
        blockReceiptsSupported = false;
        logger.warn(
          { err: (err as Error).message },
          'eth_getBlockReceipts unsupported: falling back to one call per tx',
        );
      }
    }
    receipts ??= await mapLimit(txs, 20, (tx) =>
      rpc.call<RpcReceipt>('eth_getTransactionReceipt', [tx.hash]),
    );
    return new Map(receipts.map((r) => [r.transactionHash.toLowerCase(), r]));
  }

  async function tracesOf(block: RpcBlock): Promise<InternalTransaction[] | null> {
    if (!tracesSupported) return null;
    if (block.transactions.length === 0) return [];
    try {
      const traces = await rpc.call<{ txHash?: string; result?: RpcCallFrame; error?: string }[]>(
        'debug_traceBlockByNumber',
        [block.number, { tracer: 'callTracer' }],
      );
      // A node may answer an error in place of a transaction's trace: anvil cannot trace the blocks it
      // loaded from its state file ("Resource not found"). Asking again gets the same answer, so the
      // block's internal transactions are unknown (null), not absent, and following goes on.
      const untraced = traces.filter((t) => t.result === undefined);
      if (untraced.length > 0) {
        logger.warn(
          { block: hexToNumber(block.number), untraced: untraced.length, error: untraced[0]?.error ?? null },
          'the node could not trace transactions of the block: its internal transactions are unknown',
        );
        return null;
      }
      const txs = block.transactions as RpcTransaction[];
      return traces.flatMap((t, i) => flattenCalls(t.txHash ?? txs[i]?.hash ?? '', t.result!));
    } catch (err) {
      if (classifyRpcError(err).kind !== 'unsupported') throw err;
      tracesSupported = false;
      logger.warn(
        { err: (err as Error).message },
        'debug_traceBlockByNumber unsupported: internal transactions off',
      );
      return null;
    }
  }

  async function fetchHeader(n: number | 'latest'): Promise<BlockHeader | null> {
    const b = await rpc.call<RpcBlock | null>('eth_getBlockByNumber', [
      n === 'latest' ? 'latest' : toHex(n),
      false,
    ]);
    return b ? toHeader(b) : null;
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
    async fetchRange(from, to, opts) {
      const numbers = Array.from({ length: to - from + 1 }, (_, i) => from + i);
      const [blocks, logs] = await Promise.all([
        mapLimit(numbers, deps.concurrency * 25, (n) =>
          rpc.call<RpcBlock | null>('eth_getBlockByNumber', [toHex(n), opts.transactions]),
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
        out.push({ header: toHeader(b), logs: blockLogs, transactions: null, internalTransactions: null });
      }
      if (opts.transactions) {
        await mapLimit(out, deps.concurrency, async (fb, i) => {
          const raw = blocks[i]!;
          const [receipts, internal] = await Promise.all([
            receiptsOf(raw),
            opts.traces ? tracesOf(raw) : Promise.resolve(null),
          ]);
          fb.transactions = (raw.transactions as RpcTransaction[]).map((tx) =>
            toChainTransaction(tx, receipts),
          );
          fb.internalTransactions = internal;
        });
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

function toHeader(b: RpcBlock): BlockHeader {
  return {
    number: hexToNumber(b.number),
    hash: b.hash.toLowerCase() as `0x${string}`,
    parentHash: b.parentHash.toLowerCase() as `0x${string}`,
    timestamp: hexToNumber(b.timestamp),
  };
}

function toChainLog(l: RpcLog): ChainLog {
  return {
    logIndex: hexToNumber(l.logIndex),
    transactionHash: l.transactionHash.toLowerCase() as `0x${string}`,
    transactionIndex: hexToNumber(l.transactionIndex),
    address: l.address.toLowerCase() as `0x${string}`,
    data: l.data.toLowerCase() as `0x${string}`,
    topics: l.topics.map((t) => t.toLowerCase() as `0x${string}`),
  };
}

function toChainTransaction(tx: RpcTransaction, receipts: Map<string, RpcReceipt>): ChainTransaction {
  const r = receipts.get(tx.hash.toLowerCase());
  if (!r) throw new ChainMovedError(`no receipt for ${tx.hash}`);
  const lower = (s: string) => s.toLowerCase() as `0x${string}`;
  return {
    hash: lower(tx.hash),
    transactionIndex: hexToNumber(tx.transactionIndex),
    from: lower(tx.from),
    to: tx.to ? lower(tx.to) : null,
    value: hexToDecimal(tx.value),
    gas: hexToDecimal(tx.gas),
    gasPrice: tx.gasPrice ? hexToDecimal(tx.gasPrice) : null,
    nonce: hexToNumber(tx.nonce),
    input: lower(tx.input),
    type: tx.type ? hexToNumber(tx.type) : 0,
    // Decimal strings, as the webhook bodies carry them.
    v: tx.v ? hexToDecimal(tx.v) : null,
    r: tx.r ? hexToDecimal(tx.r) : null,
    s: tx.s ? hexToDecimal(tx.s) : null,
    receipt: {
      cumulativeGasUsed: hexToDecimal(r.cumulativeGasUsed),
      gasUsed: hexToDecimal(r.gasUsed),
      contractAddress: r.contractAddress ? lower(r.contractAddress) : null,
      status: r.status ? hexToNumber(r.status) : null,
      root: r.root ?? null,
    },
  };
}

/** Internal transactions are the nested frames of a call trace (the top frame is the transaction itself). */
function flattenCalls(txHash: string, frame: RpcCallFrame): InternalTransaction[] {
  const out: InternalTransaction[] = [];
  const walk = (f: RpcCallFrame) => {
    for (const c of f.calls ?? []) {
      if (c.to) {
        out.push({
          transactionHash: txHash.toLowerCase() as `0x${string}`,
          from: c.from.toLowerCase() as `0x${string}`,
          to: c.to.toLowerCase() as `0x${string}`,
          value: hexToDecimal(c.value),
          gas: hexToDecimal(c.gas),
          type: c.type,
        });
      }
      walk(c);
    }
  };
  walk(frame);
  return out;
}
