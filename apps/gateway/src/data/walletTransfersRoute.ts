import {
  countWalletTransfers,
  findWalletTransfers,
  latestTransferBlock,
  walletRangeTotal,
  walletTransferTotalAtHead,
} from '@tributary/db/queries';
import { walletPathParams, walletTransfersQuery } from '@tributary/schema';
import type { Request, Response } from 'express';
import { rawJsonArray } from '../json/rawJson.ts';
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
import { transferRecordJson } from './transferRecordJson.ts';

/**
 * GET /api/v2.2/:address/erc20/transfers (spec 4.1). from_block wins over from_date and
 * to_block over to_date, each side on its own. The first page pins the chain's newest transfer
 * block into the cursor: later pages and `total` keep to that range while new blocks arrive.
 * Without a lower bound (and with no upper bound below the pin), `total` is the wallet's stored
 * transfer count (of the given tokens: their per-token counts), read in the same statement as the
 * pin (one snapshot); otherwise the range is counted (walletRangeTotal, or the indexes with a token filter).
 */
export function walletTransfersRoute(deps: DataDeps) {
  return async (req: Request, res: Response) => {
    const wallet = parsePathParams(walletPathParams, req.params).address.toLowerCase();
    const q = parseQuery(walletTransfersQuery, req.query as Query);
    const chain = parseChain(deps.chains, q.chain);
    await deps.followedChains.assertFollowed(chain);
    const contracts = [...new Set((q.contract_addresses ?? []).map((a) => a.toLowerCase()))].sort();
    const fromBlock = parseBlock('from_block', q.from_block);
    const toBlock = parseBlock('to_block', q.to_block);
    const fromDate = parseDate('from_date', q.from_date);
    const toDate = parseDate('to_date', q.to_date);
    const limit = parseLimit(q.limit);
    const order = parseOrder(q.order);
    const cursorParam = q.cursor;

    const binding = deps.cursors.bind('erc20-transfers', {
      wallet,
      chain: chain.id,
      contracts,
      fromBlock,
      toBlock,
      fromDate: fromDate?.getTime(),
      toDate: toDate?.getTime(),
      limit,
      order,
    });
    const state =
      cursorParam === undefined ? undefined : deps.cursors.decode(binding, cursorParam, logPositionKey);
    const page = state?.page ?? 0;

    const range = await resolveBlockRange(deps.pool, chain.id, {
      fromBlock,
      toBlock,
      fromDate: fromBlock === undefined ? fromDate : undefined,
      toDate: toBlock === undefined ? toDate : undefined,
    });
    if (range.empty) {
      sendJson(res, 200, {
        page: String(page),
        page_size: String(limit),
        total: '0',
        cursor: '',
        result: [],
      });
      return;
    }
    const query = {
      chainId: chain.id,
      wallet,
      contractAddresses: contracts,
      fromBlock: range.fromBlock,
      order,
      limit,
      after: state ? { blockNumber: state.key.b, logIndex: state.key.l } : undefined,
    };
    let pin: number | null;
    let found: Awaited<ReturnType<typeof findWalletTransfers>>;
    let total: number;
    if (state) {
      // A later page: the range and the total of the first page.
      pin = state.pin ?? null;
      const toBlock = capToBlock(range.toBlock, pin);
      [found, total] = await Promise.all([
        findWalletTransfers(deps.pool, { ...query, toBlock }),
        state.total ?? countWalletTransfers(deps.pool, { ...query, toBlock }),
      ]);
    } else if (range.fromBlock === undefined && range.toBlock === undefined) {
      // The common first page: page, pin and total from the stored counts in one statement.
      found = await findWalletTransfers(deps.pool, { ...query, pinHead: true });
      pin = found.head?.pin ?? null;
      total = found.head?.total ?? 0;
    } else {
      // Block bounds: the stored counts still answer when only an upper bound at or past the head
      // is given (read with the pin, one snapshot). Otherwise the range is counted: from the
      // wallet's transfer checkpoints without a token filter, through the indexes with one.
      let counted: number | null = null;
      if (range.fromBlock === undefined) {
        const head = await walletTransferTotalAtHead(deps.pool, { ...query, toBlock: range.toBlock });
        pin = head.pin;
        counted = head.total;
      } else {
        pin = await latestTransferBlock(deps.pool, chain.id);
      }
      const toBlock = capToBlock(range.toBlock, pin);
      const rangeTotal = () =>
        pin !== null && toBlock !== undefined && contracts.length === 0
          ? walletRangeTotal(deps.pool, {
              chainId: chain.id,
              wallet,
              fromBlock: range.fromBlock,
              toBlock,
              pin,
              confirmations: chain.confirmations,
              checkpointBlocks: deps.transferCheckpointBlocks,
            })
          : countWalletTransfers(deps.pool, { ...query, toBlock });
      [found, total] = await Promise.all([
        findWalletTransfers(deps.pool, { ...query, toBlock }),
        counted ?? rangeTotal(),
      ]);
    }
    const tokens = await deps.tokenMetadata.lookup(
      chain.id,
      found.records.map((t) => t.tokenAddress),
    );
    const last = found.records.at(-1);
    const cursor =
      found.hasMore && last
        ? deps.cursors.encode<LogPositionKey>(binding, {
            page: page + 1,
            key: { b: last.blockNumber, l: last.logIndex },
            pin,
            total,
          })
        : '';
    sendJson(res, 200, {
      page: String(page),
      page_size: String(limit),
      total: String(total),
      cursor,
      result: rawJsonArray(found.records.map((t) => transferRecordJson(t, tokens.get(t.tokenAddress)))),
    });
  };
}
