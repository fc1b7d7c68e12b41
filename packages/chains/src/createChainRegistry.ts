import {
  type Chain,
  DEFAULT_BLOCK_TIME_MS,
  DEFAULT_CONFIRMATIONS,
  DEVNET_CHAIN,
  SDK_CHAINS,
  SPEC_CHAINS,
} from './chainTable.ts';

export interface ChainRegistry {
  /** Resolves a `chain` parameter given by name ("eth", "polygon amoy") or hex id ("0x1"); undefined when unknown. */
  resolve(input: string): Chain | undefined;
  byId(id: number): Chain | undefined;
  all(): readonly Chain[];
}

/**
 * The spec's chains plus the devnet, plus any the operator configures with
 * EXTRA_CHAINS="name:0xhex[:confirmations[:blockTimeMs]],...". An operator chain with the id of a
 * built-in one replaces it (its own name is added; the built-in names keep resolving to it).
 */
export function createChainRegistry(extra: readonly Chain[] = []): ChainRegistry {
  const byId = new Map<number, Chain>();
  for (const c of [...SPEC_CHAINS, ...SDK_CHAINS, DEVNET_CHAIN]) if (!byId.has(c.id)) byId.set(c.id, c);
  for (const c of extra) {
    const builtIn = byId.get(c.id);
    const names = [...new Set([...c.names, ...(builtIn?.names ?? [])])];
    byId.set(c.id, { ...c, names });
  }
  const chains = [...byId.values()];
  const byName = new Map<string, Chain>();
  for (const c of chains) for (const n of c.names) byName.set(n.toLowerCase(), c);
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
      const [name, hex, conf, blockTime, ...rest] = entry.split(':');
      const confirmations = conf === undefined || conf === '' ? DEFAULT_CONFIRMATIONS : Number(conf);
      const blockTimeMs =
        blockTime === undefined || blockTime === '' ? DEFAULT_BLOCK_TIME_MS : Number(blockTime);
      if (
        !name ||
        /^0x/i.test(name) ||
        !hex ||
        !/^0x[0-9a-fA-F]{1,13}$/.test(hex) ||
        !Number.isSafeInteger(confirmations) ||
        confirmations < 0 ||
        !Number.isSafeInteger(blockTimeMs) ||
        blockTimeMs < 1 ||
        rest.length > 0
      ) {
        throw new Error(`EXTRA_CHAINS entry "${entry}" must be name:0xhex[:confirmations[:blockTimeMs]]`);
      }
      const id = Number.parseInt(hex, 16);
      return { names: [name.toLowerCase()], id, hex: toHexChainId(id), confirmations, blockTimeMs };
    });
}

function toHexChainId(id: number): `0x${string}` {
  return `0x${id.toString(16)}`;
}
