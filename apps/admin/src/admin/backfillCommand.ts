import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from '@tributary/db';
import {
  type BackfillRequest,
  cancelBackfill,
  followerCheckpointOf,
  getBackfillRequest,
  requestBackfill,
} from '@tributary/db/chain';
import { CommandFailure, UsageError } from './adminErrors.ts';

/** How often `--wait` reads the request's progress. */
const POLL_MS = 1_000;

/** A block number, chain id or request id argument: a non-negative safe integer in decimal. */
export function blockArg(what: string, value: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new UsageError(`${what} "${value}" is not a non-negative integer`);
  return Number(value);
}

export function describeBackfill(r: BackfillRequest): string {
  const range = `backfill ${r.id} on chain ${r.chainId}: blocks ${r.fromBlock} to ${r.toBlock}`;
  const progress = `${r.nextBlock - r.fromBlock} of ${r.toBlock - r.fromBlock + 1} re-published`;
  if (r.cancelledAt)
    return `${range}, cancelled after ${progress} (cancelled ${r.cancelledAt.toISOString()})`;
  if (r.finishedAt) return `${range} re-published (done ${r.finishedAt.toISOString()})`;
  return `${range}, ${progress}`;
}

/**
 * `backfill <from> [<to>] --chain <id> [--wait]`: a durable request that the chain's follower
 * re-publishes the range (final blocks, a chunk between new heads); `to` defaults to the follower's
 * checkpoint. With `wait`, prints each step of progress (`print`) until the request is done, and
 * fails when it gets cancelled (a script waiting on it must not go on as if it were done).
 */
export async function backfillCommand(
  pool: Pool,
  r: { chainId: number; fromBlock: number; toBlock?: number; wait: boolean },
  print: (line: string) => void,
): Promise<string> {
  let toBlock = r.toBlock;
  if (toBlock === undefined) {
    toBlock = await followerCheckpointOf(pool, r.chainId);
    if (toBlock === undefined)
      throw new CommandFailure(`chain ${r.chainId} has no follower checkpoint: give <toBlock>`);
  }
  if (toBlock < r.fromBlock) throw new UsageError(`<toBlock> ${toBlock} is below <fromBlock> ${r.fromBlock}`);
  let request = await requestBackfill(pool, { chainId: r.chainId, fromBlock: r.fromBlock, toBlock });
  if (!r.wait)
    return `${describeBackfill(request)}\nfollow it with: pnpm admin backfill status ${request.id}`;
  print(describeBackfill(request));
  while (!request.finishedAt) {
    await sleep(POLL_MS);
    const now = await getBackfillRequest(pool, request.id);
    if (!now) throw new CommandFailure(`backfill ${request.id} was deleted`);
    if (now.nextBlock !== request.nextBlock && !now.finishedAt) print(describeBackfill(now));
    request = now;
  }
  if (request.cancelledAt) throw new CommandFailure(describeBackfill(request));
  return describeBackfill(request);
}

/** `backfill status <requestId>`. */
export async function backfillStatusCommand(pool: Pool, id: number): Promise<string> {
  const request = await getBackfillRequest(pool, String(id));
  if (!request) throw new CommandFailure(`backfill ${id} not found`);
  return describeBackfill(request);
}

/**
 * `backfill cancel <requestId>`: the follower takes no further chunk of it (one in flight when the
 * cancel lands is still re-published). Cancelling twice is fine; a request already done cannot be.
 */
export async function backfillCancelCommand(pool: Pool, id: number): Promise<string> {
  const result = await cancelBackfill(pool, String(id));
  switch (result.outcome) {
    case 'cancelled':
      return describeBackfill(result.request);
    case 'already-cancelled':
      return `backfill ${id} was already cancelled\n${describeBackfill(result.request)}`;
    case 'already-done':
      throw new CommandFailure(
        `backfill ${id} is already done (${result.request.finishedAt?.toISOString()}): nothing to cancel`,
      );
    case 'not-found':
      throw new CommandFailure(`backfill ${id} not found`);
  }
}
