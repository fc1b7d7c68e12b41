/** JSON-RPC shapes as nodes return them (hex quantities), before we normalise them. */
export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  transactionIndex: string;
  logIndex: string;
  removed?: boolean;
}

export interface RpcTransaction {
  hash: string;
  transactionIndex: string;
  from: string;
  to: string | null;
  value: string;
  gas: string;
  gasPrice?: string | null;
  nonce: string;
  input: string;
  type?: string;
  v?: string;
  r?: string;
  s?: string;
}

export interface RpcBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  /** Empty (all zeros) exactly when the block has no logs. */
  logsBloom?: string;
  transactions: (string | RpcTransaction)[];
}

export interface RpcReceipt {
  transactionHash: string;
  cumulativeGasUsed: string;
  gasUsed: string;
  contractAddress: string | null;
  status?: string | null;
  root?: string | null;
}

export interface RpcCallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gas?: string;
  calls?: RpcCallFrame[];
}
