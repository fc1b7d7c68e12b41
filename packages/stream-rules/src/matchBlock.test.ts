import { erc20TransferEventAbi } from '@tributary/evm';
import type { FullBlockEvent } from '@tributary/schema';
import { describe, expect, it } from 'vitest';
import { compileStream } from './compileStream.ts';
import { evaluateFilter } from './evaluateFilter.ts';
import { APPROVAL_TOPIC, TRANSFER_TOPIC, matchBlock } from './matchBlock.ts';
import type { StreamConfig } from '@tributary/schema';

const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;
const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as `0x${string}`;
const topicOf = (addr: string) => `0x${'0'.repeat(24)}${addr.slice(2)}` as `0x${string}`;
const TOKEN = a(0xaaa);
const ALICE = a(0xa1);
const BOB = a(0xb0);

function block(values: bigint[]): FullBlockEvent {
  return {
    type: 'new',
    v: 2,
    chainId: 31337,
    block: { number: 7, hash: h(7), parentHash: h(6), timestamp: 2_000_000_000 },
    transactions: [],
    logs: values.map((v, i) => ({
      logIndex: i,
      transactionHash: h(100 + i),
      transactionIndex: i,
      address: TOKEN,
      data: `0x${v.toString(16).padStart(64, '0')}` as `0x${string}`,
      topics: [TRANSFER_TOPIC, topicOf(ALICE), topicOf(BOB)],
    })),
    internalTransactions: [],
    transfers: [],
    tokens: [{ address: TOKEN, name: 'Tok', symbol: 'TK', decimals: 18, totalSupply: '0', readAtBlock: 6 }],
    tokenInfo: [],
    accounts: [],
    hasTransactions: true,
    hasInternalTransactions: false,
  };
}

function stream(config: Partial<StreamConfig>, addresses: string[]) {
  return compileStream({
    id: '00000000-0000-4000-8000-000000000001',
    accountId: '00000000-0000-4000-8000-000000000002',
    status: 'active',
    startBlocks: {},
    addresses,
    config: {
      webhookUrl: 'http://x',
      description: 'd',
      tag: 'tag1',
      chainIds: ['0x7a69'],
      includeContractLogs: true,
      topic0: ['Transfer(address,address,uint256)'],
      abi: [erc20TransferEventAbi],
      ...config,
    },
  });
}

describe('matchBlock', () => {
  it('matches logs of a watched contract and extracts ERC20 transfers', () => {
    const m = matchBlock(stream({}, [TOKEN]), block([5n]));
    expect(m?.body.logs).toHaveLength(1);
    expect(m?.body.erc20Transfers).toEqual([
      {
        transactionHash: h(100),
        logIndex: '0',
        contract: TOKEN,
        from: ALICE,
        to: BOB,
        value: '5',
        tokenName: 'Tok',
        tokenSymbol: 'TK',
        tokenDecimals: '18',
        valueWithDecimals: '0.000000000000000005',
        possibleSpam: false,
      },
    ]);
  });

  it('extracts ERC20 approvals with owner and spender, and no transfer from them', () => {
    const approvalAbi = {
      ...erc20TransferEventAbi,
      name: 'Approval',
      inputs: [
        { indexed: true, name: 'owner', type: 'address' },
        { indexed: true, name: 'spender', type: 'address' },
        { indexed: false, name: 'value', type: 'uint256' },
      ],
    };
    const event = block([7n, 2n ** 70n]);
    event.logs[1]!.topics = [APPROVAL_TOPIC, topicOf(ALICE), topicOf(BOB)];
    const s = stream(
      {
        topic0: ['Transfer(address,address,uint256)', 'Approval(address,address,uint256)'],
        abi: [erc20TransferEventAbi, approvalAbi],
      },
      [TOKEN],
    );
    const m = matchBlock(s, event);
    expect(m?.body.erc20Transfers.map((t) => t.logIndex)).toEqual(['0']);
    expect(m?.body.erc20Approvals).toEqual([
      {
        transactionHash: h(101),
        logIndex: '1',
        contract: TOKEN,
        owner: ALICE,
        spender: BOB,
        value: (2n ** 70n).toString(),
        tokenName: 'Tok',
        tokenSymbol: 'TK',
        tokenDecimals: '18',
        valueWithDecimals: '1180.591620717411303424',
        possibleSpam: false,
      },
    ]);
  });

  it('matches a watched wallet through indexed topics; ignores unwatched ones', () => {
    expect(matchBlock(stream({}, [BOB]), block([1n]))?.logsCount).toBe(1);
    expect(matchBlock(stream({}, [a(0xdead)]), block([1n]))).toBeUndefined();
    expect(matchBlock(stream({ allAddresses: true }, []), block([1n]))?.logsCount).toBe(1);
  });

  it('applies advancedOptions filters with uint256-safe comparisons', () => {
    const big = 2n ** 255n;
    const s = stream(
      {
        advancedOptions: [
          { topic0: 'Transfer(address,address,uint256)', filter: { gt: ['value', (big - 1n).toString()] } },
        ],
      },
      [TOKEN],
    );
    const m = matchBlock(s, block([big, big - 1n, 3n]));
    expect(m?.body.logs.map((l) => l.logIndex)).toEqual(['0']);
  });

  it('evaluates and/or/in/nin and address equality case-insensitively', () => {
    const fields = { from: ALICE.toUpperCase().replace('0X', '0x'), value: 10n };
    expect(evaluateFilter({ and: [{ eq: ['from', ALICE] }, { gte: ['value', '10'] }] }, fields)).toBe(true);
    expect(evaluateFilter({ or: [{ lt: ['value', '10'] }, { in: ['from', [BOB, ALICE]] }] }, fields)).toBe(
      true,
    );
    expect(evaluateFilter({ nin: ['from', [ALICE]] }, fields)).toBe(false);
    expect(evaluateFilter({ ne: ['value', '10'] }, fields)).toBe(false);
  });

  it('shares decoded fields across streams of one block only when their event shapes agree', () => {
    const event = block([5n, 50n, 500n]);
    const bigOnes = stream(
      {
        advancedOptions: [{ topic0: 'Transfer(address,address,uint256)', filter: { gte: ['value', '50'] } }],
      },
      [TOKEN],
    );
    const smallOnes = stream(
      { advancedOptions: [{ topic0: 'Transfer(address,address,uint256)', filter: { lt: ['value', '50'] } }] },
      [TOKEN],
    );
    // Same selector, other parameter names: its filter reads its own names, never the shared "value".
    const renamedAbi = {
      ...erc20TransferEventAbi,
      inputs: [
        { indexed: true, name: 'src', type: 'address' },
        { indexed: true, name: 'dst', type: 'address' },
        { indexed: false, name: 'wad', type: 'uint256' },
      ],
    };
    const renamed = stream(
      {
        abi: [renamedAbi],
        advancedOptions: [{ topic0: 'Transfer(address,address,uint256)', filter: { eq: ['wad', '500'] } }],
      },
      [TOKEN],
    );
    const logIndexes = (s: ReturnType<typeof stream>) =>
      matchBlock(s, event)?.body.logs.map((l) => l.logIndex);
    expect(logIndexes(bigOnes)).toEqual(['1', '2']);
    expect(logIndexes(smallOnes)).toEqual(['0']);
    expect(logIndexes(renamed)).toEqual(['2']);
    expect(logIndexes(bigOnes)).toEqual(['1', '2']);
  });
});
