import { erc20TransferEventAbi } from '@tributary/evm';
import type { ChainLog, FullBlockEvent } from '@tributary/schema';
import { describe, expect, it } from 'vitest';
import { compileStream } from './compileStream.ts';
import { matchBlock } from './matchBlock.ts';
import { itemKindOf, resolveSelector } from './selectors.ts';
import type { StreamConfig } from '@tributary/schema';
import { compileTriggers, planTriggerCall } from './triggers.ts';

// The NFT items of a webhook, read through matchBlock as the matcher builds the body. The
// topic0s and words are written out, so that the production constants are checked, not reused.
const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;
const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as `0x${string}`;
const word = (n: bigint | number | string) =>
  (typeof n === 'string' ? n.slice(2) : n.toString(16)).padStart(64, '0');
const topic = (n: bigint | number | string) => `0x${word(n)}` as `0x${string}`;
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const APPROVAL = '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925';
const APPROVAL_FOR_ALL = '0x17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31';
const TRANSFER_SINGLE = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62';
const TRANSFER_BATCH = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb';

const NFT = a(0x721);
const MULTI = a(0x1155);
const ERC20 = a(0x20);
const ALICE = a(0xa1);
const BOB = a(0xb0);
const OP = a(0x0f);

function log(i: number, address: string, topics: string[], data = '0x'): ChainLog {
  return {
    logIndex: i,
    transactionHash: h(0x100 + i),
    transactionIndex: i,
    address: address as `0x${string}`,
    data: data as `0x${string}`,
    topics: topics as `0x${string}`[],
  };
}

const LOGS: ChainLog[] = [
  // ERC721 Transfer of token 7, Approval of token 7 and ApprovalForAll to OP.
  log(0, NFT, [TRANSFER, topic(ALICE), topic(BOB), topic(7)]),
  log(1, NFT, [APPROVAL, topic(BOB), topic(OP), topic(7)]),
  log(2, NFT, [APPROVAL_FOR_ALL, topic(BOB), topic(OP)], topic(1)),
  // ERC1155 TransferSingle (id 3, amount 2^70), TransferBatch (ids 1, 2 amounts 10, 20), ApprovalForAll revoked.
  log(3, MULTI, [TRANSFER_SINGLE, topic(OP), topic(ALICE), topic(BOB)], `0x${word(3)}${word(2n ** 70n)}`),
  log(
    4,
    MULTI,
    [TRANSFER_BATCH, topic(OP), topic(ALICE), topic(BOB)],
    `0x${[0x40, 0xa0, 2, 1, 2, 2, 10, 20].map(word).join('')}`,
  ),
  log(5, MULTI, [APPROVAL_FOR_ALL, topic(ALICE), topic(OP)], topic(0)),
  // An ERC20 Transfer of 5 units.
  log(6, ERC20, [TRANSFER, topic(ALICE), topic(BOB)], topic(5)),
];

function block(tokenInfo: FullBlockEvent['tokenInfo']): FullBlockEvent {
  return {
    type: 'new',
    v: 2,
    chainId: 31337,
    block: { number: 9, hash: h(9), parentHash: h(8), timestamp: 2_000_000_000 },
    transactions: [],
    logs: LOGS,
    internalTransactions: [],
    transfers: [],
    tokens: [],
    tokenInfo,
    accounts: [],
    hasTransactions: true,
    hasInternalTransactions: false,
  };
}

const INFO: FullBlockEvent['tokenInfo'] = [
  { address: NFT, name: 'Kitties', symbol: 'KIT', decimals: null, contractType: 'ERC721' },
  { address: MULTI, name: 'Items', symbol: 'ITM', decimals: null, contractType: 'ERC1155' },
  { address: ERC20, name: 'Coin', symbol: 'CN', decimals: 2 },
];

/**
 * An ABI claims its Transfer shape for every contract: erc20TransferEventAbi the ERC20 one (value not
 * indexed), this the ERC721 one (tokenId indexed).
 */
