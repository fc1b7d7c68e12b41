import { createPublicClient, createTestClient, createWalletClient, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { describe, expect, it } from 'vitest';
import { ANVIL_ACCOUNT_0 } from './anvilDefaults.ts';
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
});
