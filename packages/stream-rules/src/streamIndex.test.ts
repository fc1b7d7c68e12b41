import { erc20TransferEventAbi } from '@tributary/evm';
import type { FullBlockEvent } from '@tributary/schema';
import { decodeEventLog, encodeAbiParameters, encodeEventTopics, getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { compileStream } from './compileStream.ts';
import { abiEvents } from './eventSignature.ts';
import { TRANSFER_TOPIC, matchBlock } from './matchBlock.ts';
import type { StreamConfig } from '@tributary/schema';
import { StreamIndex } from './streamIndex.ts';

const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;
const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as `0x${string}`;
const word = (addr: string) => `0x${'0'.repeat(24)}${addr.slice(2)}` as `0x${string}`;

function stream(n: number, config: Partial<StreamConfig>, addresses: string[]) {
  return compileStream({
    id: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
    accountId: '00000000-0000-4000-8000-000000000000',
    status: 'active',
    startBlocks: {},
    addresses,
    config: {
      webhookUrl: 'http://x',
      description: 'd',
      tag: `t${n}`,
      chainIds: ['0x7a69'],
      includeContractLogs: true,
      topic0: ['Transfer(address,address,uint256)'],
      abi: [erc20TransferEventAbi],
      ...config,
    },
  });
}

const event: FullBlockEvent = {
  type: 'new',
  v: 2,
  chainId: 31337,
  block: { number: 5, hash: h(5), parentHash: h(4), timestamp: 1 },
  transactions: [1, 2, 3].map((i) => ({
    hash: h(100 + i),
    transactionIndex: i,
    from: a(i),
    to: a(10 + i),
    value: '1',
    gas: '21000',
    gasPrice: '1',
    nonce: i,
    input: '0x',
    type: 2,
    v: '1',
    r: '1',
    s: '1',
    receipt: { cumulativeGasUsed: '1', gasUsed: '1', contractAddress: null, status: 1, root: null },
  })),
  logs: [1, 2, 3, 4].map((i) => ({
    logIndex: i,
    transactionHash: h(100 + ((i % 3) + 1)),
    transactionIndex: (i % 3) + 1,
    address: a(0xaa0 + (i % 2)),
    data: `0x${(i * 1000).toString(16).padStart(64, '0')}` as `0x${string}`,
    topics: [TRANSFER_TOPIC, word(a(i)), word(a(20 + i))],
  })),
  internalTransactions: [
    { transactionHash: h(101), from: a(11), to: a(30), value: '5', gas: '1', type: 'CALL' },
  ],
  transfers: [],
  tokens: [],
  tokenInfo: [],
  accounts: [],
  hasTransactions: true,
  hasInternalTransactions: true,
};

describe('StreamIndex', () => {
  const streams = [
    stream(1, {}, [a(0xaa0)]),
    stream(2, { includeNativeTxs: true }, [a(2), a(12)]),
    stream(3, { includeInternalTxs: true, includeAllTxLogs: true }, [a(30)]),
    stream(
      4,
      {
        allAddresses: true,
        advancedOptions: [
          { topic0: 'Transfer(address,address,uint256)', filter: { gte: ['value', '3000'] } },
        ],
      },
      [],
    ),
    stream(5, {}, [a(0xdead)]),
    stream(6, { chainIds: ['0x1'] }, [a(0xaa0)]),
    stream(7, {}, [a(23), a(0xaa1)]),
  ];

  it('gives exactly the bodies that scanning the whole block per stream gives', () => {
    const index = new StreamIndex();
    for (const s of streams) index.upsert(s);
    const viaIndex = index.match(event, () => undefined).map((m) => [m.stream.id, m.match.body] as const);
    const scanned = streams
      .filter((s) => s.chainIds.has(event.chainId))
      .map((s) => [s.id, matchBlock(s, event)?.body] as const)
      .filter(([, b]) => b !== undefined);
    expect(new Map(viaIndex)).toEqual(new Map(scanned));
    expect(viaIndex.map(([id]) => (id as string).slice(-1)).sort()).toEqual(['1', '2', '3', '4', '7']);
    // What each body carries, worked out from the block by hand: log indexes, transactions, internal
    // transactions, and transfers as "logIndex:value".
    const carried = Object.fromEntries(
      viaIndex.map(([id, body]) => [
        id.slice(-1),
        {
          logs: body.logs.map((l) => l.logIndex),
          txs: body.txs.map((t) => t.hash),
          internal: body.txsInternal.map((t) => t.transactionHash),
          transfers: body.erc20Transfers.map((t) => `${t.logIndex}:${t.value}`),
        },
      ]),
    );
    expect(carried).toEqual({
      // The contract 0xaa0: logs 2 and 4.
      '1': { logs: ['2', '4'], txs: [], internal: [], transfers: ['2:2000', '4:4000'] },
      // a(2) sends log 2 and transaction 2 (to a(12)).
      '2': { logs: ['2'], txs: [h(102)], internal: [], transfers: ['2:2000'] },
      // a(30) receives the internal transaction of tx 1, whose log is 3.
      '3': { logs: ['3'], txs: [], internal: [h(101)], transfers: ['3:3000'] },
      // Every contract, values of at least 3000.
      '4': { logs: ['3', '4'], txs: [], internal: [], transfers: ['3:3000', '4:4000'] },
      // The contract 0xaa1 (logs 1 and 3), and a(23), which receives log 3.
      '7': { logs: ['1', '3'], txs: [], internal: [], transfers: ['1:1000', '3:3000'] },
    });
  });

  it('forgets removed streams and replaced address sets', () => {
    const index = new StreamIndex();
    for (const s of streams) index.upsert(s);
    index.remove(streams[0]!.id);
    index.upsert(stream(7, {}, [a(0xdead)]));
    const ids = index.match(event, () => undefined).map((m) => m.stream.id.slice(-1));
    expect(ids.sort()).toEqual(['2', '3', '4']);
    expect(index.size).toBe(6);
  });
});

describe('static event decoding', () => {
  it('decodes like viem, with lower-case addresses, and rejects logs that do not fit', () => {
    const event = {
      anonymous: false,
      inputs: [
        { indexed: true, name: 'owner', type: 'address' },
        { indexed: false, name: 'delta', type: 'int128' },
        { indexed: false, name: 'flag', type: 'bool' },
        { indexed: true, name: 'tag', type: 'bytes4' },
        { indexed: false, name: '', type: 'uint8' },
      ],
      name: 'Moved',
      type: 'event',
    } as const;
    const [decoder] = abiEvents([event]);
    const owner = getAddress(a(0xabcdef));
    const topics = encodeEventTopics({
      abi: [event],
      eventName: 'Moved',
      args: { owner, tag: '0xdeadbeef' },
    });
    const data = encodeAbiParameters(
      [{ type: 'int128' }, { type: 'bool' }, { type: 'uint8' }],
      [-5n, true, 200],
    );
    const viem = decodeEventLog({ abi: [event], topics: topics as [`0x${string}`], data })
      .args as unknown as unknown[];
    expect(decoder!.decode(topics as string[], data)).toEqual({
      owner: owner.toLowerCase(),
      delta: viem[1],
      flag: true,
      tag: '0xdeadbeef',
      '4': 200n,
    });
    expect(decoder!.decode(topics as string[], `${data}00`)).toBeUndefined();
    expect(decoder!.decode(topics.slice(0, 2) as string[], data)).toBeUndefined();
  });
});