const erc721TransferAbi = {
  ...erc20TransferEventAbi,
  inputs: [
    { indexed: true, name: 'from', type: 'address' },
    { indexed: true, name: 'to', type: 'address' },
    { indexed: true, name: 'tokenId', type: 'uint256' },
  ],
};

function stream(config: Partial<StreamConfig> = {}) {
  return compileStream({
    id: '00000000-0000-4000-8000-000000000001',
    accountId: '00000000-0000-4000-8000-000000000002',
    status: 'active',
    startBlocks: {},
    addresses: [NFT, MULTI, ERC20],
    config: {
      webhookUrl: 'http://x',
      description: 'd',
      tag: 'nft',
      chainIds: ['0x7a69'],
      includeContractLogs: true,
      ...config,
    },
  });
}

const root = (i: number, contract: string) => ({
  transactionHash: h(0x100 + i),
  logIndex: String(i),
  contract,
});

describe('NFT items of a webhook', () => {
  it('fills nftTransfers: ERC721 with amount 1 and no operator, ERC1155 one entry per id with its operator', () => {
    const body = matchBlock(stream(), block(INFO))!.body;
    expect(body.nftTransfers).toEqual([
      {
        ...root(0, NFT),
        tokenContractType: 'ERC721',
        tokenName: 'Kitties',
        tokenSymbol: 'KIT',
        operator: null,
        from: ALICE,
        to: BOB,
        tokenId: '7',
        amount: '1',
        possibleSpam: false,
      },
      {
        ...root(3, MULTI),
        tokenContractType: 'ERC1155',
        tokenName: 'Items',
        tokenSymbol: 'ITM',
        operator: OP,
        from: ALICE,
        to: BOB,
        tokenId: '3',
        amount: '1180591620717411303424',
        possibleSpam: false,
      },
      {
        ...root(4, MULTI),
        tokenContractType: 'ERC1155',
        tokenName: 'Items',
        tokenSymbol: 'ITM',
        operator: OP,
        from: ALICE,
        to: BOB,
        tokenId: '1',
        amount: '10',
        possibleSpam: false,
      },
      {
        ...root(4, MULTI),
        tokenContractType: 'ERC1155',
        tokenName: 'Items',
        tokenSymbol: 'ITM',
        operator: OP,
        from: ALICE,
        to: BOB,
        tokenId: '2',
        amount: '20',
        possibleSpam: false,
      },
    ]);
  });

  it('keeps ERC721 Transfers out of erc20Transfers and ERC20 ones out of nftTransfers, whatever the ABI says', () => {
    for (const abi of [erc20TransferEventAbi, erc721TransferAbi]) {
      const body = matchBlock(
        stream({ abi: [abi], topic0: ['Transfer(address,address,uint256)'] }),
        block(INFO),
      )!.body;
      expect(body.erc20Transfers.map((t) => [t.logIndex, t.contract, t.value])).toEqual([['6', ERC20, '5']]);
      expect(body.nftTransfers.map((t) => [t.logIndex, t.contract, t.tokenId])).toEqual([['0', NFT, '7']]);
      expect(body.erc20Approvals).toEqual([]);
    }
  });

  it('carries only the logs its ABI can decode (the SDK decodes every log with it)', () => {
    const logsUnder = (abi: NonNullable<StreamConfig['abi']>[number], config: Partial<StreamConfig> = {}) =>
      matchBlock(
        stream({ abi: [abi], topic0: ['Transfer(address,address,uint256)'], ...config }),
        block(INFO),
      )!.body.logs.map((l) => [l.logIndex, l.topic3]);
    expect(logsUnder(erc20TransferEventAbi)).toEqual([['6', null]]);
    expect(logsUnder(erc721TransferAbi)).toEqual([['0', topic(7)]]);
    // includeAllTxLogs gathers the logs of the matched transactions again: the ERC721 one still stays out.
    const body = matchBlock(
      stream({
        abi: [erc20TransferEventAbi],
        topic0: ['Transfer(address,address,uint256)'],
        includeAllTxLogs: true,
      }),
      block(INFO),
    )!.body;
    expect(body.logs.map((l) => l.logIndex)).toEqual(['6']);
  });

  it('fills nftTokenApprovals and the deprecated nftApprovals split by standard', () => {
    const body = matchBlock(stream(), block(INFO))!.body;
    const meta721 = { tokenContractType: 'ERC721', tokenName: 'Kitties', tokenSymbol: 'KIT' };
    const meta1155 = { tokenContractType: 'ERC1155', tokenName: 'Items', tokenSymbol: 'ITM' };
    expect(body.nftTokenApprovals).toEqual([
      { ...root(1, NFT), ...meta721, account: BOB, operator: OP, approvedAll: false, tokenId: '7' },
      { ...root(2, NFT), ...meta721, account: BOB, operator: OP, approvedAll: true, tokenId: null },
      { ...root(5, MULTI), ...meta1155, account: ALICE, operator: OP, approvedAll: false, tokenId: null },
    ]);
    expect(body.nftApprovals).toEqual({
      ERC721: [{ ...root(1, NFT), ...meta721, owner: BOB, approved: OP, tokenId: '7' }],
      ERC1155: [{ ...root(5, MULTI), ...meta1155, account: ALICE, operator: OP, approved: false }],
    });
  });

  it('names unknown metadata "" and leaves an ApprovalForAll of an unknown standard out of the deprecated lists', () => {
    const body = matchBlock(stream(), block([]))!.body;
    expect(body.nftTransfers[0]).toMatchObject({
      tokenContractType: 'ERC721',
      tokenName: '',
      tokenSymbol: '',
    });
    expect(body.nftTokenApprovals.map((x) => [x.logIndex, x.tokenContractType])).toEqual([
      ['1', 'ERC721'],
      ['2', ''],
      ['5', ''],
    ]);
    expect(body.nftApprovals.ERC1155).toEqual([]);
  });

  it('flags transfers of contracts the operator marked as possible spam', () => {
    const spam = (address: string) =>
      address === MULTI ? { name: null, symbol: null, decimals: null, possibleSpam: true } : undefined;
    const body = matchBlock(stream(), block(INFO), spam)!.body;
    expect(body.nftTransfers.map((t) => [t.contract, t.tokenId, t.possibleSpam])).toEqual([
      [NFT, '7', false],
      [MULTI, '3', true],
      [MULTI, '1', true],
      [MULTI, '2', true],
    ]);
  });
});

