import { createPublicClient, createWalletClient, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { describe, expect, it } from 'vitest';
import { ANVIL_ACCOUNT_0, ANVIL_CHAIN_ID } from './anvilDefaults.ts';
import { getTestSettings } from './testSettings.ts';
import { withAnvilSnapshot } from './withAnvilSnapshot.ts';

const { rpcUrl } = getTestSettings();
const publicClient = createPublicClient({ chain: foundry, transport: http(rpcUrl) });

describe('viem on the shared anvil', () => {
  it('reads the chain id and a real block', async () => {
    expect(await publicClient.getChainId()).toBe(ANVIL_CHAIN_ID);
    const latest = await publicClient.getBlock({ blockTag: 'latest' });
    const genesis = await publicClient.getBlock({ blockNumber: 0n });
    expect(genesis.number).toBe(0n);
    expect(latest.number).toBeGreaterThanOrEqual(0n);
    expect(latest.hash).toMatch(/^0x[0-9a-f]{64}$/);
    if (latest.number > 0n) {
      const parent = await publicClient.getBlock({ blockNumber: latest.number - 1n });
      expect(latest.parentHash).toBe(parent.hash);
    }
  });

  it('sends a transaction inside a snapshot and the revert undoes it', async () => {
    const recipient = privateKeyToAccount(`0x${'11'.repeat(32)}`).address;
    const before = await publicClient.getBalance({ address: recipient });

    await withAnvilSnapshot(async (testClient) => {
      const wallet = createWalletClient({
        account: privateKeyToAccount(ANVIL_ACCOUNT_0.privateKey),
        chain: foundry,
        transport: http(rpcUrl),
      });
      const hash = await wallet.sendTransaction({ to: recipient, value: parseEther('1.5') });
      // The shared anvil may mine on an interval; mining now keeps the test fast either way.
      await testClient.mine({ blocks: 1 });
      const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 100 });
      expect(receipt.status).toBe('success');
      expect(receipt.from.toLowerCase()).toBe(ANVIL_ACCOUNT_0.address.toLowerCase());
      expect(await publicClient.getBalance({ address: recipient })).toBe(before + parseEther('1.5'));
      const tx = await publicClient.getTransaction({ hash });
      expect(tx.value).toBe(parseEther('1.5'));
    });

    expect(await publicClient.getBalance({ address: recipient })).toBe(before);
  });
});
