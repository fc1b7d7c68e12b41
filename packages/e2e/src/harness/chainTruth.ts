import {
  type Address,
  type Hash,
  type Hex,
  type Log,
  type PublicClient,
  erc20Abi,
  formatUnits,
  hexToString,
  parseAbi,
  toEventSelector,
} from 'viem';

/** What the tests compare the services with: read from the node, never written by hand. */

export const TRANSFER_TOPIC0 = toEventSelector('Transfer(address,address,uint256)');
const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;

export interface ChainBlock {
  number: bigint;
  hash: Hash;
  parentHash: Hash;
  timestamp: bigint;
}

export interface ChainSnapshot {
  head: bigint;
  /** Every log of blocks 0..head, in chain order. */
  logs: Log[];
  /** Headers of the blocks that hold a log. */
  blocks: Map<bigint, ChainBlock>;
}

export interface ChainTransfer {
  log: Log;
  token: Address;
  from: Address;
  to: Address;
  value: bigint;
}

export interface TokenTruth {
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  totalSupply: bigint | null;
}

export async function readChain(client: PublicClient, toBlock?: bigint): Promise<ChainSnapshot> {
  const head = toBlock ?? (await client.getBlockNumber({ cacheTime: 0 }));
  const logs = await client.getLogs({ fromBlock: 0n, toBlock: head });
  const blocks = new Map<bigint, ChainBlock>();
  for (const number of new Set(logs.map((l) => l.blockNumber!))) {
    const b = await client.getBlock({ blockNumber: number });
    blocks.set(number, { number, hash: b.hash, parentHash: b.parentHash, timestamp: b.timestamp });
  }
  for (const l of logs) {
    if (blocks.get(l.blockNumber!)?.hash !== l.blockHash) throw new Error('chain moved while it was read');
  }
  return { head, logs, blocks };
}

/** An ERC20 Transfer as the standard defines it: topic0, two indexed addresses, a 32-byte amount. */
export function decodeChainTransfer(log: Log): ChainTransfer | undefined {
  if (log.topics[0] !== TRANSFER_TOPIC0 || log.topics.length !== 3 || log.data.length !== 66)
    return undefined;
  return {
    log,
    token: log.address.toLowerCase() as Address,
    from: `0x${log.topics[1]!.slice(26)}` as Address,
    to: `0x${log.topics[2]!.slice(26)}` as Address,
    value: BigInt(log.data),
  };
}

export function chainTransfers(snapshot: ChainSnapshot): ChainTransfer[] {
  return snapshot.logs.map(decodeChainTransfer).filter((t): t is ChainTransfer => t !== undefined);
}

/** A wallet's transfers in the gateway's DESC order (block, then log index, newest first). */
export function walletTransfers(snapshot: ChainSnapshot, wallet: string): ChainTransfer[] {
  const w = wallet.toLowerCase();
  return chainTransfers(snapshot)
    .filter((t) => t.from === w || t.to === w)
    .sort((a, b) => compareLogs(b.log, a.log));
}

/** A contract's logs with one topic0, DESC. */
export function contractLogs(snapshot: ChainSnapshot, address: string, topic0: Hex): Log[] {
  return snapshot.logs
    .filter((l) => l.address.toLowerCase() === address.toLowerCase() && l.topics[0] === topic0)
    .sort((a, b) => compareLogs(b, a));
}

function compareLogs(a: Log, b: Log): number {
  if (a.blockNumber !== b.blockNumber) return a.blockNumber! < b.blockNumber! ? -1 : 1;
  return a.logIndex! - b.logIndex!;
}

const bytes32Metadata = parseAbi([
  'function name() view returns (bytes32)',
  'function symbol() view returns (bytes32)',
]);

