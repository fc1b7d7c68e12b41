import type { BlockContents, ChainTransaction, InternalTransaction } from '@tributary/schema';
import { classifyRpcError } from './classifyRpcError.ts';
import { mapLimit } from './mapLimit.ts';
import { hexToDecimal, hexToNumber } from './rpcHex.ts';
import type { RpcBlock, RpcCallFrame, RpcReceipt, RpcTransaction } from './rpcTypes.ts';

export type RpcCall = <T>(method: string, params: unknown[]) => Promise<T>;

/** What a block's transactions, receipts and traces gave: null where a part was not read (or could not be). */
interface ReadContents {
  transactions: ChainTransaction[] | null;
  internalTransactions: InternalTransaction[] | null;
  /** Why internal transactions were asked for and are null (the node cannot trace), for logs and readiness. */
  untraced?: string;
}

/** The node's answers do not fit together (a reorg happened while we read): read again. */
class BlockContentsMismatchError extends Error {
  override readonly name = 'BlockContentsMismatchError';
  readonly retryable = true;
}

export interface BlockContentsReader {
  /**
   * Transactions with their receipts, and (when `want.internalTransactions`) the internal
   * transactions of the block's call traces, of a block fetched with its full transactions.
   */
  read(block: RpcBlock, want: BlockContents): Promise<ReadContents>;
  /** The block with that hash, with what `want` names; null when the node does not have it (orphaned). */
  readByHash(hash: string, want: BlockContents): Promise<{ block: RpcBlock; contents: ReadContents } | null>;
}

/** Receipts fetched at once per block when eth_getBlockReceipts is missing. */
const RECEIPT_CONCURRENCY = 20;
/** How long a method the node said it lacks is not asked for (a node may be upgraded). */
const RECHECK_MS = 300_000;

/**
 * The one way both the follower (for every block a stream can read) and the matcher (for a block
 * that reached it without a part a stream reads) get a block's transactions and traces. Receipts
 * come from eth_getBlockReceipts, or one call per transaction where the node lacks it; traces from
 * debug_traceBlockByHash with the callTracer. A method the node lacks is asked for once only.
 */
export function createBlockContentsReader(deps: {
  call: RpcCall;
  logger?: { warn(fields: object, msg: string): void };
}): BlockContentsReader {
  let tracesUnsupportedUntil = 0;
  let blockReceiptsUnsupportedUntil = 0;
  const warn = (fields: object, msg: string) => deps.logger?.warn(fields, msg);

  async function receiptsOf(block: RpcBlock): Promise<Map<string, RpcReceipt>> {
    const txs = block.transactions as RpcTransaction[];
    if (txs.length === 0) return new Map();
    let receipts: RpcReceipt[] | null = null;
    if (Date.now() >= blockReceiptsUnsupportedUntil) {
      try {
        receipts = await deps.call<RpcReceipt[]>('eth_getBlockReceipts', [block.hash]);
      } catch (err) {
        // Only a missing method turns it off: a timeout or a dropped connection is the caller's to retry.
        if (classifyRpcError(err).kind !== 'unsupported') throw err;
        blockReceiptsUnsupportedUntil = Date.now() + RECHECK_MS;
        warn(
          { err: (err as Error).message },
          'eth_getBlockReceipts unsupported: falling back to one call per tx',
        );
      }
    }
    receipts ??= await mapLimit(txs, RECEIPT_CONCURRENCY, (tx) =>
      deps.call<RpcReceipt>('eth_getTransactionReceipt', [tx.hash]),
    );
    if (receipts === null) throw new BlockContentsMismatchError(`no receipts for block ${block.hash}`);
    return new Map(receipts.filter(Boolean).map((r) => [r.transactionHash.toLowerCase(), r]));
  }

  async function tracesOf(
    block: RpcBlock,
  ): Promise<{ internal: InternalTransaction[] | null; untraced?: string }> {
    if (Date.now() < tracesUnsupportedUntil)
      return { internal: null, untraced: 'the node does not support debug_traceBlockByHash' };
    const txs = block.transactions as RpcTransaction[];
    if (txs.length === 0) return { internal: [] };
    let traces: { txHash?: string; result?: RpcCallFrame; error?: string }[];
    try {
      traces = await deps.call('debug_traceBlockByHash', [block.hash, { tracer: 'callTracer' }]);
    } catch (err) {
      if (classifyRpcError(err).kind !== 'unsupported') throw err;
      tracesUnsupportedUntil = Date.now() + RECHECK_MS;
      warn(
        { err: (err as Error).message },
        'debug_traceBlockByHash unsupported: internal transactions cannot be read',
      );
      return { internal: null, untraced: 'the node does not support debug_traceBlockByHash' };
    }
    // A node may answer an error in place of a transaction's trace: anvil cannot trace the blocks it
    // loaded from its state file ("Resource not found"). The block's internal transactions are then
    // unknown (null), not absent.
    const failed = traces.find((t) => t.result === undefined);
    if (failed)
      return {
        internal: null,
        untraced: `the node could not trace the block: ${failed.error ?? 'no result'}`,
      };
    if (traces.length !== txs.length)
      throw new BlockContentsMismatchError(
        `${traces.length} traces for ${txs.length} transactions in ${block.hash}`,
      );
    return { internal: traces.flatMap((t, i) => flattenCalls(t.txHash ?? txs[i]!.hash, t.result!)) };
  }

  async function read(block: RpcBlock, want: BlockContents): Promise<ReadContents> {
    if (!want.transactions && !want.internalTransactions)
      return { transactions: null, internalTransactions: null };
    const [receipts, traced] = await Promise.all([
      receiptsOf(block),
      want.internalTransactions ? tracesOf(block) : Promise.resolve({ internal: null }),
    ]);
    const transactions = (block.transactions as RpcTransaction[]).map((tx) =>
      toChainTransaction(tx, receipts),
    );
    return {
      transactions,
      internalTransactions: traced.internal,
      ...('untraced' in traced && traced.untraced ? { untraced: traced.untraced } : {}),
    };
  }

  return {
    read,
    async readByHash(hash, want) {
      const block = await deps.call<RpcBlock | null>('eth_getBlockByHash', [hash, true]);
      if (!block) return null;
      return { block, contents: await read(block, want) };
    },
  };
}

function toChainTransaction(tx: RpcTransaction, receipts: Map<string, RpcReceipt>): ChainTransaction {
  const r = receipts.get(tx.hash.toLowerCase());
  if (!r) throw new BlockContentsMismatchError(`no receipt for ${tx.hash}`);
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
