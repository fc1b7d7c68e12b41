import { createChainRegistry } from '@tributary/chains';
import { erc20TransferEventAbi } from '@tributary/evm';
import { describe, expect, it } from 'vitest';
import { validateStreamConfig } from './streamConfig.ts';

const chains = createChainRegistry();
const good = {
  webhookUrl: 'https://example.com/hook',
  description: 'd',
  tag: 't',
  chainIds: ['0x1'],
  includeContractLogs: true,
  topic0: ['Transfer(address,address,uint256)'],
  abi: [erc20TransferEventAbi],
  advancedOptions: [{ topic0: 'Transfer(address,address,uint256)', filter: { gt: ['value', '1000'] } }],
};

describe('validateStreamConfig', () => {
  it('accepts a complete body and lower-cases chain ids', () => {
    const r = validateStreamConfig({ ...good, chainIds: ['0xA86A'] }, chains);
    expect(r.ok && r.config.chainIds).toEqual(['0xa86a']);
  });

  it('names each bad field', () => {
    const r = validateStreamConfig(
      { description: 'd', tag: 't', chainIds: ['0x1'], webhookUrl: 'nope' },
      chains,
    );
    expect(r).toEqual({ ok: false, details: { webhookUrl: { message: expect.any(String) } } });
  });

  it('takes maxRequestsPerSecond as a whole number from 1 to 10,000, or null for none', () => {
    for (const ok of [1, 50, 10_000, null]) {
      const r = validateStreamConfig({ ...good, maxRequestsPerSecond: ok }, chains);
      expect(r.ok && r.config.maxRequestsPerSecond).toBe(ok);
    }
    for (const bad of [0, -1, 2.5, 10_001, '5']) {
      const r = validateStreamConfig({ ...good, maxRequestsPerSecond: bad }, chains);
      expect(r.ok ? undefined : Object.keys(r.details)).toEqual(['maxRequestsPerSecond']);
    }
  });

  it('applies the create rules', () => {
    const r = validateStreamConfig(
      {
        ...good,
        includeContractLogs: false,
        chainIds: ['0x1', '0x999999'],
        topic0: ['Transfer(address,address,uint256)', 'Approval(address,address,uint256)'],
        advancedOptions: [
          { topic0: 'Deposit(uint256)', filter: {} },
          { topic0: 'Transfer(address,address,uint256)', filter: { eq: ['amount', '1'] } },
        ],
      },
      chains,
    );
    expect(r.ok).toBe(false);
    expect(!r.ok && Object.keys(r.details).sort()).toEqual([
      'advancedOptions.0.topic0',
      'advancedOptions.1.filter',
      'chainIds.1',
      'includeContractLogs',
      'topic0.1',
    ]);
  });

  it('checks that trigger selectors fit the trigger type', () => {
    const trigger = {
      type: 'erc20transfer',
      contractAddress: '$contract',
      functionAbi: {
        type: 'function',
        name: 'balanceOf',
        inputs: [{ name: 'a', type: 'address' }],
        outputs: [],
      },
      inputs: ['$owner'],
    };
    const r = validateStreamConfig({ ...good, triggers: [trigger] }, chains);
    expect(!r.ok && Object.keys(r.details)).toEqual(['triggers.0']);
    expect(validateStreamConfig({ ...good, triggers: [{ ...trigger, inputs: ['$to'] }] }, chains).ok).toBe(
      true,
    );
  });
});
