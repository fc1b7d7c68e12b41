import { describe, expect, it } from 'vitest';
import { createChainRegistry } from './createChainRegistry.ts';

// The chain ids the official SDKs send, held to the chain table: every one must resolve. The
// JavaScript SDK's list is read from the SDK itself in the gateway's tests (it is a dependency
// there); the Python SDK's is its chain enum, copied here from moralis 0.1.49 (PyPI),
// openapi_evm_api/model/chain_list.py.
const PYTHON_SDK_CHAINS = [
  'eth',
  '0x1',
  'sepolia',
  '0xaa36a7',
  'holesky',
  '0x4268',
  'polygon',
  '0x89',
  'polygon amoy',
  '0x13882',
  'bsc',
  '0x38',
  'bsc testnet',
  '0x61',
  'avalanche',
  '0xa86a',
  'fantom',
  '0xfa',
  'palm',
  '0x2a15c308d',
  'cronos',
  '0x19',
  'arbitrum',
  '0xa4b1',
  'gnosis',
  '0x64',
  'gnosis testnet',
  '0x27d8',
  'chiliz',
  '0x15b38',
  'chiliz testnet',
  '0x15b32',
  'base',
  '0x2105',
  'base sepolia',
  '0x14a34',
  'optimism',
  '0xa',
  'linea',
  '0xe708',
  'linea sepolia',
  '0xe705',
  'moonbeam',
  '0x504',
  'moonriver',
  '0x505',
  'moonbase',
  '0x507',
];

describe('the chains the Python SDK sends', () => {
  it('resolve, names and hex ids alike, linea to 0xe708 and linea sepolia to 0xe705', () => {
    const registry = createChainRegistry();
    const unresolved = PYTHON_SDK_CHAINS.filter((c) => registry.resolve(c) === undefined);
    expect(unresolved).toEqual([]);
    // Each name and the hex id next to it in the SDK's list are the same chain.
    for (let i = 0; i < PYTHON_SDK_CHAINS.length; i += 2)
      expect(registry.resolve(PYTHON_SDK_CHAINS[i]!)?.hex).toBe(PYTHON_SDK_CHAINS[i + 1]);
  });
});
