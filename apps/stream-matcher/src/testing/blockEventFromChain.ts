import type { FullBlockEvent, InternalTransaction, TokenMetadata } from '@tributary/schema';
import type { PublicClient } from 'viem';

interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gas: string;
  calls?: CallFrame[];
}

const lower = (s: string) => s.toLowerCase() as `0x${string}`;
const dec = (v: bigint | number | string | null | undefined) => BigInt(v ?? 0).toString();

/**
 * The `evm.blocks.v1` event of a mined block, read back from the node the way the chain-follower
 * builds it: transactions with receipts, logs, and internal transactions from a callTracer trace.
 */
export async function blockEventFromChain(
  client: PublicClient,
  blockNumber: bigint,
  opts: { type?: 'new' | 'confirmed'; tokens?: TokenMetadata[] } = {},
): Promise<FullBlockEvent> {
  const block = await client.getBlock({ blockNumber, includeTransactions: true });
  const receipts = await Promise.all(
    block.transactions.map((tx) => client.getTransactionReceipt({ hash: tx.hash })),
  );
  const traces = (await client.request({
    method: 'debug_traceBlockByNumber' as 'eth_chainId',
    params: [`0x${blockNumber.toString(16)}`, { tracer: 'callTracer' }] as unknown as undefined,
  })) as unknown as { txHash?: string; result: CallFrame }[];
  const internal: InternalTransaction[] = [];
  traces.forEach((t, i) => {
    const hash = lower(t.txHash ?? block.transactions[i]!.hash);
    const walk = (f: CallFrame) => {
      for (const c of f.calls ?? []) {
        if (c.to) {
          internal.push({
            transactionHash: hash,
            from: lower(c.from),
            to: lower(c.to),
            value: dec(c.value),
            gas: dec(c.gas),
            type: c.type,
          });
        }
        walk(c);
      }
    };
    walk(t.result);
  });
  return {
    type: opts.type ?? 'new',
    v: 2,
    chainId: await client.getChainId(),
    block: {
      number: Number(block.number),
      hash: block.hash,
      parentHash: block.parentHash,
      timestamp: Number(block.timestamp),
    },
    transactions: block.transactions.map((tx, i) => {
      const r = receipts[i]!;
      return {
        hash: lower(tx.hash),
        transactionIndex: tx.transactionIndex,
        from: lower(tx.from),
        to: tx.to ? lower(tx.to) : null,
        value: dec(tx.value),
        gas: dec(tx.gas),
        gasPrice: tx.gasPrice === undefined ? null : dec(tx.gasPrice),
        nonce: tx.nonce,
        input: lower(tx.input),
        type: Number(r.type === 'legacy' ? 0 : r.type === 'eip2930' ? 1 : r.type === 'eip1559' ? 2 : 0),
        v: tx.v === undefined ? null : dec(tx.v),
        r: tx.r ? dec(tx.r) : null,
        s: tx.s ? dec(tx.s) : null,
        receipt: {
          cumulativeGasUsed: dec(r.cumulativeGasUsed),
          gasUsed: dec(r.gasUsed),
          contractAddress: r.contractAddress ? lower(r.contractAddress) : null,
          status: r.status === 'success' ? 1 : 0,
          root: r.root ?? null,
        },
      };
    }),
    logs: receipts.flatMap((r) =>
      r.logs.map((l) => ({
        logIndex: l.logIndex,
        transactionHash: lower(l.transactionHash),
        transactionIndex: l.transactionIndex,
        address: lower(l.address),
        data: lower(l.data),
        topics: l.topics.map(lower),
      })),
    ),
    internalTransactions: internal,
    transfers: [],
    // As the follower publishes them: metadata of every token with transfers in the block.
    tokens: [],
    tokenInfo: (opts.tokens ?? []).map((t) => ({
      address: t.address,
      name: t.name,
      symbol: t.symbol,
      decimals: t.decimals,
    })),
    accounts: [],
    hasTransactions: true,
    hasInternalTransactions: true,
  };
}
