import { describe, expect, it } from 'vitest';
import { decodeNftEvent } from './decodeNftEvent.ts';

const pad = (hex: string) => `0x${hex.replace(/^0x/, '').padStart(64, '0')}` as `0x${string}`;
const A = `0x${'1'.repeat(40)}`;
const B = `0x${'2'.repeat(40)}`;
const OP = `0x${'3'.repeat(40)}`;
const log = (topics: string[], data = '0x') => ({
  logIndex: 0,
  transactionHash: `0x${'9'.repeat(64)}` as `0x${string}`,
  transactionIndex: 0,
  address: `0x${'a'.repeat(40)}` as `0x${string}`,
  topics: topics as `0x${string}`[],
  data: data as `0x${string}`,
});
// The topic0s written out, so that a wrong constant in signatures.ts fails here.
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const APPROVAL = '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925';
const APPROVAL_FOR_ALL = '0x17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31';
const TRANSFER_SINGLE = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62';
const TRANSFER_BATCH = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb';

describe('decodeNftEvent', () => {
  it('reads an ERC721 Transfer: the token id is the third indexed topic, the amount 1', () => {
    expect(decodeNftEvent(log([TRANSFER, pad(A), pad(B), pad('ff')]))).toEqual({
      type: 'transfer',
      standard: 'ERC721',
      operator: null,
      from: A,
      to: B,
      items: [{ tokenId: '255', amount: '1' }],
    });
  });

  it('never takes an ERC20 Transfer or Approval (3 topics, value in data) for an NFT event', () => {
    expect(decodeNftEvent(log([TRANSFER, pad(A), pad(B)], pad('5')))).toBeUndefined();
    expect(decodeNftEvent(log([APPROVAL, pad(A), pad(B)], pad('5')))).toBeUndefined();
  });

  it('reads an ERC721 Approval of one token', () => {
    expect(decodeNftEvent(log([APPROVAL, pad(A), pad(B), pad('7')]))).toEqual({
      type: 'approval',
      standard: 'ERC721',
      owner: A,
      approved: B,
      tokenId: '7',
    });
  });

  it('reads ApprovalForAll, granted and revoked', () => {
    expect(decodeNftEvent(log([APPROVAL_FOR_ALL, pad(A), pad(OP)], pad('1')))).toEqual({
      type: 'approvalForAll',
      owner: A,
      operator: OP,
      approved: true,
    });
    expect(decodeNftEvent(log([APPROVAL_FOR_ALL, pad(A), pad(OP)], pad('0')))).toMatchObject({
      approved: false,
    });
  });

  it('reads an ERC1155 TransferSingle with an amount above 2^64 exactly', () => {
    const data = `${pad('2a')}${pad((2n ** 70n + 3n).toString(16)).slice(2)}`;
    expect(decodeNftEvent(log([TRANSFER_SINGLE, pad(OP), pad(A), pad(B)], data))).toEqual({
      type: 'transfer',
      standard: 'ERC1155',
      operator: OP,
      from: A,
      to: B,
      items: [{ tokenId: '42', amount: '1180591620717411303427' }],
    });
  });

  it('reads an ERC1155 TransferBatch as one movement per id', () => {
    // (uint256[] ids, uint256[] values): two offsets, then each array's length and words.
    const words = ['40', 'a0', '2', '1', '2', '2', '5', '6'];
    const data = `0x${words.map((w) => pad(w).slice(2)).join('')}`;
    expect(decodeNftEvent(log([TRANSFER_BATCH, pad(OP), pad(A), pad(B)], data))).toEqual({
      type: 'transfer',
      standard: 'ERC1155',
      operator: OP,
      from: A,
      to: B,
      items: [
        { tokenId: '1', amount: '5' },
        { tokenId: '2', amount: '6' },
      ],
    });
  });

  it('leaves malformed logs out', () => {
    expect(decodeNftEvent(log([TRANSFER_BATCH, pad(OP), pad(A), pad(B)], '0x1234'))).toBeUndefined();
    expect(decodeNftEvent(log([TRANSFER_SINGLE, pad(OP), pad(A), pad(B)], pad('1')))).toBeUndefined();
    expect(decodeNftEvent(log([APPROVAL_FOR_ALL, pad(A), pad(OP)], pad('2')))).toBeUndefined();
    expect(decodeNftEvent(log([TRANSFER, `0x${'f'.repeat(64)}`, pad(B), pad('1')]))).toBeUndefined();
  });
});
