import { describe, expect, it } from 'vitest';
import { SPEC_CHAINS } from './chainTable.ts';
import { createChainRegistry, parseExtraChains } from './createChainRegistry.ts';

describe('chain registry', () => {
  const reg = createChainRegistry();

  it('resolves every spec name and hex id to the same chain', () => {
    expect(reg.resolve('eth')?.id).toBe(1);
    expect(reg.resolve('0x1')?.names).toContain('eth');
    expect(reg.resolve('0X89')?.names).toContain('polygon');
    expect(reg.resolve('polygon amoy')?.hex).toBe('0x13882');
    expect(reg.resolve('palm')?.id).toBe(0x2a15c308d);
    expect(reg.resolve('linea sepolia')?.hex).toBe('0xe705');
    // Linea mainnet as the official SDKs and the hosted service name it (the spec's table lists 0xe705).
    expect(reg.resolve('linea')?.hex).toBe('0xe708');
    expect(reg.resolve('0xe708')?.names).toEqual(['linea']);
    expect(reg.resolve('goerli')?.hex).toBe('0x5');
    expect(reg.resolve('0x7a69')?.names).toContain('devnet');
  });

  it('returns undefined for unknown chains', () => {
    expect(reg.resolve('ethereum-classic')).toBeUndefined();
    expect(reg.resolve('0x999999')).toBeUndefined();
  });

  it('carries a confirmation depth and a block time for each of the spec chains', () => {
    expect(SPEC_CHAINS).toHaveLength(25); // the spec's 25 names, linea at the SDKs' 0xe708
    expect(SPEC_CHAINS.flatMap((c) => c.names)).toHaveLength(25);
    for (const c of SPEC_CHAINS) {
      expect(c.confirmations, c.names[0]).toBeGreaterThan(0);
      expect(c.blockTimeMs, c.names[0]).toBeGreaterThanOrEqual(250);
    }
    expect(reg.resolve('eth')).toMatchObject({ confirmations: 12, blockTimeMs: 12_000 });
    expect(reg.resolve('arbitrum')).toMatchObject({ confirmations: 18, blockTimeMs: 250 });
  });

  it('adds operator chains', () => {
    const r = createChainRegistry(parseExtraChains('mychain:0x539:4, devnet2:0x7A6A:2:500 ,other:0x53a'));
    expect(r.resolve('mychain')).toEqual({
      names: ['mychain'],
      id: 1337,
      hex: '0x539',
      confirmations: 4,
      blockTimeMs: 2_000,
    });
    expect(r.resolve('0x7a6a')).toEqual({
      names: ['devnet2'],
      id: 31338,
      hex: '0x7a6a',
      confirmations: 2,
      blockTimeMs: 500,
    });
    expect(r.byId(1338)).toMatchObject({ names: ['other'], confirmations: 12 });
    expect(r.all()).toHaveLength(36); // the 25 spec chains, 7 more the SDK sends, the devnet and 3 operator chains
    for (const bad of ['bad', 'x:0x', 'x:0x1:-1', 'x:0x1:2:0', 'x:0x1:2:3:4', '0x5:0x5', 'x:0x1:two']) {
      expect(() => parseExtraChains(bad), bad).toThrow(/EXTRA_CHAINS/);
    }
  });

  it('lets an operator chain override a built-in one and keeps the built-in names', () => {
    const r = createChainRegistry(parseExtraChains('mainnet:0x1:64:12000'));
    expect(r.resolve('eth')).toEqual({
      names: ['mainnet', 'eth'],
      id: 1,
      hex: '0x1',
      confirmations: 64,
      blockTimeMs: 12_000,
    });
    expect(r.resolve('mainnet')).toBe(r.resolve('0x1'));
    expect(r.all()).toHaveLength(33); // the 25 spec chains, 7 the SDK sends and the devnet: mainnet replaced eth
  });
});
