import type { Address, PublicClient } from 'viem';
import { expect } from 'vitest';
import {
  type ChainSnapshot,
  type TokenTruth,
  chainTransfers,
  expectedTransferRecord,
  readToken,
  tokenOwners,
  walletTransfers,
} from './chainTruth.ts';
import { type GatewayClient, transferRecords } from './createGatewayClient.ts';

const CHAIN = '0x7a69';

/**
 * Asserts what a user of the data interface sees for these wallets and tokens: every transfer
 * record, the transfers `total` of every page, and every holder's balance, equal to the chain at
 * `snapshot.head`.
 */
export async function expectGatewayMatchesChain(opts: {
  gw: GatewayClient;
  chain: PublicClient;
  snapshot: ChainSnapshot;
  wallets: string[];
  tokens: Address[];
}): Promise<void> {
  const { gw, chain, snapshot } = opts;
  const truths = new Map<string, TokenTruth>();
  for (const t of chainTransfers(snapshot)) {
    if (!truths.has(t.token)) truths.set(t.token, await readToken(chain, t.token));
  }
  for (const wallet of opts.wallets) {
    const pages = await gw.getAllPages(`/api/v2.2/${wallet}/erc20/transfers`, { chain: CHAIN });
    const expected = walletTransfers(snapshot, wallet);
    expect({
      wallet,
      totals: [...new Set(pages.map((p) => p.body.total))],
      transfers: pages.flatMap(transferRecords),
    }).toEqual({
      wallet,
      totals: [String(expected.length)],
      transfers: expected.map((t) =>
        expectedTransferRecord(t, truths.get(t.token)!, snapshot.blocks.get(t.log.blockNumber!)!),
      ),
    });
  }
  for (const token of opts.tokens) {
    const pages = await gw.getAllPages(`/api/v2.2/erc20/${token}/owners`, { chain: CHAIN });
    const owners = await tokenOwners(chain, snapshot, token);
    expect({
      token,
      owners: pages.flatMap((p) => p.body.result).map((o) => [o.owner_address, o.balance, o.is_contract]),
    }).toEqual({ token, owners: owners.map((o) => [o.owner, o.balance.toString(), o.isContract]) });
  }
}
