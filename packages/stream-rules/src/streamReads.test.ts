import { erc20TransferEventAbi } from '@tributary/evm';
import type { FullBlockEvent } from '@tributary/schema';
import { describe, expect, it } from 'vitest';
import { compileStream } from './compileStream.ts';
import { IncompleteBlockError, TRANSFER_TOPIC, matchBlock } from './matchBlock.ts';
import type { StreamConfig } from '@tributary/schema';
import { streamReads } from './streamReads.ts';

const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;
const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as `0x${string}`;
const topicOf = (addr: string) => `0x${'0'.repeat(24)}${addr.slice(2)}` as `0x${string}`;
const TOKEN = a(0xaaa);
const WALLET = a(0xa1);
const OTHER = a(0xb0);
const FORWARDER = a(0xf0);

const tx = (i: number, from: string, to: string | null) => ({
  hash: h(100 + i),
  transactionIndex: i,
  from: from as `0x${string}`,
  to: to as `0x${string}` | null,
  value: '1000',
  gas: '21000',
  gasPrice: '1',
  nonce: i,
  input: '0x' as `0x${string}`,
  type: 2,
  v: '0',
  r: '1',
  s: '2',
  receipt: { cumulativeGasUsed: '21000', gasUsed: '21000', contractAddress: null, status: 1, root: null },
});

/** One block with something of every kind touching WALLET: a native transfer, a forwarded value, a Transfer log. */
function fullBlock(): FullBlockEvent {
  return {
    type: 'confirmed',
    v: 2,
    chainId: 31337,
    block: { number: 7, hash: h(7), parentHash: h(6), timestamp: 2_000_000_000 },
    transactions: [tx(0, OTHER, WALLET), tx(1, OTHER, FORWARDER), tx(2, OTHER, TOKEN)],
    logs: [
      {
        logIndex: 0,
        transactionHash: h(102),
        transactionIndex: 2,
        address: TOKEN,
        data: `0x${5n.toString(16).padStart(64, '0')}` as `0x${string}`,
        topics: [TRANSFER_TOPIC, topicOf(OTHER), topicOf(WALLET)],
      },
    ],
    internalTransactions: [
      { transactionHash: h(101), from: FORWARDER, to: WALLET, value: '700', gas: '2300', type: 'CALL' },
    ],
    transfers: [],
    tokens: [],
    tokenInfo: [],
    accounts: [],
    hasTransactions: true,
    hasInternalTransactions: true,
  };
}

/** The block without the parts a stream does not read (and saying so). */
function stripped(
  event: FullBlockEvent,
  keep: { transactions: boolean; internalTransactions: boolean },
): FullBlockEvent {
  return {
    ...event,
    transactions: keep.transactions ? event.transactions : [],
    hasTransactions: keep.transactions,
    internalTransactions: keep.internalTransactions ? event.internalTransactions : [],
    hasInternalTransactions: keep.internalTransactions,
  };
}

const FLAGS = ['includeContractLogs', 'includeNativeTxs', 'includeInternalTxs', 'includeAllTxLogs'] as const;

/** Every combination of the include flags, each with and without an advanced option that adds native txs, and with allAddresses. */
function configs(): Partial<StreamConfig>[] {
  const out: Partial<StreamConfig>[] = [];
  for (let mask = 0; mask < 1 << FLAGS.length; mask++) {
    const base: Partial<StreamConfig> = {};
    FLAGS.forEach((f, i) => {
      base[f] = (mask & (1 << i)) !== 0;
    });
    for (const advanced of [false, true]) {
      for (const all of [false, true]) {
        out.push({
          ...base,
          ...(all ? { allAddresses: true } : {}),
          ...(advanced
            ? { advancedOptions: [{ topic0: 'Transfer(address,address,uint256)', includeNativeTxs: true }] }
            : {}),
        });
      }
    }
  }
  return out;
}

const compile = (config: Partial<StreamConfig>) =>
  compileStream({
    id: '00000000-0000-4000-8000-000000000001',
    accountId: '00000000-0000-4000-8000-000000000002',
    status: 'active',
    startBlocks: {},
    addresses: [WALLET],
    config: {
      webhookUrl: 'http://x',
      description: 'd',
      tag: 't',
      chainIds: ['0x7a69'],
      topic0: ['Transfer(address,address,uint256)'],
      abi: [erc20TransferEventAbi],
      ...config,
    },
  });

describe('streamReads: what a stream reads of a block beyond its logs', () => {
  it('is exactly what matchBlock reads: a block without the rest gives every kind of stream the same webhook', () => {
    const block = fullBlock();
    let reading = 0;
    for (const config of configs()) {
      const stream = compile(config);
      const reads = streamReads(stream.config);
      if (reads.transactions || reads.internalTransactions) reading++;
      const full = matchBlock(stream, block);
      const lean = matchBlock(stream, stripped(block, reads));
      expect({ config, body: lean?.body }).toEqual({ config, body: full?.body });
    }
    // The combinations do cover streams that read transactions and internal transactions.
    expect(reading).toBeGreaterThan(0);
  });

  it('names only what matchBlock reads: each part it names changes a webhook when missing', () => {
    const block = fullBlock();
    const withoutGuard = (config: Partial<StreamConfig>) => ({
      ...compile(config),
      reads: { transactions: false, internalTransactions: false },
    });
    const cases: [Partial<StreamConfig>, 'transactions' | 'internalTransactions'][] = [
      [{ includeNativeTxs: true }, 'transactions'],
      [
        {
          includeContractLogs: true,
          advancedOptions: [{ topic0: 'Transfer(address,address,uint256)', includeNativeTxs: true }],
        },
        'transactions',
      ],
      [{ includeInternalTxs: true }, 'internalTransactions'],
    ];
    for (const [config, part] of cases) {
      expect(streamReads(compile(config).config)[part]).toBe(true);
      const full = matchBlock(withoutGuard(config), block)?.body;
      const keep = {
        transactions: part !== 'transactions',
        internalTransactions: part !== 'internalTransactions',
      };
      expect(matchBlock(withoutGuard(config), stripped(block, keep))?.body).not.toEqual(full);
    }
  });

  it('is enforced: a stream is never evaluated against a block that lacks what it reads', () => {
    const block = fullBlock();
    const native = compile({ includeNativeTxs: true });
    const internal = compile({ includeInternalTxs: true });
    const logsOnly = compile({ includeContractLogs: true });
    const lean = stripped(block, { transactions: false, internalTransactions: false });
    expect(() => matchBlock(native, lean)).toThrow(IncompleteBlockError);
    expect(() =>
      matchBlock(internal, stripped(block, { transactions: true, internalTransactions: false })),
    ).toThrow(/reads internal transactions, which block 7/);
    expect(matchBlock(logsOnly, lean)?.body.erc20Transfers).toHaveLength(1);
  });
});
