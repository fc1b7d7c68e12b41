import { createChainRegistry } from '@tributary/chains';
import { EvmChain } from 'moralis/common-evm-utils';
import { describe, expect, it } from 'vitest';

/** Every chain the JavaScript SDK names (EvmChain.ETHEREUM, EvmChain.LINEA, ...), as it sends them: hex ids. */
function sdkChains(): { name: string; hex: string }[] {
  const out: { name: string; hex: string }[] = [];
  for (const name of Object.getOwnPropertyNames(EvmChain)) {
    if (!/^[A-Z][A-Z0-9_]*$/.test(name)) continue;
    const value = (EvmChain as unknown as Record<string, unknown>)[name];
    if (value instanceof EvmChain) out.push({ name, hex: value.hex });
  }
  return out;
}

describe('the chains the JavaScript SDK sends (npm moralis)', () => {
  it('all resolve, each to the chain the SDK means: linea 0xe708, linea sepolia 0xe705', () => {
    const registry = createChainRegistry();
    const chains = sdkChains();
    expect(chains.length).toBeGreaterThan(25);
    expect(chains.filter((c) => registry.resolve(c.hex) === undefined)).toEqual([]);
    expect(chains.find((c) => c.name === 'LINEA')?.hex).toBe('0xe708');
    expect(registry.resolve('0xe708')?.names).toEqual(['linea']);
    expect(chains.find((c) => c.name === 'LINEA_SEPOLIA')?.hex).toBe('0xe705');
    expect(registry.resolve('0xe705')?.names).toEqual(['linea sepolia']);
  });
});
