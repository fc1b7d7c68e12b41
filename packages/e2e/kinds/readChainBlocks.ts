import type { Hex, PublicClient } from 'viem';

interface ChainTx {
  hash: Hex;
  from: string;
  to: string | null;
  value: bigint;
  /** The contract a creation made (null for calls). */
  contractAddress: string | null;
}

export interface ChainLog {
  blockNumber: number;
  blockHash: Hex;
  logIndex: number;
  transactionHash: Hex;
  address: string;
  topics: Hex[];
  data: Hex;
}

/** A call inside a transaction (a nested frame of its call trace): what users call an internal transaction. */
interface ChainInternalTx {
  transactionHash: Hex;
  from: string;
  to: string;
  value: bigint;
}

/** One block as the chain has it: what every kind's expectation is computed from. */
export interface ChainBlock {
  number: number;
  hash: Hex;
  transactions: ChainTx[];
  logs: ChainLog[];
  internal: ChainInternalTx[];
}

interface CallFrame {
  from: string;
  to?: string;
  value?: string;
  calls?: CallFrame[];
}

/**
 * Blocks [from, to] of the node: transactions (with the contract a creation made), logs (eth_getLogs
 * over ranges) and internal transactions (debug_traceBlockByNumber with the callTracer: every
 * nested call frame). `concurrency` blocks are read at once.
 */
export async function readChainBlocks(
  client: PublicClient,
  from: number,
  to: number,
  concurrency = 16,
): Promise<ChainBlock[]> {
  const out: ChainBlock[] = [];
  for (let start = from; start <= to; start += concurrency) {
    const numbers = Array.from({ length: Math.min(concurrency, to - start + 1) }, (_, i) => start + i);
    out.push(...(await Promise.all(numbers.map((n) => readBlock(client, n)))));
  }
  const byNumber = new Map(out.map((b) => [b.number, b]));
  for (let start = from; start <= to; start += 200) {
    const end = Math.min(to, start + 199);
    for (const l of await client.getLogs({ fromBlock: BigInt(start), toBlock: BigInt(end) })) {
      const block = byNumber.get(Number(l.blockNumber));
      if (!block || block.hash !== l.blockHash)
        throw new Error(`log of block ${l.blockNumber} ${l.blockHash}: the chain moved while it was read`);
      block.logs.push({
        blockNumber: Number(l.blockNumber),
        blockHash: l.blockHash,
        logIndex: l.logIndex,
        transactionHash: l.transactionHash,
        address: l.address.toLowerCase(),
        topics: l.topics as Hex[],
        data: l.data,
      });
    }
  }
  return out;
}

async function readBlock(client: PublicClient, number: number): Promise<ChainBlock> {
  const block = await client.getBlock({ blockNumber: BigInt(number), includeTransactions: true });
  const transactions = await Promise.all(
    block.transactions.map(async (t): Promise<ChainTx> => {
      const creation = t.to === null;
      const receipt = creation ? await client.getTransactionReceipt({ hash: t.hash }) : undefined;
      return {
        hash: t.hash,
        from: t.from.toLowerCase(),
        to: t.to ? t.to.toLowerCase() : null,
        value: t.value,
        contractAddress: receipt?.contractAddress ? receipt.contractAddress.toLowerCase() : null,
      };
    }),
  );
  const internal: ChainInternalTx[] = [];
  if (transactions.length > 0) {
    const traces = (await client.request({
      method: 'debug_traceBlockByNumber',
      params: [`0x${number.toString(16)}`, { tracer: 'callTracer' }],
    } as never)) as { txHash?: Hex; result: CallFrame }[];
    traces.forEach((trace, i) => {
      const txHash = (trace.txHash ?? transactions[i]!.hash).toLowerCase() as Hex;
      const walk = (frame: CallFrame) => {
        for (const call of frame.calls ?? []) {
          if (call.to)
            internal.push({
              transactionHash: txHash,
              from: call.from.toLowerCase(),
              to: call.to.toLowerCase(),
              value: BigInt(call.value ?? 0),
            });
          walk(call);
        }
      };
      walk(trace.result);
    });
  }
  return { number, hash: block.hash, transactions, logs: [], internal };
}
