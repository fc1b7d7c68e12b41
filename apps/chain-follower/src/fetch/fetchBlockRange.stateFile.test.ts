import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDevnetClient } from '@tributary/devnet';
import { createLogger } from '@tributary/runtime';
import { type StartedAnvil, startAnvil } from '@tributary/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { createAdaptiveRange } from './createAdaptiveRange.ts';
import { createRpc } from '../rpc/createRpc.ts';
import { createBlockFetcher } from './fetchBlockRange.ts';
import { loadEnv, rpcSettingsOf } from '../env.ts';

const DEFAULTS = loadEnv({});

// `npm start` keeps each devnet in an anvil state file. Restarted from it, anvil answers
// debug_traceBlockByNumber for the blocks it loaded with an error per transaction
// ("Resource not found"): the follower must go on, with those blocks' internal transactions unknown.
const logger = createLogger('fetch-state-file-test', process.env['LOG_LEVEL'] ?? 'silent');
const dir = mkdtempSync(join(tmpdir(), 'anvil-state-'));
const stateArgs = ['--state', join(dir, 'state.json')];
let anvil: StartedAnvil | undefined;

afterAll(async () => {
  await anvil?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function transferInANewBlock(rpcUrl: string): Promise<number> {
  const client = createDevnetClient({ rpcUrl });
  const hash = await client.sendTransaction({ to: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', value: 1n });
  return Number((await client.waitForTransactionReceipt({ hash })).blockNumber);
}

describe('blocks anvil loaded from its state file', () => {
  it('are fetched with their transactions and unknown internal transactions; new blocks are traced', async () => {
    anvil = await startAnvil({ args: stateArgs });
    const loaded = await transferInANewBlock(anvil.rpcUrl);
    await anvil.stop(); // a clean stop writes the state file
    anvil = await startAnvil({ args: stateArgs });
    const fresh = await transferInANewBlock(anvil.rpcUrl);
    expect(fresh).toBe(loaded + 1); // the same chain, continued

    const fetcher = createBlockFetcher({
      rpc: createRpc({ ...rpcSettingsOf(DEFAULTS), urls: [anvil.rpcUrl], timeoutMs: 5_000, logger }),
      range: createAdaptiveRange({ initial: 16, max: 16, targetLogs: DEFAULTS.RANGE_TARGET_LOGS }),
      concurrency: 1,
      logger,
    });
    const blocks = await fetcher.fetchRange(loaded, fresh, {
      transactions: true,
      internalTransactions: true,
    });
    expect(blocks.map((b) => [b.header.number, b.transactions?.length, b.internalTransactions])).toEqual([
      [loaded, 1, null],
      [fresh, 1, []],
    ]);
  });
});
