import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { describe, expect, it } from 'vitest';
import { AddressRefusedError, type ResolveHost, createWebhookLookup } from './createWebhookLookup.ts';

/** A resolver that gives its answers in turn, the last one from then on. */
function answering(...answers: string[][]): ResolveHost & { calls: number } {
  const resolve = async () => {
    const answer = answers[Math.min(resolve.calls, answers.length - 1)] ?? [];
    resolve.calls++;
    return answer.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  resolve.calls = 0;
  return resolve;
}

const lookupOnce = (lookup: LookupFunction, all: boolean) =>
  new Promise<{ err: Error | null; address: unknown }>((resolve) =>
    lookup('hooks.example', { all }, (err, address) => resolve({ err, address })),
  );

describe('createWebhookLookup', () => {
  it('checks each answer when the connection is made: public first, then 127.0.0.1, is refused the second time', async () => {
    const resolve = answering(['93.184.215.14'], ['127.0.0.1']);
    const lookup = createWebhookLookup({ allowPrivate: false, resolve });
    expect(await lookupOnce(lookup, false)).toEqual({ err: null, address: '93.184.215.14' });
    const second = await lookupOnce(lookup, false);
    expect(second.err).toBeInstanceOf(AddressRefusedError);
    expect(second.address).toBe('');
    expect(resolve.calls).toBe(2);
  });

  it('refuses a name when any of its addresses is refused, whichever comes first', async () => {
    for (const answer of [
      ['93.184.215.14', '127.0.0.1'],
      ['10.0.0.1', '93.184.215.14'],
      ['2606:4700::1111', '::ffff:169.254.169.254'],
      ['64:ff9b::7f00:1'],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ]) {
      const lookup = createWebhookLookup({ allowPrivate: false, resolve: answering(answer) });
      for (const all of [false, true]) {
        expect((await lookupOnce(lookup, all)).err, answer.join()).toBeInstanceOf(AddressRefusedError);
      }
    }
  });

  it('gives the socket every checked address when it asks for all of them', async () => {
    const lookup = createWebhookLookup({
      allowPrivate: true,
      resolve: answering(['127.0.0.1', '::1']),
    });
    expect(await lookupOnce(lookup, true)).toEqual({
      err: null,
      address: [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ],
    });
    const refusedAnyway = createWebhookLookup({ allowPrivate: true, resolve: answering(['100.64.0.1']) });
    expect((await lookupOnce(refusedAnyway, false)).err).toBeInstanceOf(AddressRefusedError);
  });
});
