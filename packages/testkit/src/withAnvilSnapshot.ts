import { createTestClient, http, type TestClient } from 'viem';
import { getTestSettings } from './testSettings.ts';

/**
 * Runs `work` between evm_snapshot and evm_revert, so whatever it mines or changes on the shared
 * anvil is undone afterwards, even when it throws.
 */
export async function withAnvilSnapshot<T>(
  work: (client: TestClient<'anvil'>) => Promise<T>,
  rpcUrl: string = getTestSettings().rpcUrl,
): Promise<T> {
  const client = createTestClient({ mode: 'anvil', transport: http(rpcUrl) });
  const snapshot = await client.snapshot();
  const revert = async () => {
    // viem types evm_revert as void; anvil answers true, or false when the snapshot id is unknown.
    const reverted: unknown = await client.request({ method: 'evm_revert', params: [snapshot] });
    if (reverted !== true) throw new Error(`evm_revert(${snapshot}) failed on ${rpcUrl}`);
  };
  let result: T;
  try {
    result = await work(client);
  } catch (error) {
    await revert().catch(() => {});
    throw error;
  }
  await revert();
  return result;
}
