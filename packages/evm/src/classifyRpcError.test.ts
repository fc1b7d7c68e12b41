import { HttpRequestError, RpcRequestError, TimeoutError } from 'viem';
import { describe, expect, it } from 'vitest';
import { classifyRpcError } from './classifyRpcError.ts';

const url = 'http://node';
const rpcError = (code: number, message: string) =>
  new RpcRequestError({ body: {}, error: { code, message }, url });

describe('classifyRpcError', () => {
  it('tells the providers answers apart by what they ask of us', () => {
    const cases: [unknown, string][] = [
      [
        new HttpRequestError({ url, status: 429, headers: new Headers({ 'retry-after': '2' }) }),
        'rate-limited:2000',
      ],
      [rpcError(429, 'Too Many Requests'), 'rate-limited:-'],
      [rpcError(-32005, 'Your app has exceeded its compute units per second capacity'), 'rate-limited:-'],
      [rpcError(-32601, 'the method eth_getBlockReceipts does not exist/is not available'), 'unsupported'],
      [rpcError(-32000, 'method debug_traceBlockByNumber not supported'), 'unsupported'],
      [new TimeoutError({ body: { method: 'debug_traceBlockByNumber' }, url }), 'transient:timeout'],
      [new HttpRequestError({ url, details: 'fetch failed' }), 'transient'],
      [new HttpRequestError({ url, status: 503 }), 'transient'],
      [rpcError(-32005, 'query returned more than 10000 results'), 'range'],
      [rpcError(-32600, 'block range is too wide'), 'range'],
      [rpcError(-32005, 'logs matched by query exceeds limit of 10000'), 'range'],
      [rpcError(-32000, 'Max logs per response is 10000'), 'range'],
      [rpcError(3, 'execution reverted'), 'other'],
    ];
    expect(
      cases.map(([err]) => {
        const c = classifyRpcError(err);
        if (c.kind === 'rate-limited') return `rate-limited:${c.retryAfterMs ?? '-'}`;
        if (c.kind === 'transient') return c.timeout ? 'transient:timeout' : 'transient';
        return c.kind;
      }),
    ).toEqual(cases.map(([, want]) => want));
  });
});
