import { type Chain, DEVNET_CHAIN, SPEC_CHAINS } from './chainTable.ts';

export interface ChainRegistry {
  /** Resolves a `chain` parameter given by name ("eth", "polygon amoy") or hex id ("0x1"); undefined when unknown. */
  resolve(input: string): Chain | undefined;
  byId(id: number): Chain | undefined;
  all(): readonly Chain[];
}

/**
 * The spec's chains plus the devnet, plus any the operator configures with
 * EXTRA_CHAINS="name:0xhex:confirmations,...".
 */
export function createChainRegistry(extra: readonly Chain[] = []): ChainRegistry {
  const chains = [...SPEC_CHAINS, DEVNET_CHAIN, ...extra];
  const byName = new Map<string, Chain>();
  const byId = new Map<number, Chain>();
  for (const c of chains) {
    for (const n of c.names) byName.set(n.toLowerCase(), c);
    if (!byId.has(c.id)) byId.set(c.id, c);
  }
  return {
    resolve(input) {
      const s = input.trim().toLowerCase();
      if (/^0x[0-9a-f]+$/.test(s)) return byId.get(Number.parseInt(s, 16));
      return byName.get(s);
    },
    byId: (id) => byId.get(id),
    all: () => chains,
  };
}

export function parseExtraChains(spec: string): Chain[] {
  return spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const [name, hex, conf] = entry.split(':');
      if (!name || !hex || !/^0x[0-9a-fA-F]+$/.test(hex)) {
        throw new Error(`EXTRA_CHAINS entry "${entry}" must be name:0xhex[:confirmations]`);
      }
      const h = hex.toLowerCase() as `0x${string}`;
      return {
        names: [name.toLowerCase()],
        id: Number.parseInt(h, 16),
        hex: h,
        confirmations: Number(conf ?? 12),
      };
    });
}

export function toHexChainId(id: number): `0x${string}` {
  return `0x${id.toString(16)}`;
}
