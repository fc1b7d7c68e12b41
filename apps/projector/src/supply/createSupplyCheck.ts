import type { Pool } from '@tributary/db';
import { type SupplyCheck, findSupplyCheckBatch, recordSupplyChecks } from '@tributary/db/chain';
import { SELECTORS, decodeUint } from '@tributary/evm';
import type { Logger } from 'pino';
import { type Hex, type PublicClient, createPublicClient, http } from 'viem';

/** Tokens compared per round: a large token table is covered over several rounds, oldest check first. */
const BATCH = 200;

export interface SupplyCheckDeps {
  pool: Pool;
  chainId: number;
  rpcUrl: string;
  intervalMs: number;
  logger: Logger;
}

/**
 * Every `intervalMs`, reads totalSupply() from the node at the projected head (by block hash, so a
 * reorg cannot pair one branch's supply with the other's) and compares it with the supply the
 * token's Transfer events add up to. A difference means balances change without events (rebasing,
 * fee-on-transfer): the token is flagged, and the owners endpoint says so. A failed call leaves
 * the token unjudged (its last verdict stands); a failed round is logged and the next one tries again.
 */
export function createSupplyCheck(deps: SupplyCheckDeps) {
  const client = createPublicClient({ transport: http(deps.rpcUrl, { retryCount: 2 }) }) as PublicClient;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  async function chainSupply(token: string, blockHash: Hex): Promise<bigint | null> {
    try {
      const out = await client.request({
        method: 'eth_call',
        params: [{ to: token as Hex, data: SELECTORS.totalSupply }, { blockHash }],
      } as never);
      return decodeUint(out as Hex);
    } catch {
      return null;
    }
  }

  /** One round; resolves with the checks it recorded. */
  async function runOnce(): Promise<SupplyCheck[]> {
    const batch = await findSupplyCheckBatch(deps.pool, deps.chainId, BATCH);
    if (batch.block === null) return [];
    const { number, hash } = batch.block;
    const checks: SupplyCheck[] = [];
    for (const t of batch.tokens) {
      const supply = await chainSupply(t.address, hash as Hex);
      checks.push({
        address: t.address,
        chainSupply: supply,
        mismatch: supply !== null && supply !== t.indexedSupply,
      });
    }
    await recordSupplyChecks(deps.pool, deps.chainId, number, checks);
    const mismatched = checks.filter((c) => c.mismatch).map((c) => c.address);
    if (mismatched.length > 0) {
      deps.logger.warn({ block: number, tokens: mismatched }, 'totalSupply differs from the indexed supply');
    }
    return checks;
  }

  function schedule() {
    if (stopped) return;
    timer = setTimeout(() => {
      running = runOnce()
        .then(() => undefined)
        .catch((err) => deps.logger.error({ err }, 'supply check failed; retried next round'))
        .finally(schedule);
    }, deps.intervalMs);
  }

  return {
    runOnce,
    start() {
      if (deps.intervalMs > 0) schedule();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
