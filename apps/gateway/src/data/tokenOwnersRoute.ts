import { type TokenOwnerRecord, findTokenOwners } from '@tributary/db/queries';
import { tokenOwnersQuery, tokenPathParams } from '@tributary/schema';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { rawJsonArray } from '../json/rawJson.ts';
import { sendJson } from '../json/sendJson.ts';
import { parsePathParams, parseQuery } from '../params/parseQuery.ts';
import { type Query, parseChain, parseLimit, parseOrder } from '../params/queryParams.ts';
import type { DataDeps } from './dataDeps.ts';

const ownerKey = z.object({ b: z.string().regex(/^\d{1,78}$/), o: z.string().regex(/^0x[0-9a-f]{40}$/) });
type OwnerKey = z.infer<typeof ownerKey>;

/**
 * Owner record (spec 2.4), from the members PostgreSQL wrote (see TokenOwnerRecord) and the
 * percentage of the total supply: balance * 10^20 / supply, truncated, then / 10^18 as a double,
 * the same number whether the digits come from a bigint or from text. No price source exists, so
 * usd_value is null; balance_formatted and the percentage are null when the token's decimals or
 * total supply are unknown.
 */
function ownerRecordJson(o: TokenOwnerRecord): string {
  const percent = o.percentScaled === null ? 'null' : String(Number(o.percentScaled) / 1e18);
  return `{${o.members},"percentage_relative_to_total_supply":${percent}}`;
}

/** GET /api/v2.2/erc20/:token_address/owners (spec 4.3): holders by balance, largest first. */
export function tokenOwnersRoute(deps: DataDeps) {
  return async (req: Request, res: Response) => {
    const token = parsePathParams(tokenPathParams, req.params).token_address.toLowerCase();
    const q = parseQuery(tokenOwnersQuery, req.query as Query);
    const chain = parseChain(deps.chains, q.chain);
    await deps.followedChains.assertFollowed(chain);
    const limit = parseLimit(q.limit);
    const order = parseOrder(q.order);
    const cursorParam = q.cursor;

    const binding = deps.cursors.bind('erc20-owners', { token, chain: chain.id, limit, order });
    const state = cursorParam === undefined ? undefined : deps.cursors.decode(binding, cursorParam, ownerKey);
    const page = state?.page ?? 0;

    const found = await findTokenOwners(deps.pool, {
      chainId: chain.id,
      token,
      order,
      limit,
      after: state ? { balance: BigInt(state.key.b), ownerAddress: state.key.o } : undefined,
    });
    const last = found.records.at(-1);
    const cursor =
      found.hasMore && last
        ? deps.cursors.encode<OwnerKey>(binding, {
            page: page + 1,
            key: { b: last.balance, o: last.ownerAddress },
          })
        : '';
    const body: Record<string, unknown> = {
      page: String(page),
      page_size: String(limit),
      cursor,
    };
    if (found.totalSupply !== null) body['total_supply'] = found.totalSupply;
    // Beyond the hosted wire format (extra fields are allowed): see README, Limits.
    if (found.supplyMismatch !== null) {
      body['supply_mismatch'] = {
        block_number: found.supplyMismatch.blockNumber,
        total_supply_on_chain: found.supplyMismatch.chainTotalSupply,
      };
    }
    body['result'] = rawJsonArray(found.records.map(ownerRecordJson));
    sendJson(res, 200, body);
  };
}
