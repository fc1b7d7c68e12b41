/** Rows of the chain query tables as the projector derives them from block events (hex strings, decimal amounts). */
interface BlockRow {
  chainId: number;
  number: number;
  hash: string;
  parentHash: string;
  /** Unix seconds. */
  timestamp: number;
  confirmed: boolean;
}

interface LogRow {
  chainId: number;
  blockNumber: number;
  logIndex: number;
  blockHash: string;
  blockTimestamp: number;
  transactionHash: string;
  transactionIndex: number;
  address: string;
  topics: readonly string[];
  data: string;
}

export interface TransferRow {
  chainId: number;
  blockNumber: number;
  logIndex: number;
  blockHash: string;
  blockTimestamp: number;
  transactionHash: string;
  transactionIndex: number;
  token: string;
  from: string;
  to: string;
  value: string;
}

interface TokenRow {
  chainId: number;
  address: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  totalSupply: string | null;
  readAtBlock: number;
  /** The block in which the follower first saw the token: a reorg that removes it forgets the token. */
  firstSeenHash: string;
}

interface AddressKindRow {
  chainId: number;
  address: string;
  isContract: boolean;
}

/** One run of new/confirmed blocks, projected with set-based statements. */
export interface ChainSegment {
  blocks: BlockRow[];
  logs: LogRow[];
  transfers: TransferRow[];
  tokens: TokenRow[];
  addressKinds: AddressKindRow[];
}

export interface RemovedBlock {
  chainId: number;
  number: number;
  hash: string;
}

/** A log as block events carry it (the block's number, hash and time come from its block). */
interface SegmentLog {
  logIndex: number;
  transactionHash: string;
  transactionIndex: number;
  address: string;
  topics: readonly string[];
  data: string;
}

/** A decoded ERC20 transfer of a block (token = its log's address). */
export interface SegmentTransfer {
  logIndex: number;
  transactionHash: string;
  transactionIndex: number;
  token: string;
  from: string;
  to: string;
  /** Decimal digits. */
  value: string;
}

/** A block with its logs and transfers, as the projector gets it from one block event. */
export interface SegmentBlock extends BlockRow {
  logs: readonly SegmentLog[];
  transfers: readonly SegmentTransfer[];
  /**
   * Rows only: no block row to write; its rows are kept only if `blocks` already holds this
   * number with this hash (rows handed in without their header, see projectChainSegment).
   */
  rowsOnly?: boolean;
}

/** One run of new/confirmed blocks grouped by block: what projectBlockSegment writes. */
export interface BlockSegment {
  blocks: SegmentBlock[];
  tokens: TokenRow[];
  addressKinds: AddressKindRow[];
}