describe('nfttransfer triggers and native balances', () => {
  const balanceOf = {
    type: 'function',
    name: 'balanceOf',
    stateMutability: 'view',
    inputs: [
      { name: 'account', type: 'address' },
      { name: 'id', type: 'uint256' },
    ],
    outputs: [{ name: 'held', type: 'uint256' }],
  };

  it('reads $contract, $to, $tokenId and $amount from the transfer item', () => {
    const body = matchBlock(stream(), block(INFO))!.body;
    const item = body.nftTransfers[3] as unknown as Record<string, unknown>;
    expect(itemKindOf('nftTransfer')).toBe('nfttransfer');
    expect(resolveSelector('nfttransfer', item, '$address')).toBe(MULTI);
    const [trigger] = compileTriggers({
      webhookUrl: 'http://x',
      description: 'd',
      tag: 't',
      chainIds: ['0x7a69'],
      triggers: [
        {
          type: 'nfttransfer',
          contractAddress: '$contract',
          functionAbi: balanceOf,
          inputs: ['$to', '$tokenId'],
        },
      ],
    });
    expect(planTriggerCall(trigger!, item)).toEqual({
      ok: true,
      call: {
        to: MULTI,
        // balanceOf(address,uint256) = 0x00fdd58e, then BOB and id 2.
        data: `0x00fdd58e${word(BOB)}${word(2)}`,
      },
    });
  });
});
