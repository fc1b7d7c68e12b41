import { RpcRequestError } from 'viem';
import { describe, expect, it } from 'vitest';
import { readRangeHint } from './readRangeHint.ts';

const url = 'http://node';
const rpcError = (code: number, message: string) =>
  new RpcRequestError({ body: {}, error: { code, message }, url });

describe('readRangeHint', () => {
  it('reads the suggested or fixed range of each provider style, nothing from the others', () => {
    expect(
      [
        rpcError(-32005, 'query returned more than 10000 results. Try with this block range [0x10, 0x1f].'),
        rpcError(-32602, 'Log response size exceeded. ... this block range should work: [0x100, 0x163]'),
        rpcError(-32602, 'this block range should work: [100, 149]'),
        rpcError(-32000, 'Max block range is 500'),
        rpcError(-32000, 'eth_getLogs is limited to a 1,000 block range'),
        rpcError(-32600, 'block range is too wide'),
        rpcError(-32005, 'query returned more than 10000 results'),
      ].map((e) => readRangeHint(e)),
    ).toEqual([
      { blocks: 16, fixed: false },
      { blocks: 100, fixed: false },
      { blocks: 50, fixed: false },
      { blocks: 500, fixed: true },
      { blocks: 1000, fixed: true },
      undefined,
      undefined,
    ]);
  });
});
