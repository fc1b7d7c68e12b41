import type { FullBlockEvent } from '@tributary/schema';

const TRANSFER_TOPIC0 = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
/** The 32-byte hash `n` (block `n`'s hash; its transaction's is that of 0x7000 + n). */
const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;
const topicOf = (a: string) => `0x${'0'.repeat(24)}${a.slice(2)}` as `0x${string}`;

/**
 * Block `number` with one ERC20 transfer of `value` on `token`, as the follower publishes it (for
 * tests that feed the block topic by hand): its hash is `h(number)`, its transaction's `h(0x7000 +
 * number)`, and the token is named "Token" (TOK, 6 decimals).
 */
export function transferBlockEvent(o: {
  chainId: number;
  number: number;
  token: string;
  from: string;
  to: string;
  value: bigint;
  type: 'new' | 'confirmed';
}): FullBlockEvent {
  const n = o.number;
  const txHash = h(0x7000 + n);
  const token = o.token as `0x${string}`;
  return {
    type: o.type,
    v: 2,
    chainId: o.chainId,
    block: { number: n, hash: h(n), parentHash: h(n - 1), timestamp: 1_700_000_000 + n },
    transactions: [
      {
        hash: txHash,
        transactionIndex: 0,
        from: o.from as `0x${string}`,
        to: token,
        value: '0',
        gas: '60000',
        gasPrice: '1000000000',
        nonce: n,
        input: '0xa9059cbb',
        type: 2,
        v: '0x1',
        r: h(1),
        s: h(2),
        receipt: {
          cumulativeGasUsed: '51000',
          gasUsed: '51000',
          contractAddress: null,
          status: 1,
          root: null,
        },
      },
    ],
    logs: [
      {
        logIndex: 0,
        transactionHash: txHash,
        transactionIndex: 0,
        address: token,
        data: `0x${o.value.toString(16).padStart(64, '0')}` as `0x${string}`,
        topics: [TRANSFER_TOPIC0, topicOf(o.from), topicOf(o.to)],
      },
    ],
    internalTransactions: [],
    transfers: [],
    tokens: [
      {
        address: token,
        name: 'Token',
        symbol: 'TOK',
        decimals: 6,
        totalSupply: '1000000',
        readAtBlock: n - 1,
      },
    ],
    tokenInfo: [],
    accounts: [],
    hasTransactions: true,
    hasInternalTransactions: false,
  };
}
