import type { Pool } from '@tributary/db';
import { findKnownAddressKinds, findKnownTokens } from '@tributary/db/chain';
import {
  ZERO_ADDRESS,
  type NftContractInfo,
  decodeNftEvent,
  decodeTransfer,
  readNftContractInfo,
  readTokenMetadata,
} from '@tributary/evm';
import type { Logger } from '@tributary/runtime';
import type { AccountKind, Erc20Transfer, FullBlockEvent, TokenInfo, TokenMetadata } from '@tributary/schema';
import type { Rpc } from '../rpc/createRpc.ts';
import type { FetchedBlock } from './fetchBlockRange.ts';
import { mapLimit } from '@tributary/evm';

/** What the follower publishes: a block event without its type. */
export type BlockBody = Omit<FullBlockEvent, 'type'>;

interface Enriched {
  bodies: BlockBody[];
  /** Remembers the tokens and accounts of these bodies; call only once they are published. */
  commit(): void;
}

export interface BlockEnricher {
  enrich(blocks: FetchedBlock[]): Promise<Enriched>;
  /** A reorg orphaned blocks above `number`: tokens first seen there must be read again. */
  forgetAbove(number: number): void;
}

/** Transfer parties whose kind is known, kept so that each is asked for once (a set of addresses). */
const MAX_CACHED_ACCOUNTS = 500_000;

/**
 * Turns fetched blocks into event bodies: decodes ERC20 transfers, reads the metadata of tokens
 * seen for the first time (memory cache, then the `tokens` table, then the chain) and the code
 * presence of transfer parties seen for the first time (eth_getCode, batched). Every body names
 * the name, symbol and decimals of each token it has transfers for (`tokenInfo`), and the name,
 * symbol and ERC165 standard of each contract with ERC721/ERC1155 events in it (read from the
 * chain once per contract and process: NFT contracts have no rows in the ERC20 tokens table).
 */
