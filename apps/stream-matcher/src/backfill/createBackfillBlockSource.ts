import type { Pool } from '@tributary/db';
import { readStoredBlocks } from '@tributary/db/chain';
import {
  APPROVAL_TOPIC0,
  type RpcBlock,
  type RpcLog,
  TRANSFER_TOPIC0,
  readTokenInfo,
  toBlockHeader,
  toChainLog,
  toHex,
} from '@tributary/evm';
import type { ChainLog, FullBlockEvent, TokenInfo } from '@tributary/schema';
import { BlockContentsUnavailableError } from '../complete/createBlockCompleter.ts';
import type { BlockReaders } from '../read/createBlockReaders.ts';

/** Where a backfilled block came from. */
export type BlockSource = 'tables' | 'node';

export interface BackfillBlockSource {
  /**
   * The final blocks [from, to] of a chain as `confirmed` block events with their logs, each read
   * from the query tables when they hold it and from the chain's node otherwise. Transactions and
   * internal transactions are never in the tables: the caller completes them from the node for a
   * stream that reads them. Throws BlockContentsUnavailableError while the node cannot answer.
   */
  read(chainId: number, from: number, to: number): Promise<{ event: FullBlockEvent; source: BlockSource }[]>;
}

const ERC20_TOPICS = new Set<string>([TRANSFER_TOPIC0, APPROVAL_TOPIC0]);

export function createBackfillBlockSource(deps: { pool: Pool; readers: BlockReaders }): BackfillBlockSource {
  /** Name, symbol and decimals of the ERC20 tokens of a block read from the node (the tables may not know them). */
  function tokenInfoOf(
    chainId: number,
    header: { number: number; hash: string },
    logs: ChainLog[],
  ): Promise<TokenInfo[]> {
    const tokens = new Set(logs.filter((l) => ERC20_TOPICS.has(l.topics[0] ?? '')).map((l) => l.address));
    const reader = deps.readers.forBlock(chainId, header);
    return Promise.all(
      [...tokens].map((token) =>
        readTokenInfo(token, (data) => reader.call({ to: token, data }).catch(() => null)),
      ),
    );
  }

  async function fromNode(chainId: number, number: number): Promise<FullBlockEvent> {
    const call = deps.readers.rpc(chainId);
    if (!call)
      throw new BlockContentsUnavailableError(
        `block ${number} of chain ${chainId} is not in the query tables and no RPC endpoint is configured for the chain (RPC_URL / EXTRA_RPC_URLS)`,
      );
    let block: RpcBlock | null;
    let logs: RpcLog[];
    try {
      block = await call<RpcBlock | null>('eth_getBlockByNumber', [toHex(number), false]);
      logs = block ? await call<RpcLog[]>('eth_getLogs', [{ blockHash: block.hash }]) : [];
    } catch (err) {
      throw new BlockContentsUnavailableError(
        `reading block ${number} of chain ${chainId} from the node failed: ${(err as Error).message}`,
        { cause: err },
      );
    }
    if (!block)
      throw new BlockContentsUnavailableError(`the node does not have block ${number} of chain ${chainId}`);
    const header = toBlockHeader(block);
    const chainLogs = logs
      .filter((l) => !l.removed)
      .map(toChainLog)
      .sort((a, b) => a.logIndex - b.logIndex);
    return {
      ...emptyEvent(chainId, header),
      logs: chainLogs,
      tokenInfo: await tokenInfoOf(chainId, header, chainLogs),
    };
  }

  return {
    async read(chainId, from, to) {
      const stored = await readStoredBlocks(deps.pool, chainId, from, to);
      const out: { event: FullBlockEvent; source: BlockSource }[] = [];
      for (let n = from; n <= to; n++) {
        const held = stored.get(n);
        if (held) {
          out.push({
            event: {
              ...emptyEvent(chainId, held.header as FullBlockEvent['block']),
              logs: held.logs as ChainLog[],
            },
            source: 'tables',
          });
        } else {
          out.push({ event: await fromNode(chainId, n), source: 'node' });
        }
      }
      return out;
    },
  };
}

function emptyEvent(chainId: number, header: FullBlockEvent['block']): FullBlockEvent {
  return {
    type: 'confirmed',
    v: 2,
    chainId,
    block: header,
    transactions: [],
    logs: [],
    transfers: [],
    internalTransactions: [],
    tokens: [],
    tokenInfo: [],
    accounts: [],
    hasTransactions: false,
    hasInternalTransactions: false,
  } as FullBlockEvent;
}
