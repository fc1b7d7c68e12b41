import type { TokenMetadata, WalletTransferRow } from '@tributary/db';
import { describe, expect, it } from 'vitest';
import { transferRecordJson } from './transferRecordJson.ts';

const row: WalletTransferRow = {
  chainId: 1,
  blockNumber: 18_000_123,
  logIndex: 7,
  blockHash: `0x${'ab'.repeat(32)}`,
  blockTimestamp: new Date(Date.UTC(2024, 1, 29, 12, 0, 5)),
  transactionHash: `0x${'cd'.repeat(32)}`,
  transactionIndex: 3,
  tokenAddress: `0x${'11'.repeat(20)}`,
  fromAddress: `0x${'22'.repeat(20)}`,
  toAddress: `0x${'33'.repeat(20)}`,
  value: 2n ** 256n - 1n,
  fromLabel: 'Exchange',
  toLabel: null,
};

const token: TokenMetadata = {
  address: `0x${'11'.repeat(20)}`,
  name: 'Quote "Token"\n\u2028é',
  symbol: 'Q\\T',
  decimals: 18,
  logo: null,
  possibleSpam: false,
  verified: true,
};

describe('transferRecordJson', () => {
  it('writes the record fields in the spec order with exact integers and escaped strings', () => {
    const json = transferRecordJson(row, token);
    expect(Object.keys(JSON.parse(json))).toEqual([
      'token_name',
      'token_symbol',
      'token_logo',
      'token_decimals',
      'transaction_hash',
      'address',
      'block_timestamp',
      'block_number',
      'block_hash',
      'to_address',
      'to_address_label',
      'from_address',
      'from_address_label',
      'value',
      'transaction_index',
      'log_index',
      'possible_spam',
      'verified_collection',
      'verified_contract',
      'value_decimal',
    ]);
    expect(JSON.parse(json)).toEqual({
      token_name: 'Quote "Token"\n\u2028é',
      token_symbol: 'Q\\T',
      token_logo: null,
      token_decimals: '18',
      transaction_hash: row.transactionHash,
      address: row.tokenAddress,
      block_timestamp: '2024-02-29T12:00:05.000Z',
      block_number: 18_000_123,
      block_hash: row.blockHash,
      to_address: row.toAddress,
      to_address_label: null,
      from_address: row.fromAddress,
      from_address_label: 'Exchange',
      value: expect.any(Number),
      transaction_index: 3,
      log_index: 7,
      possible_spam: false,
      verified_collection: true,
      verified_contract: true,
      value_decimal: '115792089237316195423570985008687907853269984665640564039457.584007913129639935',
    });
    // Every digit of a uint256 survives on the wire (JSON.parse would round it to a double).
    expect(json).toContain(`"value":${2n ** 256n - 1n},`);
  });

  it('writes null decimals as null token_decimals and value_decimal', () => {
    const parsed = JSON.parse(transferRecordJson({ ...row, value: 0n }, { ...token, decimals: null }));
    expect(parsed).toMatchObject({ token_decimals: null, value_decimal: null, value: 0 });
  });

  it('writes a token with no stored metadata as nulls and false flags', () => {
    expect(JSON.parse(transferRecordJson(row, null))).toMatchObject({
      token_name: null,
      token_symbol: null,
      token_logo: null,
      token_decimals: null,
      possible_spam: false,
      verified_collection: false,
      verified_contract: false,
      value_decimal: null,
    });
  });
});
