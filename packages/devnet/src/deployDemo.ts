import {
  bulkTransferEmitterAbi,
  bulkTransferEmitterBytecode,
  bytes32TokenAbi,
  bytes32TokenBytecode,
  demoTokenAbi,
  demoTokenBytecode,
  eventEmitterAbi,
  eventEmitterBytecode,
  revertingMetadataTokenAbi,
  revertingMetadataTokenBytecode,
} from '@tributary/contracts';
import { type Abi, type Address, type Hash, type TransactionReceipt, stringToHex } from 'viem';
import type { DevnetClient } from './createDevnetClient.ts';

export interface DemoDeployment {
  /** 18 decimals, string metadata. */
  demo: Address;
  /** 6 decimals, string metadata. */
  six: Address;
  /** name/symbol are bytes32 ("Bytes Token" / "BYT"). */
  bytes32: Address;
  /** Every metadata getter reverts. */
  reverting: Address;
  emitter: Address;
}

/** Deploys the demo tokens and the event emitter from the client's account; one transaction each. */
export async function deployDemo(client: DevnetClient): Promise<DemoDeployment> {
  const demo = await deploy(client, demoTokenAbi, demoTokenBytecode, ['Demo Token', 'DEMO', 18]);
  const six = await deploy(client, demoTokenAbi, demoTokenBytecode, ['Six Decimals', 'SIX', 6]);
  const bytes32 = await deploy(client, bytes32TokenAbi, bytes32TokenBytecode, [
    stringToHex('Bytes Token', { size: 32 }),
    stringToHex('BYT', { size: 32 }),
  ]);
  const reverting = await deploy(client, revertingMetadataTokenAbi, revertingMetadataTokenBytecode, []);
  const emitter = await deploy(client, eventEmitterAbi, eventEmitterBytecode, []);
  return { demo, six, bytes32, reverting, emitter };
}

export async function deployBulkTransferEmitter(client: DevnetClient): Promise<Address> {
  return deploy(client, bulkTransferEmitterAbi, bulkTransferEmitterBytecode, []);
}

export async function deploy(
  client: DevnetClient,
  abi: Abi,
  bytecode: `0x${string}`,
  args: readonly unknown[],
): Promise<Address> {
  const hash = await client.deployContract({ abi, bytecode, args });
  const receipt = await waitMined(client, hash);
  if (!receipt.contractAddress) throw new Error(`deployment ${hash} created no contract`);
  return receipt.contractAddress;
}

/** Waits for a receipt and fails on a reverted transaction. */
export async function waitMined(client: DevnetClient, hash: Hash): Promise<TransactionReceipt> {
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
  return receipt;
}
