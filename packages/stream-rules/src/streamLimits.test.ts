import { createChainRegistry } from '@tributary/chains';
import { erc20TransferEventAbi } from '@tributary/evm';
import { describe, expect, it } from 'vitest';
import { validateStreamConfig } from './streamConfig.ts';
import { DEFAULT_STREAM_LIMITS, STREAM_LIMIT_VARIABLES, type StreamLimits } from './streamLimits.ts';

const chains = createChainRegistry();
const TRANSFER = 'Transfer(address,address,uint256)';
const good = {
  webhookUrl: 'https://example.com/hook',
  description: 'd',
  tag: 't',
  chainIds: ['0x1'],
  includeContractLogs: true,
  topic0: [TRANSFER],
  abi: [erc20TransferEventAbi],
};
const trigger = (type: string) => ({
  type: 'erc20transfer',
  contractAddress: '$contract',
  inputs: ['$to'],
  functionAbi: {
    type: 'function',
    name: 'f',
    stateMutability: 'view',
    inputs: [{ name: 'x', type }],
    outputs: [{ name: 'y', type: 'uint256' }],
  },
});
const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

/** The detail the body gets for going over `limit`, or the whole result when it is accepted. */
function refusal(body: Record<string, unknown>, limits: StreamLimits = DEFAULT_STREAM_LIMITS) {
  const r = validateStreamConfig(body, chains, limits);
  return r.ok ? 'accepted' : Object.values(r.details).map((d) => d.message);
}

describe('stream limits', () => {
  it('names the limit and its variable for every bound a body can go over', () => {
    const l = DEFAULT_STREAM_LIMITS;
    const cases: [keyof StreamLimits, Record<string, unknown>][] = [
      ['urlLength', { ...good, webhookUrl: `https://example.com/${'a'.repeat(l.urlLength)}` }],
      ['stringLength', { ...good, description: 'x'.repeat(l.stringLength + 1) }],
      ['abiItems', { ...good, abi: Array.from({ length: l.abiItems + 1 }, () => erc20TransferEventAbi) }],
      [
        'abiBytes',
        {
          ...good,
          abi: [
            {
              ...erc20TransferEventAbi,
              inputs: Array.from({ length: 300 }, (_, i) => ({
                name: `p${i}`.padEnd(900, 'x'),
                type: 'uint256',
              })),
            },
          ],
        },
      ],
      ['typeDepth', { ...good, triggers: [trigger(`uint256${'[]'.repeat(l.typeDepth + 1)}`)] }],
      ['topic0', { ...good, topic0: Array.from({ length: l.topic0 + 1 }, () => TRANSFER) }],
      [
        'advancedOptions',
        {
          ...good,
          advancedOptions: Array.from({ length: l.advancedOptions + 1 }, () => ({ topic0: TRANSFER })),
        },
      ],
      [
        'filterValues',
        {
          ...good,
          advancedOptions: [
            {
              topic0: TRANSFER,
              filter: { in: ['to', Array.from({ length: l.filterValues + 1 }, (_, i) => address(i))] },
            },
          ],
        },
      ],
      [
        'filterOperators',
        {
          ...good,
          advancedOptions: [
            {
              topic0: TRANSFER,
              filter: { or: Array.from({ length: l.filterOperators }, () => ({ eq: ['to', address(1)] })) },
            },
          ],
        },
      ],
      ['triggers', { ...good, triggers: Array.from({ length: l.triggers + 1 }, () => trigger('address')) }],
      [
        'nativeBalanceSelectors',
        {
          ...good,
          getNativeBalances: [
            {
              type: 'erc20transfer',
              selectors: Array.from({ length: l.nativeBalanceSelectors + 1 }, () => '$to'),
            },
          ],
        },
      ],
    ];
    for (const [limit, body] of cases) {
      const messages = refusal(body);
      expect({
        limit,
        named:
          Array.isArray(messages) &&
          messages.some(
            (m) => m.includes(STREAM_LIMIT_VARIABLES[limit]) && m.includes(`the limit is ${l[limit]}`),
          ),
      }).toEqual({ limit, named: true });
    }
  });

  it('refuses at once what would cost the matcher seconds: a type nested 2,000,000 arrays deep, a body nested 100,000 levels', () => {
    const started = process.hrtime.bigint();
    expect(refusal({ ...good, triggers: [trigger(`uint256${'[]'.repeat(2_000_000)}`)] })).toContain(
      'a type nested more than 8 levels: the limit is 8 (LIMIT_TYPE_DEPTH)',
    );
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(refusal({ ...good, description: deep })).toEqual([
      'nested more than 32 levels: the limit is 32 (LIMIT_JSON_DEPTH)',
    ]);
    // Reported, not asserted on: the work is a linear walk.
    console.log(`refused both in ${Number(process.hrtime.bigint() - started) / 1e6} ms`);
  });

  it('takes what the operator allows', () => {
    const body = { ...good, topic0: [TRANSFER, TRANSFER, TRANSFER] };
    expect(refusal(body)).toBe('accepted');
    expect(refusal(body, { ...DEFAULT_STREAM_LIMITS, topic0: 2 })).toEqual([
      '3 entries: the limit is 2 (LIMIT_TOPIC0)',
    ]);
  });
});
