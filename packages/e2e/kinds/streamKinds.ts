import { devnetAccount } from '@tributary/devnet';
import { type Account, keccak256, parseEther, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { advancedFilter } from './advancedFilter.ts';
import { allAddresses } from './allAddresses.ts';
import { contractLogs } from './contractLogs.ts';
import type { ChainDriver } from './createChainDriver.ts';
import { erc1155Transfers } from './erc1155Transfers.ts';
import { erc20Approvals } from './erc20Approvals.ts';
import { erc20Transfers } from './erc20Transfers.ts';
import { erc721Transfers } from './erc721Transfers.ts';
import { internalTransactions } from './internalTransactions.ts';
import { nativeBalances } from './nativeBalances.ts';
import { nativeTransfers } from './nativeTransfers.ts';
import { removalNotices } from './removalNotices.ts';
import type { DeployedKind, StreamKind } from './streamKind.ts';
import { trigger } from './trigger.ts';

/**
 * Every kind of stream users create, in the order reports list them: the chaos command and the
 * catch-up test both take them from here. `logsPerTx`: the contract-log load of each block.
 */
export function streamKinds(opts: { logsPerTx: number }): StreamKind[] {
  return [
    nativeTransfers,
    internalTransactions,
    contractLogs(opts.logsPerTx),
    erc20Transfers,
    erc20Approvals,
    erc721Transfers,
    erc1155Transfers,
    allAddresses,
    advancedFilter,
    trigger,
    nativeBalances,
    removalNotices,
  ];
}

/**
 * Deploys every kind on the driver's chain (a block per contract) from anvil's first account,
 * then funds the accounts each kind took for itself (one block). Each kind's accounts are its
 * own (derived from its name), so one kind's activity never lands in another's stream.
 */
export async function deployKinds(
  driver: ChainDriver,
  kinds: readonly StreamKind[],
): Promise<DeployedKind[]> {
  const deployer = devnetAccount(0);
  const accounts: Account[] = [];
  const deployed: DeployedKind[] = [];
  for (const kind of kinds) {
    const own = new Map<number, Account>();
    const account = (n: number) => {
      let a = own.get(n);
      if (!a) {
        a = privateKeyToAccount(keccak256(toHex(`tributary stream kind ${kind.name} account ${n}`)));
        own.set(n, a);
        accounts.push(a);
      }
      return a;
    };
    deployed.push({
      name: kind.name,
      title: kind.title,
      ...(await kind.deploy({ driver, deployer, account })),
    });
  }
  await driver.fund(
    deployer,
    accounts.map((a) => a.address),
    parseEther('100'),
  );
  return deployed;
}
