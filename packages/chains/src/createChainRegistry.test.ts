import { describe, expect, it } from 'vitest';
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
    expect(reg.resolve('0x7a69')?.names).toContain('devnet');
  });

  it('returns undefined for unknown chains', () => {
    expect(reg.resolve('ethereum-classic')).toBeUndefined();
    expect(reg.resolve('0x999999')).toBeUndefined();
  });

  it('adds operator chains', () => {
    const r = createChainRegistry(parseExtraChains('mychain:0x539:4'));
    expect(r.resolve('mychain')).toEqual({ names: ['mychain'], id: 1337, hex: '0x539', confirmations: 4 });
    expect(() => parseExtraChains('bad')).toThrow(/EXTRA_CHAINS/);
  });
});