/** name/symbol/decimals/totalSupply as the contract answers (bytes32 strings decoded; a revert is null). */
export async function readToken(client: PublicClient, token: Address): Promise<TokenTruth> {
  const call = async <T>(fn: () => Promise<T>): Promise<T | null> => {
    try {
      return await fn();
    } catch {
      return null;
    }
  };
  const text = async (functionName: 'name' | 'symbol') =>
    (await call(() => client.readContract({ address: token, abi: erc20Abi, functionName }))) ??
    (await call(async () => {
      const raw = await client.readContract({ address: token, abi: bytes32Metadata, functionName });
      return hexToString(raw, { size: 32 }).replace(/\0+$/, '');
    }));
  return {
    name: await text('name'),
    symbol: await text('symbol'),
    decimals: await call(() =>
      client.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' }),
    ),
    totalSupply: await call(() =>
      client.readContract({ address: token, abi: erc20Abi, functionName: 'totalSupply' }),
    ),
  };
}

async function balanceOf(client: PublicClient, token: Address, owner: Address, blockNumber?: bigint) {
  return client.readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
    ...(blockNumber === undefined ? {} : { blockNumber }),
  });
}

async function isContract(client: PublicClient, address: Address): Promise<boolean> {
  const code = await client.getCode({ address });
  return code !== undefined && code !== '0x';
}

export interface OwnerTruth {
  owner: Address;
  balance: bigint;
  isContract: boolean;
}

/**
 * A token's holders at `blockNumber`: every party of its transfers whose balanceOf is not zero,
 * largest first, ties by address (the owners endpoint's order).
 */
export async function tokenOwners(
  client: PublicClient,
  snapshot: ChainSnapshot,
  token: Address,
): Promise<OwnerTruth[]> {
  const t = token.toLowerCase();
  const parties = new Set<Address>();
  for (const tr of chainTransfers(snapshot)) {
    if (tr.token !== t) continue;
    for (const a of [tr.from, tr.to]) if (a !== ZERO_ADDRESS) parties.add(a);
  }
  const owners: OwnerTruth[] = [];
  for (const owner of parties) {
    const balance = await balanceOf(client, token, owner, snapshot.head);
    if (balance > 0n) owners.push({ owner, balance, isContract: await isContract(client, owner) });
  }
  return owners.sort((a, b) =>
    a.balance === b.balance ? (a.owner < b.owner ? -1 : 1) : a.balance > b.balance ? -1 : 1,
  );
}

/** The transfer record the data interface must return for this chain transfer (value as its digits). */
export function expectedTransferRecord(t: ChainTransfer, token: TokenTruth, block: ChainBlock) {
  return {
    token_name: token.name,
    token_symbol: token.symbol,
    token_logo: null,
    token_decimals: token.decimals === null ? null : String(token.decimals),
    transaction_hash: t.log.transactionHash,
    address: t.token,
    block_timestamp: new Date(Number(block.timestamp) * 1000).toISOString(),
    block_number: Number(t.log.blockNumber),
    block_hash: t.log.blockHash,
    to_address: t.to,
    to_address_label: null,
    from_address: t.from,
    from_address_label: null,
    value: t.value.toString(),
    transaction_index: t.log.transactionIndex,
    log_index: t.log.logIndex,
    possible_spam: false,
    verified_collection: false,
    verified_contract: false,
    value_decimal: token.decimals === null ? null : formatUnits(t.value, token.decimals),
  };
}

/** The log record of the data interface: every topic as on the chain, "" where absent. */
export function expectedLogRecord(l: Log, block: ChainBlock) {
  return {
    transaction_hash: l.transactionHash,
    address: l.address.toLowerCase(),
    block_timestamp: new Date(Number(block.timestamp) * 1000).toISOString(),
    block_number: Number(l.blockNumber),
    block_hash: l.blockHash,
    data: l.data,
    topic0: l.topics[0] ?? '',
    topic1: l.topics[1] ?? '',
    topic2: l.topics[2] ?? '',
    topic3: l.topics[3] ?? '',
    transaction_index: l.transactionIndex,
    log_index: l.logIndex,
  };
}
