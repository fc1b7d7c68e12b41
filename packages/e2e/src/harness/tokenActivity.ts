import {
  bytes32TokenAbi,
  demoTokenAbi,
  eventEmitterAbi,
  revertingMetadataTokenAbi,
} from '@tributary/contracts';
import { type DemoDeployment, type DevnetClient, devnetAccount, waitMined } from '@tributary/devnet';
import type { Abi, Address, Hash } from 'viem';

export const alice = devnetAccount(1).address.toLowerCase() as Address;
export const bob = devnetAccount(2).address.toLowerCase() as Address;
/** Above 2^64: must survive every hop with every digit. */
export const BIG = 2n ** 70n + 12345n;

/** Sends one transaction and waits until it is mined (fails on a revert). */
export async function send(
  client: DevnetClient,
  address: Address,
  abi: Abi,
  functionName: string,
  args: readonly unknown[],
): Promise<Hash> {
  const hash = await client.writeContract({ address, abi, functionName, args } as Parameters<
    DevnetClient['writeContract']
  >[0]);
  await waitMined(client, hash);
  return hash;
}

/**
 * One round of every shape of token activity, one transaction per block: mint, transfer, self
 * transfer, zero value, an amount above 2^64, burn, a bytes32-metadata token, a token whose
 * metadata reverts (paying a contract), and logs with 0 to 3 indexed topics (plus an anonymous one).
 */
export async function tokenActivity(client: DevnetClient, demo: DemoDeployment, salt: bigint): Promise<void> {
  const me = client.account.address;
  const erc20 = demoTokenAbi as Abi;
  await send(client, demo.demo, erc20, 'mint', [me, 10n ** 21n + salt]);
  await send(client, demo.demo, erc20, 'transfer', [alice, 10n ** 18n + salt]);
  await send(client, demo.demo, erc20, 'transfer', [me, 5n]); // self-transfer
  await send(client, demo.demo, erc20, 'transfer', [bob, 0n]); // zero value
  await send(client, demo.six, erc20, 'mint', [bob, BIG + salt]);
  await send(client, demo.demo, erc20, 'burn', [7n + salt]);
  await send(client, demo.bytes32, bytes32TokenAbi as Abi, 'mint', [me, 1000n + salt]);
  await send(client, demo.bytes32, bytes32TokenAbi as Abi, 'transfer', [alice, 10n]);
  await send(client, demo.reverting, revertingMetadataTokenAbi as Abi, 'mint', [me, 99n + salt]);
  await send(client, demo.reverting, revertingMetadataTokenAbi as Abi, 'transfer', [demo.emitter, 9n]);
  await send(client, demo.emitter, eventEmitterAbi as Abi, 'emitAll', [alice, bob, 42n + salt]);
}

/** Mines `blocks` empty blocks. */
export async function mine(client: DevnetClient, blocks: number): Promise<void> {
  await client.request({ method: 'anvil_mine', params: [`0x${blocks.toString(16)}`] } as never);
}
