import { type TokenInfo, type TokenOwnerRow, findTokenOwners } from '@tributary/db';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { RawJson } from '../json/rawJson.ts';
import { sendJson } from '../json/sendJson.ts';
import {
  type Query,
  parseAddress,
  parseChain,
  parseLimit,
  parseOrder,
  single,
} from '../params/queryParams.ts';
import type { DataDeps } from './dataDeps.ts';
import { formatUnits, percentageOf } from './formatUnits.ts';

const ownerKey = z.object({ b: z.string().regex(/^\d{1,78}$/), o: z.string().regex(/^0x[0-9a-f]{40}$/) });
type OwnerKey = z.infer<typeof ownerKey>;

/**
 * Owner record (spec 2.4). No price source exists, so usd_value is null; balance_formatted and
 * the percentage are null when the token's decimals or total supply are unknown.
 */
export function toOwnerRecord(o: TokenOwnerRow, token: TokenInfo | undefined) {
  const decimals = token?.decimals ?? null;
  const supply = token?.totalSupply ?? null;
  return {
    owner_address: o.ownerAddress,
    owner_address_label: o.label,
    balance: o.balance.toString(),
    balance_formatted: decimals === null ? null : formatUnits(o.balance, decimals),
    usd_value: null,
    is_contract: o.isContract ?? false,
    percentage_relative_to_total_supply:
      supply === null || supply <= 0n ? null : percentageOf(o.balance, supply),
  };
}

/** GET /api/v2.2/erc20/:token_address/owners (spec 4.3): holders by balance, largest first. */
export function tokenOwnersRoute(deps: DataDeps) {
  return async (req: Request, res: Response) => {
    const q = req.query as Query;
    const token = parseAddress(req.params['token_address'] as string | undefined);
    const chain = parseChain(deps.chains, single(q, 'chain'));
    const limit = parseLimit(single(q, 'limit'));
    const order = parseOrder(single(q, 'order'));
    const cursorParam = single(q, 'cursor');

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
    const info = found.token;
    const last = found.rows.at(-1);
    const cursor =
      found.hasMore && last
        ? deps.cursors.encode<OwnerKey>(binding, {
            page: page + 1,
            key: { b: last.balance.toString(), o: last.ownerAddress },
          })
        : '';
    const body: Record<string, unknown> = {
      page: String(page),
      page_size: String(limit),
      cursor,
    };
    if (info?.totalSupply != null) body['total_supply'] = info.totalSupply.toString();
    // Owner records hold no bigint (balances are strings): the native serialiser writes them.
    body['result'] = new RawJson(JSON.stringify(found.rows.map((o) => toOwnerRecord(o, info))));
    sendJson(res, 200, body);
  };
}
