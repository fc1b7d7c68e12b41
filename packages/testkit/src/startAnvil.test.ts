import { createPublicClient, createTestClient, createWalletClient, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ANVIL_ACCOUNT_0, ANVIL_MAX_PERSISTED_STATES } from './anvilDefaults.ts';
import { REPO_ROOT } from './repoRoot.ts';
import { startAnvil } from './startAnvil.ts';

describe('startAnvil', () => {
  it('runs a private anvil whose mining the test controls', async () => {
    const anvil = await startAnvil({ automine: false });
    try {
      const transport = http(anvil.rpcUrl);
      const publicClient = createPublicClient({ chain: foundry, transport });
      const testClient = createTestClient({ mode: 'anvil', chain: foundry, transport });
      const wallet = createWalletClient({
        account: privateKeyToAccount(ANVIL_ACCOUNT_0.privateKey),
        chain: foundry,
        transport,
      });
      expect(await publicClient.getBlockNumber({ cacheTime: 0 })).toBe(0n);

      const to = privateKeyToAccount(`0x${'22'.repeat(32)}`).address;
      const hash = await wallet.sendTransaction({ to, value: parseEther('2') });
      // No automine: the transaction waits in the pool until the test mines.
      expect(await publicClient.getBlockNumber({ cacheTime: 0 })).toBe(0n);
      expect(await publicClient.getBalance({ address: to })).toBe(0n);

      await testClient.mine({ blocks: 1 });
      const receipt = await publicClient.getTransactionReceipt({ hash });
      expect(receipt.blockNumber).toBe(1n);
      const block = await publicClient.getBlock({ blockNumber: 1n });
      expect(block.transactions).toEqual([hash]);
      expect(await publicClient.getBalance({ address: to })).toBe(parseEther('2'));
    } finally {
      await anvil.stop();
    }
  });

  it('gives two anvils their own ports and chains', async () => {
    const [a, b] = await Promise.all([startAnvil(), startAnvil({ chainId: 1337 })]);
    try {
      expect(a.port).not.toBe(b.port);
      const chainId = (url: string) => createPublicClient({ transport: http(url) }).getChainId();
      expect(await chainId(a.rpcUrl)).toBe(31337);
      expect(await chainId(b.rpcUrl)).toBe(1337);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('keeps at most maxPersistedStates past states on disk, in a directory that stop() removes', async () => {
    const anvil = await startAnvil({ automine: false, maxPersistedStates: 5 });
    try {
      const testClient = createTestClient({ mode: 'anvil', chain: foundry, transport: http(anvil.rpcUrl) });
      // Past the states anvil holds in memory, 500 blocks at a time.
      for (let i = 0; i < 10; i++) await testClient.mine({ blocks: 500 });
      // anvil writes them into a directory of its own under statesDir, one file a block.
      const files = readdirSync(anvil.statesDir, { recursive: true, withFileTypes: true }).filter((e) =>
        e.isFile(),
      );
      expect(files.length).toBeGreaterThan(0);
      expect(files.length).toBeLessThanOrEqual(5);
    } finally {
      await anvil.stop();
    }
    expect(existsSync(anvil.statesDir)).toBe(false);
  });

  it('the local servers and the testcontainers path keep the same number of states on disk (compose: dockerCompose.test.ts)', () => {
    const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
    expect(read('infra/local/services/anvil.sh')).toContain(
      `--max-persisted-states "\${ANVIL_MAX_PERSISTED_STATES:-${ANVIL_MAX_PERSISTED_STATES}}"`,
    );
    expect(read('packages/testkit/src/startContainers.ts')).toContain('String(ANVIL_MAX_PERSISTED_STATES)');
  });
});
