import { erc20TransferEventAbi } from '@tributary/evm';
import { type FullBlockEvent, type WebhookBody, webhookBody } from '@tributary/schema';
import { describe, expect, it } from 'vitest';
import { compileStream } from './compileStream.ts';
import { APPROVAL_TOPIC, TRANSFER_TOPIC, matchBlock } from './matchBlock.ts';
import type { StreamConfig } from '@tributary/schema';

// Every body the builders make, for every kind of stream, is of the webhook body contract
// (packages/schema), parsed strictly: a member the builders add without adding it to the contract,
// an amount as a number, an upper-case address or a null where the contract says absent fails here.
const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;
const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as `0x${string}`;
const word = (n: bigint | number | string) =>
  (typeof n === 'string' ? n.slice(2) : n.toString(16)).padStart(64, '0');
const topic = (n: bigint | number | string) => `0x${word(n)}` as `0x${string}`;
const APPROVAL_FOR_ALL = '0x17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31';
const TRANSFER_SINGLE = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62';

const COIN = a(0x20);
const NFT = a(0x721);
const MULTI = a(0x1155);
const ALICE = a(0xa1);
const BOB = a(0xb0);
const OP = a(0x0f);

const log = (i: number, address: `0x${string}`, topics: `0x${string}`[], data = '0x') => ({
  logIndex: i,
  transactionHash: h(0x100 + (i % 2)),
  transactionIndex: i % 2,
  address,
  data: data as `0x${string}`,
  topics,
});

const tx = (i: number, to: `0x${string}` | null) => ({
  hash: h(0x100 + i),
  transactionIndex: i,
  from: ALICE,
  to,
  value: (10n ** 30n).toString(),
  gas: '90000',
  gasPrice: i === 0 ? '7' : null,
  nonce: i,
  input: '0xa9059cbb' as `0x${string}`,
  type: 2,
  v: i === 0 ? '1' : null,
  r: i === 0 ? '123' : null,
  s: i === 0 ? '456' : null,
  receipt: {
    cumulativeGasUsed: '60000',
    gasUsed: '30000',
    contractAddress: to === null ? MULTI : null,
    status: i === 0 ? 1 : null,
    root: i === 0 ? null : h(0x600d),
  },
});

/** One block with an item of every kind: two transactions, a trace frame, ERC20 and NFT logs. */
const BLOCK: FullBlockEvent = {
  type: 'confirmed',
  v: 2,
  chainId: 31337,
  block: { number: 9, hash: h(9), parentHash: h(8), timestamp: 2_000_000_000 },
  transactions: [tx(0, COIN), tx(1, null)],
  logs: [
    log(0, COIN, [TRANSFER_TOPIC, topic(ALICE), topic(BOB)], topic(2n ** 200n)),
    log(1, COIN, [APPROVAL_TOPIC, topic(ALICE), topic(OP)], topic(5)),
    log(2, NFT, [TRANSFER_TOPIC, topic(ALICE), topic(BOB), topic(7)]),
    log(3, NFT, [APPROVAL_TOPIC, topic(BOB), topic(OP), topic(7)]),
    log(4, MULTI, [APPROVAL_FOR_ALL, topic(ALICE), topic(OP)], topic(1)),
    log(5, MULTI, [TRANSFER_SINGLE, topic(OP), topic(ALICE), topic(BOB)], `0x${word(3)}${word(2n ** 70n)}`),
    // A log of a contract without metadata: "" for name, symbol and decimals.
    log(6, a(0x99), [TRANSFER_TOPIC, topic(BOB), topic(ALICE)], topic(1)),
  ],
  internalTransactions: [
    { transactionHash: h(0x100), from: COIN, to: ALICE, value: '700', gas: '2300', type: 'CALL' },
  ],
  transfers: [],
  tokens: [],
  tokenInfo: [
    { address: COIN, name: 'Coin', symbol: 'CN', decimals: 6 },
    { address: NFT, name: 'Kitties', symbol: 'KIT', decimals: null, contractType: 'ERC721' },
    { address: MULTI, name: 'Items', symbol: 'ITM', decimals: null, contractType: 'ERC1155' },
  ],
  accounts: [],
  hasTransactions: true,
  hasInternalTransactions: true,
};

const approvalEventAbi = {
  ...erc20TransferEventAbi,
  name: 'Approval',
  inputs: [
    { indexed: true, name: 'owner', type: 'address' },
    { indexed: true, name: 'spender', type: 'address' },
    { indexed: false, name: 'value', type: 'uint256' },
  ],
};

