import { parseExtraChains } from '@tributary/chains';
import { describe, expect, it } from 'vitest';
import { chainSettings } from './chainSettings.ts';

describe('chain settings of a follower', () => {
  it("take the chain table's confirmations and poll at half the block time, within 250 ms..1 s", () => {
    expect(chainSettings({ CHAIN_ID: 1, EXTRA_CHAINS: [] })).toMatchObject({
      chain: { names: ['eth'] },
      confirmations: 12,
      pollIntervalMs: 1_000,
    });
    expect(chainSettings({ CHAIN_ID: 0xa4b1, EXTRA_CHAINS: [] })).toMatchObject({
      confirmations: 18,
      pollIntervalMs: 250,
    });
    expect(chainSettings({ CHAIN_ID: 31337, EXTRA_CHAINS: [] })).toMatchObject({
      confirmations: 2,
      pollIntervalMs: 500,
    });
  });

  it('know operator chains from EXTRA_CHAINS, and the variables win over the table', () => {
    const extra = parseExtraChains('devnet2:0x7a6a:3:600');
    expect(chainSettings({ CHAIN_ID: 31338, EXTRA_CHAINS: extra })).toMatchObject({
      chain: { names: ['devnet2'] },
      confirmations: 3,
      pollIntervalMs: 300,
    });
    expect(
      chainSettings({ CHAIN_ID: 31338, EXTRA_CHAINS: extra, CONFIRMATIONS: 0, POLL_INTERVAL_MS: 50 }),
    ).toMatchObject({ confirmations: 0, pollIntervalMs: 50 });
  });

  it('fall back to 12 confirmations and a 1 s poll for a chain nobody described', () => {
    expect(chainSettings({ CHAIN_ID: 424242, EXTRA_CHAINS: [] })).toEqual({
      chain: undefined,
      confirmations: 12,
      pollIntervalMs: 1_000,
    });
  });
});
