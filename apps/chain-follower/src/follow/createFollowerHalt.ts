import { Gauge, type Logger, type Registry } from '@tributary/runtime';

/** Why the follower stopped following: neither clears by retrying the step, both need a look. */
export type HaltKind = 'chain-mismatch' | 'deep-reorg';

export interface Halt {
  kind: HaltKind;
  /** What happened and what to do, as readiness and the log say it. */
  message: string;
  since: Date;
}

export interface FollowerHalt {
  /** Enters (or stays in) the halt: an error log line when it starts or changes, the gauges at 1. */
  set(kind: HaltKind, err: Error): void;
  /** Back to following (the node has the indexed chain again, or the data was reset). */
  clear(): void;
  current(): Halt | null;
}

const ADVICE: Record<HaltKind, string> = {
  'chain-mismatch':
    'following stopped: point RPC_URL at the indexed chain, or reset the indexed data (for a devnet restarted from genesis, stop npm start and run it again: it does that)',
  'deep-reorg':
    'following stopped: the published blocks cannot be removed safely; reset the indexed data from below the fork (and raise REORG_WINDOW)',
};

/**
 * The follower's alarm: a chain that is not the one it indexed, or a reorg deeper than the blocks
 * it keeps, stops following (never silent corruption) and says so in the log, in
 * `tributary_follower_chain_mismatch` / `tributary_follower_deep_reorg` and through readiness, while the process stays
 * up and re-checks (a crash loop would say less and fix nothing).
 */
export function createFollowerHalt(deps: {
  logger: Logger;
  metrics: Registry;
  chainId: number;
}): FollowerHalt {
  const labels = { chain_id: String(deps.chainId) };
  const gauges: Record<HaltKind, Gauge> = {
    'chain-mismatch': new Gauge({
      name: 'tributary_follower_chain_mismatch',
      help: '1 while the node serves another chain than the one indexed (its genesis block differs)',
      labelNames: ['chain_id'],
      registers: [deps.metrics],
    }),
    'deep-reorg': new Gauge({
      name: 'tributary_follower_deep_reorg',
      help: '1 while a reorg deeper than the kept blocks stops following',
      labelNames: ['chain_id'],
      registers: [deps.metrics],
    }),
  };
  for (const g of Object.values(gauges)) g.set(labels, 0);
  let halt: Halt | null = null;
  return {
    set(kind, err) {
      const message = `${err.message}; ${ADVICE[kind]}`;
      if (halt?.kind === kind && halt.message === message) return;
      halt = { kind, message, since: new Date() };
      for (const [k, g] of Object.entries(gauges)) g.set(labels, k === kind ? 1 : 0);
      deps.logger.error({ halt: kind, err }, message);
    },
    clear() {
      if (!halt) return;
      deps.logger.info({ halt: halt.kind, since: halt.since }, 'following again');
      halt = null;
      for (const g of Object.values(gauges)) g.set(labels, 0);
    },
    current: () => halt,
  };
}