function bodyOf(config: Partial<StreamConfig>, confirmed = true): WebhookBody {
  const stream = compileStream({
    id: '00000000-0000-4000-8000-000000000001',
    accountId: '00000000-0000-4000-8000-000000000002',
    status: 'active',
    startBlocks: {},
    addresses: [ALICE],
    config: { webhookUrl: 'http://x', description: 'd', tag: 'every-kind', chainIds: ['0x7a69'], ...config },
  });
  const match = matchBlock(stream, { ...BLOCK, type: confirmed ? 'confirmed' : 'new' });
  if (!match) throw new Error(`nothing matched ${JSON.stringify(config)}`);
  return match.body;
}

/** A stream of each kind, and the body member it must fill. */
const KINDS: [string, Partial<StreamConfig>, (b: WebhookBody) => unknown[]][] = [
  [
    'logs',
    {
      includeContractLogs: true,
      topic0: ['Transfer(address,address,uint256)', 'Approval(address,address,uint256)'],
      abi: [erc20TransferEventAbi, approvalEventAbi],
    },
    (b) => b.logs,
  ],
  ['native txs', { includeNativeTxs: true }, (b) => b.txs],
  ['internal txs', { includeInternalTxs: true }, (b) => b.txsInternal],
  ['erc20 transfers', { includeContractLogs: true, allAddresses: true }, (b) => b.erc20Transfers],
  ['erc20 approvals', { includeContractLogs: true, allAddresses: true }, (b) => b.erc20Approvals],
  ['nft transfers', { includeContractLogs: true, allAddresses: true }, (b) => b.nftTransfers],
  ['nft token approvals', { includeContractLogs: true, allAddresses: true }, (b) => b.nftTokenApprovals],
  [
    'deprecated ERC721 approvals',
    { includeContractLogs: true, allAddresses: true },
    (b) => b.nftApprovals.ERC721,
  ],
  [
    'deprecated ERC1155 approvals',
    { includeContractLogs: true, allAddresses: true },
    (b) => b.nftApprovals.ERC1155,
  ],
  [
    'all addresses, every flag',
    {
      includeContractLogs: true,
      includeNativeTxs: true,
      includeInternalTxs: true,
      allAddresses: true,
      includeAllTxLogs: true,
    },
    (b) => b.logs,
  ],
];

describe('the bodies matchBlock builds fit the webhook body contract', () => {
  it.each(KINDS)('%s', (_name, config, items) => {
    for (const confirmed of [true, false]) {
      const body = bodyOf(config, confirmed);
      expect(items(body).length, 'the stream fills its member').toBeGreaterThan(0);
      // Through the bytes, as a receiver gets them.
      const parsed = webhookBody.safeParse(JSON.parse(JSON.stringify(body)));
      expect(parsed.error?.issues).toBeUndefined();
      expect(parsed.data).toEqual(body);
    }
  });

  it('fits the members the sender and the enrichment add: triggers, native balances, the extras', () => {
    const body = bodyOf({ includeContractLogs: true, includeNativeTxs: true, allAddresses: true });
    const trigger = [{ name: 'balance', value: '12' }];
    const enriched: WebhookBody = {
      ...body,
      removed: true,
      backfillId: '17',
      sequence: '42',
      retries: 3,
      logs: body.logs.map((l) => ({ ...l, triggers: trigger })),
      txs: body.txs.map((t) => ({ ...t, triggers: [{ name: 'error', value: 'execution reverted' }] })),
      erc20Transfers: body.erc20Transfers.map((t) => ({ ...t, triggers: trigger })),
      nftTransfers: body.nftTransfers.map((t) => ({ ...t, triggers: trigger })),
      nativeBalances: [{ address: ALICE, balance: (10n ** 24n).toString() }],
    };
    expect(webhookBody.safeParse(JSON.parse(JSON.stringify(enriched))).error?.issues).toBeUndefined();
  });

  it('refuses what the wire never carries: an unknown member, an upper-case address, a number amount', () => {
    const body = bodyOf({ includeContractLogs: true, allAddresses: true });
    const [transfer] = body.erc20Transfers;
    const wrong = [
      { ...body, extra: 1 },
      { ...body, erc20Transfers: [{ ...transfer, from: ALICE.toUpperCase().replace('0X', '0x') }] },
      { ...body, erc20Transfers: [{ ...transfer, value: 5 }] },
      { ...body, block: { ...body.block, number: 9 } },
      { ...body, sequence: undefined, backfillId: null },
    ];
    for (const w of wrong)
      expect(webhookBody.safeParse(w).success, JSON.stringify(w).slice(0, 80)).toBe(false);
  });
});
