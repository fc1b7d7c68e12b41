import { findContractLogs } from '@tributary/db/queries';
import { contractLogsQuery, contractPathParams } from '@tributary/schema';
import type { Request, Response } from 'express';
import { RawJson } from '../json/rawJson.ts';
import { sendJson } from '../json/sendJson.ts';
import { parsePathParams, parseQuery } from '../params/parseQuery.ts';
import {
  type Query,
  parseBlock,
  parseChain,
  parseDate,
  parseLimit,
  parseOrder,
} from '../params/queryParams.ts';
import { capToBlock, resolveBlockRange } from './blockRange.ts';
import { type DataDeps, type LogPositionKey, logPositionKey } from './dataDeps.ts';

/**
 * GET /api/v2.2/:address/logs (spec 4.2). topic0 is required. block_number wins over
 * from_block/to_block; any block parameter wins over both dates; from_date/to_date apply only
 * when no block parameter is given.
 */
export function contractLogsRoute(deps: DataDeps) {
  return async (req: Request, res: Response) => {
    const address = parsePathParams(contractPathParams, req.params).address.toLowerCase();
    const q = parseQuery(contractLogsQuery, req.query as Query);
    const chain = parseChain(deps.chains, q.chain);
    await deps.followedChains.assertFollowed(chain);
    const topic0 = q.topic0.toLowerCase();
    const blockNumber = parseBlock('block_number', q.block_number);
    const fromBlockParam = parseBlock('from_block', q.from_block);
    const toBlockParam = parseBlock('to_block', q.to_block);
    const fromDate = parseDate('from_date', q.from_date);
    const toDate = parseDate('to_date', q.to_date);
    const limit = parseLimit(q.limit);
    const order = parseOrder(q.order);
    const cursorParam = q.cursor;

    const binding = deps.cursors.bind('contract-logs', {
      address,
      chain: chain.id,
      topic0,
      blockNumber,
      fromBlock: fromBlockParam,
      toBlock: toBlockParam,
      fromDate: fromDate?.getTime(),
      toDate: toDate?.getTime(),
      limit,
      order,
    });
    const state =
      cursorParam === undefined ? undefined : deps.cursors.decode(binding, cursorParam, logPositionKey);
    const page = state?.page ?? 0;

    const anyBlock = blockNumber !== undefined || fromBlockParam !== undefined || toBlockParam !== undefined;
    const range = await resolveBlockRange(
      deps.pool,
      chain.id,
      blockNumber !== undefined
        ? { fromBlock: blockNumber, toBlock: blockNumber }
        : anyBlock
          ? { fromBlock: fromBlockParam, toBlock: toBlockParam }
          : { fromDate, toDate },
    );
    if (range.empty) {
      sendJson(res, 200, { page: String(page), page_size: String(limit), cursor: '', result: [] });
      return;
    }
    // The first page pins the newest log block in the same statement; later pages keep its pin.
    const found = await findContractLogs(deps.pool, {
      chainId: chain.id,
      address,
      topic0,
      fromBlock: range.fromBlock,
      toBlock: state ? capToBlock(range.toBlock, state.pin) : range.toBlock,
      order,
      limit,
      after: state ? { blockNumber: state.key.b, logIndex: state.key.l } : undefined,
      pinHead: state === undefined,
    });
    const pin = state ? state.pin : found.pin;
    const last = found.records.at(-1);
    const cursor =
      found.hasMore && last
        ? deps.cursors.encode<LogPositionKey>(binding, {
            page: page + 1,
            key: { b: last.blockNumber, l: last.logIndex },
            pin,
          })
        : '';
    sendJson(res, 200, {
      page: String(page),
      page_size: String(limit),
      cursor,
      // Written by PostgreSQL (findContractLogs).
      result: new RawJson(`[${found.records.map((r) => r.json).join(',')}]`),
    });
  };
}
