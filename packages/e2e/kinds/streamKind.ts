import type { Account, Address, PublicClient } from 'viem';
import type { ChainDriver, SendTx } from './createChainDriver.ts';
import type { ChainBlock } from './readChainBlocks.ts';

export type KindName =
  | 'nativeTransfers'
  | 'internalTransactions'
  | 'contractLogs'
  | 'erc20Transfers'
  | 'erc20Approvals'
  | 'erc721Transfers'
  | 'erc1155Transfers'
  | 'allAddresses'
  | 'advancedFilter'
  | 'trigger'
  | 'nativeBalances'
  | 'removalNotices';

/** One stream of a kind: its body beside webhookUrl, description, tag and chainIds, and the addresses it watches. */
export interface KindStream {
  /** Names it in reports and in its tag: the kind's name, with `-<n>` when the kind has several. */
  label: string;
  body: Record<string, unknown>;
  addresses: Address[];
}

/** A kind on a chain: its streams, the activity that drives them and what the chain says they are owed. */
interface KindActivity {
  streams: KindStream[];
  /** The run's load: acts in every block (the other kinds in a share of them). */
  load?: boolean;
  /** Sends this kind's activity of one block (the caller mines it); `round` numbers the blocks it acts in. */
  act(send: SendTx, round: number): Promise<void>;
  /**
   * The items of `stream`'s webhook for `block`, from the chain (its transactions, logs and
   * traces, and state read at that block); [] when the block owes the stream no webhook.
   */
  expect(stream: KindStream, block: ChainBlock, chain: PublicClient): Promise<string[]>;
}

export interface DeployedKind extends KindActivity {
  name: KindName;
  /** What reports call it. */
  title: string;
}

export interface KindSetup {
  driver: ChainDriver;
  /** A funded account that deploys the kinds' contracts. */
  deployer: Account;
  /** An account of this kind's own (no other kind sends from it or watches it), funded before the first round. */
  account(n: number): Account;
}

export interface StreamKind {
  name: KindName;
  /** What the report calls it. */
  title: string;
  /** Deploys what the kind needs on the chain (blocks of its own, before any stream). */
  deploy(setup: KindSetup): Promise<KindActivity>;
}

/** Lower-case address sets, as the expectations compare them. */
export const addressSet = (addresses: readonly string[]): Set<string> =>
  new Set(addresses.map((a) => a.toLowerCase()));

/** A random amount in [min, max] (activity varies from block to block). */
export const randomAmount = (min: bigint, max: bigint): bigint =>
  min + BigInt(Math.floor(Math.random() * Number(max - min + 1n)));
