import { type TokenMetadata, type WalletTransferRecord, findWalletTransfers } from '@tributary/db/queries';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addr,
  blockHash,
  blockTime,
  insertBlocks,
  insertTransfers,
  setLabel,
  txHash,
} from '../testing/chainFixtures.ts';
import { type TestDatabase, createTestDatabase } from '../testing/testDatabase.ts';
import { transferRecordJson } from './transferRecordJson.ts';

// The record's own members are written by PostgreSQL (findWalletTransfers): read them from a real
// database, then check the whole record the gateway puts around them.
const CHAIN = 1;
const BLOCK = 18_000_123;
const TOKEN = addr('record-token');
const FROM = addr('record-from');
const TO = addr('record-to');
const MAX = 2n ** 256n - 1n;

const token: TokenMetadata = {
  address: TOKEN,
  name: 'Quote "Token"\n\u2028é',
  symbol: 'Q\\T',
  decimals: 18,
  logo: null,
  possibleSpam: false,
  verified: true,
};

let db: TestDatabase;
let record: WalletTransferRecord;
let zero: WalletTransferRecord;

beforeAll(async () => {
  db = await createTestDatabase();
  await insertBlocks(db.pool, CHAIN, [BLOCK, BLOCK + 1]);
  await insertTransfers(db.pool, [
    { chainId: CHAIN, block: BLOCK, logIndex: 7, txIndex: 3, token: TOKEN, from: FROM, to: TO, value: MAX },
    { chainId: CHAIN, block: BLOCK + 1, logIndex: 0, token: TOKEN, from: TO, to: FROM, value: 0n },
  ]);
  await setLabel(db.pool, CHAIN, FROM, 'Exchange "Hot"\\\n\u0001 ü');
  const page = await findWalletTransfers(db.pool, { chainId: CHAIN, wallet: FROM, order: 'ASC', limit: 10 });
  [record, zero] = page.records as [WalletTransferRecord, WalletTransferRecord];
});

afterAll(async () => {
  await db?.drop();
});

describe('transferRecordJson', () => {
  it('writes the record fields in the spec order with exact integers and escaped strings', () => {
    expect(record).toMatchObject({
      blockNumber: BLOCK,
      logIndex: 7,
      tokenAddress: TOKEN,
      value: String(MAX),
    });
    const json = transferRecordJson(record, token);
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
      transaction_hash: txHash(CHAIN, BLOCK, 3),
      address: TOKEN,
      block_timestamp: blockTime(BLOCK).toISOString(),
      block_number: BLOCK,
      block_hash: blockHash(CHAIN, BLOCK),
      to_address: TO,
      to_address_label: null,
      from_address: FROM,
      from_address_label: 'Exchange "Hot"\\\n\u0001 ü',
      value: expect.any(Number),
      transaction_index: 3,
      log_index: 7,
      possible_spam: false,
      verified_collection: true,
      verified_contract: true,
      value_decimal: '115792089237316195423570985008687907853269984665640564039457.584007913129639935',
    });
    // Every digit of a uint256 survives on the wire (JSON.parse would round it to a double).
    expect(json).toContain(`"value":${MAX},`);
  });

  it('writes null decimals as null token_decimals and value_decimal', () => {
    const parsed = JSON.parse(transferRecordJson(zero, { ...token, decimals: null }));
    expect(parsed).toMatchObject({
      token_decimals: null,
      value_decimal: null,
      value: 0,
      to_address_label: 'Exchange "Hot"\\\n\u0001 ü',
      from_address_label: null,
    });
  });

  it('writes a token with no stored metadata as nulls and false flags', () => {
    expect(JSON.parse(transferRecordJson(record, null))).toMatchObject({
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
