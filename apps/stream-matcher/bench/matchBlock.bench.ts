import type { ChainLog, ChainTransaction, FullBlockEvent } from '@tributary/schema';
import { StreamIndex, TRANSFER_TOPIC, compileStream } from '@tributary/stream-rules';
import type { StreamConfig } from '@tributary/schema';
import { addressTopic, envNumber, percentile, randomHex, writeResult } from '@tributary/testkit/bench';
import { erc20TransferEventAbi } from '@tributary/evm';

/**
 * In-process micro-benchmark of the matcher's hot function: one block of BENCH_LOGS logs (and
 * BENCH_TXS transactions) against BENCH_STREAMS streams watching BENCH_ADDRESSES addresses in
 * all, through the address index (StreamIndex.match: candidate selection, topic0, filters,
 * webhook bodies). Triggers, PostgreSQL and the queue are outside the measured function.
 * Run with --expose-gc for the memory figures.
 */
const streams = envNumber('BENCH_STREAMS', 10_000);
const addresses = envNumber('BENCH_ADDRESSES', 1_000_000);
const logsPerBlock = envNumber('BENCH_LOGS', 1_000);
const txsPerBlock = envNumber('BENCH_TXS', 200);
const blocks = envNumber('BENCH_BLOCKS', 300);
/** Share of log / tx ends that are watched addresses (the rest are random). */
const hitRate = envNumber('BENCH_HIT_RATE', 0.05);
const wildcardStreams = envNumber('BENCH_WILDCARD_STREAMS', 10);

const gc = (globalThis as { gc?: () => void }).gc;
const heap = () => {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return { heapUsedMiB: m.heapUsed / 2 ** 20, rssMiB: m.rss / 2 ** 20 };
};
const pick = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)]!;

const before = heap();
const t0 = performance.now();
const watched: string[] = new Array(addresses);
for (let i = 0; i < addresses; i++) watched[i] = randomHex(20);
const perStream = Math.max(1, Math.floor(addresses / streams));
const index = new StreamIndex();
for (let s = 0; s < streams; s++) {
  const wildcard = s < wildcardStreams;
  const config = {
    webhookUrl: 'https://example.com/hook',
    description: 'bench',
    tag: `s${s}`,
    chainIds: ['0x1'],
    includeContractLogs: true,
    includeNativeTxs: s % 5 === 0,
    topic0: ['Transfer(address,address,uint256)'],
    abi: [erc20TransferEventAbi],
    allAddresses: wildcard || undefined,
    // Every wildcard stream and one stream in a hundred filter on the decoded value.
    advancedOptions:
      wildcard || s % 100 === 0
        ? [{ topic0: 'Transfer(address,address,uint256)', filter: { gt: ['value', String(10n ** 24n)] } }]
        : undefined,
  } as StreamConfig;
  index.upsert(
    compileStream({
      id: `00000000-0000-4000-8000-${s.toString(16).padStart(12, '0')}`,
      accountId: '00000000-0000-4000-8000-000000000000',
      status: 'active',
      startBlocks: {},
      config,
      addresses: wildcard ? [] : watched.slice(s * perStream, (s + 1) * perStream),
    }),
  );
}
const buildMs = performance.now() - t0;
const after = heap();

const end = () => (Math.random() < hitRate ? pick(watched) : randomHex(20));
function makeBlock(n: number): FullBlockEvent {
  const txs: ChainTransaction[] = [];
  for (let i = 0; i < txsPerBlock; i++) {
    txs.push({
      hash: randomHex(32),
      transactionIndex: i,
      from: end() as `0x${string}`,
      to: end() as `0x${string}`,
      value: '1000',
      gas: '21000',
      gasPrice: '1000000000',
      nonce: i,
      input: '0x',
      type: 2,
      v: '1',
      r: '1',
      s: '1',
      receipt: { cumulativeGasUsed: '21000', gasUsed: '21000', contractAddress: null, status: 1, root: null },
    });
  }
  const logs: ChainLog[] = [];
  for (let i = 0; i < logsPerBlock; i++) {
    const tx = txs[i % txs.length]!;
    const value = Math.random() < 0.01 ? 10n ** 25n : BigInt(Math.floor(Math.random() * 1e9));
    logs.push({
      logIndex: i,
      transactionHash: tx.hash,
      transactionIndex: tx.transactionIndex,
      address: (Math.random() < hitRate / 5 ? pick(watched) : randomHex(20)) as `0x${string}`,
      data: `0x${value.toString(16).padStart(64, '0')}`,
      topics:
        i % 10 === 9
          ? [randomHex(32), addressTopic(end())] // some other event
          : [TRANSFER_TOPIC, addressTopic(end()), addressTopic(end())],
    });
  }
  return {
    type: 'new',
    v: 2,
    chainId: 1,
    block: { number: n, hash: randomHex(32), parentHash: randomHex(32), timestamp: 1_700_000_000 + n },
    transactions: txs,
    logs,
    internalTransactions: [],
    transfers: [],
    tokens: [],
    tokenInfo: [],
    accounts: [],
    hasTransactions: true,
    hasInternalTransactions: false,
  };
}

const events = Array.from({ length: Math.min(blocks, 50) }, (_, i) => makeBlock(i));
const tokenInfo = () => undefined;
// Warm-up (JIT), then measure.
for (const e of events.slice(0, 10)) index.match(e, tokenInfo);
const times: number[] = [];
let bodies = 0;
let matchedLogs = 0;
for (let b = 0; b < blocks; b++) {
  const e = events[b % events.length]!;
  const t = performance.now();
  const matches = index.match(e, tokenInfo);
  times.push(performance.now() - t);
  bodies += matches.length;
  for (const m of matches) matchedLogs += m.match.logsCount;
}
times.sort((a, b) => a - b);
const result = {
  params: {
    streams,
    addresses,
    logsPerBlock,
    txsPerBlock,
    blocks,
    hitRate,
    wildcardStreams,
    nodeFlags: process.execArgv.filter((a) => a.startsWith('--max') || a === '--expose-gc'),
  },
  target: { p99MsPerBlock: 20 },
  msPerBlock: {
    p50: Number(percentile(times, 50).toFixed(2)),
    p99: Number(percentile(times, 99).toFixed(2)),
    mean: Number((times.reduce((a, b) => a + b, 0) / times.length).toFixed(2)),
    max: Number(times[times.length - 1]!.toFixed(2)),
  },
  webhooksPerBlock: Number((bodies / blocks).toFixed(1)),
  matchedLogsPerBlock: Number((matchedLogs / blocks).toFixed(1)),
  indexBuildSeconds: Number((buildMs / 1000).toFixed(1)),
  memory: {
    heapUsedMiB: Number((after.heapUsedMiB - before.heapUsedMiB).toFixed(0)),
    rssMiB: Number((after.rssMiB - before.rssMiB).toFixed(0)),
    note: 'streams, their address sets and the address index, measured after forced GC',
  },
};
console.log(
  `matchBlock: ${streams} streams, ${addresses} addresses, ${logsPerBlock} logs/block: p50 ${result.msPerBlock.p50} ms, p99 ${result.msPerBlock.p99} ms per block; ${result.webhooksPerBlock} webhooks/block; index ${result.memory.heapUsedMiB} MiB heap, built in ${result.indexBuildSeconds} s`,
);
console.log(`written ${writeResult('matcher-match-block', result)}`);