export function createBlockEnricher(deps: {
  rpc: Rpc;
  pool: Pool;
  chainId: number;
  logger: Logger;
  /** The follower's canonical hash at a height, when it still holds that height. */
  canonicalHash: (number: number) => string | undefined;
  /** eth_getCode for first-seen transfer parties (owners' is_contract); off skips it (bulk backfills). */
  accountKinds?: boolean;
}): BlockEnricher {
  // token -> first-seen block number and its name, symbol, decimals
  const tokens = new Map<string, { first: number; info: TokenInfo }>();
  // NFT contract -> first-seen block number and its name, symbol, standard
  const nftContracts = new Map<string, { first: number; info: TokenInfo }>();
  const accounts = new Set<string>();

  return {
    forgetAbove(number) {
      for (const [token, { first }] of tokens) if (first > number) tokens.delete(token);
      for (const [c, { first }] of nftContracts) if (first > number) nftContracts.delete(c);
    },
    async enrich(blocks) {
      const batchHash = new Map(blocks.map((b) => [b.header.number, b.header.hash as string]));
      const hashAt = (n: number) => batchHash.get(n) ?? deps.canonicalHash(n);
      // Decoded transfers and, per block, the distinct tokens they move (a transfer's token is its log's address).
      const transfersOf: Erc20Transfer[][] = [];
      const tokensOf: string[][] = [];
      const nftsOf: string[][] = [];
      const nftFirst = new Map<string, number>();
      // First sighting of each token and each transfer party in this batch, oldest block first.
      const tokenFirst = new Map<string, number>();
      const accountFirst = new Map<string, number>();
      for (const b of blocks) {
        const transfers: Erc20Transfer[] = [];
        const blockTokens = new Set<string>();
        const blockNfts = new Set<string>();
        for (const log of b.logs) {
          const t = decodeTransfer(log);
          if (!t) {
            const c = log.address;
            if (!blockNfts.has(c) && decodeNftEvent(log)) {
              blockNfts.add(c);
              if (!nftContracts.has(c) && !nftFirst.has(c)) nftFirst.set(c, b.header.number);
            }
            continue;
          }
          transfers.push(t);
          const token = log.address;
          if (!blockTokens.has(token)) {
            blockTokens.add(token);
            if (!tokens.has(token) && !tokenFirst.has(token)) tokenFirst.set(token, b.header.number);
          }
          if (deps.accountKinds === false) continue;
          for (const a of [t.from, t.to]) {
            if (a !== ZERO_ADDRESS && !accounts.has(a) && !accountFirst.has(a))
              accountFirst.set(a, b.header.number);
          }
        }
        transfersOf.push(transfers);
        tokensOf.push([...blockTokens]);
        // A contract with both ERC20 transfers and NFT events is named once, as a token.
        nftsOf.push([...blockNfts].filter((c) => !blockTokens.has(c)));
      }

      const known = await findKnownTokens(deps.pool, deps.chainId, [...tokenFirst.keys()]);
      const toRead: [string, number][] = [];
      for (const [token, first] of tokenFirst) {
        const row = known.get(token);
        const firstSeen = row ? row.readAtBlock + 1 : undefined;
        // Known only if it was first seen at or before this sighting, on the chain we follow.
        const stillCanonical =
          row !== undefined &&
          firstSeen !== undefined &&
          firstSeen <= first &&
          (row.firstSeenHash === null || (hashAt(firstSeen) ?? row.firstSeenHash) === row.firstSeenHash);
        if (stillCanonical) {
          const { name, symbol, decimals } = row;
          tokens.set(token, {
            first: firstSeen!,
            info: { address: token as `0x${string}`, name, symbol, decimals },
          });
        } else toRead.push([token, first]);
      }
      const metadata = await mapLimit(toRead, 8, ([token, first]) =>
        readTokenMetadata(deps.rpc.client, token as `0x${string}`, BigInt(first)),
      );
      const nftRead = await mapLimit([...nftFirst], 8, async ([c, first]) => ({
        first,
        info: nftInfo(await readNftContractInfo(deps.rpc.client, c as `0x${string}`, BigInt(first))),
      }));
      const nftReadInfo = new Map(nftRead.map((r) => [r.info.address as string, r.info]));
      const nftInfoOf = (c: string): TokenInfo =>
        nftReadInfo.get(c) ??
        nftContracts.get(c)?.info ?? {
          address: c as `0x${string}`,
          name: null,
          symbol: null,
          decimals: null,
        };
      const metaByBlock = groupBy(metadata, (m) => m.readAtBlock + 1);
      const readInfo = new Map(metadata.map((m) => [m.address as string, toInfo(m)]));
      const infoOf = (token: string): TokenInfo =>
        readInfo.get(token) ??
        tokens.get(token)?.info ?? {
          address: token as `0x${string}`,
          name: null,
          symbol: null,
          decimals: null,
        };

      const knownKinds = await findKnownAddressKinds(deps.pool, deps.chainId, [...accountFirst.keys()]);
      const toCheck = [...accountFirst].filter(([a]) => !knownKinds.has(a));
      const kinds = await mapLimit(toCheck, 64, async ([address, first]) => {
        const code = await deps.rpc.client.getCode({
          address: address as `0x${string}`,
          blockNumber: BigInt(first),
        });
        return {
          block: first,
          kind: { address, isContract: code !== undefined && code !== '0x' } as AccountKind,
        };
      });
      const kindsByBlock = groupBy(kinds, (k) => k.block);

      const bodies: BlockBody[] = blocks.map((b, i) => ({
        v: 2,
        chainId: deps.chainId,
        block: b.header,
        transactions: b.transactions ?? [],
        logs: b.logs,
        internalTransactions: b.internalTransactions ?? [],
        transfers: transfersOf[i]!,
        tokens: metaByBlock.get(b.header.number) ?? ([] as TokenMetadata[]),
        tokenInfo: [...tokensOf[i]!.map(infoOf), ...nftsOf[i]!.map(nftInfoOf)],
        accounts: (kindsByBlock.get(b.header.number) ?? []).map((k) => k.kind),
        hasTransactions: b.transactions !== null,
        hasInternalTransactions: b.internalTransactions !== null,
        hasAccountKinds: deps.accountKinds !== false,
      }));
      return {
        bodies,
        commit() {
          for (const m of metadata) tokens.set(m.address, { first: m.readAtBlock + 1, info: toInfo(m) });
          for (const r of nftRead) nftContracts.set(r.info.address, r);
          if (accounts.size + accountFirst.size > MAX_CACHED_ACCOUNTS) accounts.clear();
          for (const a of accountFirst.keys()) accounts.add(a);
        },
      };
    },
  };
}

function toInfo(m: TokenMetadata): TokenInfo {
  return { address: m.address, name: m.name, symbol: m.symbol, decimals: m.decimals };
}

function nftInfo(c: NftContractInfo): TokenInfo {
  return { address: c.address, name: c.name, symbol: c.symbol, decimals: null, contractType: c.contractType };
}

function groupBy<T, K>(items: readonly T[], key: (t: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}
