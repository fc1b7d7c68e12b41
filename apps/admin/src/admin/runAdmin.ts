import { parseArgs } from 'node:util';
import { createKafka } from '@tributary/bus';
import { type Pool, createPool } from '@tributary/db';
import type { StreamStatus } from '@tributary/schema';
import { redisConnection } from '@tributary/config';
import { openWebhookQueue } from '@tributary/webhooks';
import type { Queue } from 'bullmq';
import { CommandFailure, UsageError, uuidArg } from './adminErrors.ts';
import {
  backfillCancelCommand,
  backfillCommand,
  backfillStatusCommand,
  blockArg,
} from './backfillCommand.ts';
import type { AdminEnv } from './adminEnv.ts';
import { acknowledgeDeadLettersCommand, listDeadLettersCommand } from './deadLettersCommand.ts';
import { listStreamsCommand } from './listStreamsCommand.ts';
import { replayDeliveryCommand } from './replayDeliveryCommand.ts';
import { showStreamCommand } from './showStreamCommand.ts';

export const ADMIN_USAGE = [
  'usage: pnpm admin streams list [--status active|paused|error|terminated] [--account <id>] [--json]',
  '       pnpm admin streams show <streamId> [--json]',
  '       pnpm admin deliveries replay <deliveryId>',
  '       pnpm admin backfill <fromBlock> [<toBlock>] --chain <id> [--wait]',
  '       pnpm admin backfill status <requestId>',
  '       pnpm admin backfill cancel <requestId>',
  '       pnpm admin dead-letters list [--all] [--json]',
  '       pnpm admin dead-letters ack',
].join('\n');

/** What the command printed and how it ended: 0 done, 1 failed (not found, a server down), 2 bad usage. */
export interface AdminResult {
  code: 0 | 1 | 2;
  out: string;
  err: string;
}

const STATUSES: readonly StreamStatus[] = ['active', 'paused', 'error', 'terminated'];

/** Runs one admin command against the deployment that `env` names. */
export async function runAdmin(
  argv: readonly string[],
  env: AdminEnv,
  /** Progress lines of a command that waits (printed as they come). */
  print: (line: string) => void = () => undefined,
): Promise<AdminResult> {
  let pool: Pool | undefined;
  let queue: Queue | undefined;
  const poolOf = () => {
    pool ??= createPool({ connectionString: env.DATABASE_URL, max: 2 });
    return pool;
  };
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        status: { type: 'string' },
        account: { type: 'string' },
        json: { type: 'boolean' },
        chain: { type: 'string' },
        wait: { type: 'boolean' },
        all: { type: 'boolean' },
      },
    });
    const [group, command, ...rest] = positionals;
    const json = values.json === true;
    const only = (allowed: string[]) => {
      const given = Object.keys(values).filter((k) => !allowed.includes(k));
      if (given.length > 0) throw new UsageError(`--${given[0]} does not apply to ${group} ${command}`);
    };
    const noMore = () => {
      if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
    };
    if (group === 'backfill' && (command === 'status' || command === 'cancel')) {
      only([]);
      const given = rest.shift();
      if (given === undefined) throw new UsageError('the backfill request id is missing');
      noMore();
      const id = blockArg('the request id', given);
      const run = command === 'status' ? backfillStatusCommand : backfillCancelCommand;
      return { code: 0, out: await run(poolOf(), id), err: '' };
    }
    if (group === 'backfill') {
      only(['chain', 'wait']);
      if (command === undefined) throw new UsageError('<fromBlock> is missing');
      if (values.chain === undefined) throw new UsageError('--chain <id> is required');
      const to = rest.shift();
      noMore();
      const out = await backfillCommand(
        poolOf(),
        {
          chainId: blockArg('--chain', values.chain),
          fromBlock: blockArg('<fromBlock>', command),
          ...(to === undefined ? {} : { toBlock: blockArg('<toBlock>', to) }),
          wait: values.wait === true,
        },
        print,
      );
      return { code: 0, out, err: '' };
    }
    const key = `${group ?? ''} ${command ?? ''}`;
    switch (key) {
      case 'streams list': {
        only(['status', 'account', 'json']);
        noMore();
        const status = values.status;
        if (status !== undefined && !STATUSES.includes(status as StreamStatus))
          throw new UsageError(`--status must be one of ${STATUSES.join(', ')}`);
        const accountId = values.account === undefined ? undefined : uuidArg('--account', values.account);
        const out = await listStreamsCommand(poolOf(), {
          json,
          ...(status ? { status: status as StreamStatus } : {}),
          ...(accountId ? { accountId } : {}),
        });
        return { code: 0, out, err: '' };
      }
      case 'streams show': {
        only(['json']);
        const id = uuidArg('the stream id', rest.shift());
        noMore();
        return { code: 0, out: await showStreamCommand(poolOf(), id, json), err: '' };
      }
      case 'deliveries replay': {
        only([]);
        const id = uuidArg('the delivery id', rest.shift());
        noMore();
        // One connection try, one try per command, no offline queue: a Redis that is down fails
        // the command before the delivery is touched, instead of hanging it.
        queue = openWebhookQueue({
          redis: redisConnection(env),
          prefix: env.WEBHOOK_QUEUE_PREFIX,
          mode: 'once',
          onBroken: () => undefined, // waitUntilReady below throws it
        });
        queue.on('error', () => undefined); // the failing command reports it
        await queue.waitUntilReady();
        return { code: 0, out: await replayDeliveryCommand(poolOf(), queue, id), err: '' };
      }
      case 'dead-letters list': {
        only(['all', 'json']);
        noMore();
        const kafka = createKafka({ brokers: env.KAFKA_BROKERS, clientId: `${env.KAFKA_CLIENT_ID}-admin` });
        const out = await listDeadLettersCommand(poolOf(), kafka, {
          topicPrefix: env.KAFKA_TOPIC_PREFIX,
          all: values.all === true,
          json,
        });
        return { code: 0, out, err: '' };
      }
      case 'dead-letters ack': {
        only([]);
        noMore();
        return { code: 0, out: await acknowledgeDeadLettersCommand(poolOf()), err: '' };
      }
      default:
        throw new UsageError(group === undefined ? 'no command given' : `unknown command "${key.trim()}"`);
    }
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
      return { code: 2, out: '', err: `${(err as Error).message}\n${ADMIN_USAGE}` };
    if (err instanceof CommandFailure) return { code: 1, out: '', err: (err as Error).message };
    return { code: 1, out: '', err: `failed: ${describe(err)}` };
  } finally {
    await Promise.allSettled([queue?.close(), pool?.end()]);
  }
}

/** A foreign error in one line (an AggregateError from a refused connection has an empty message). */
function describe(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return describe(err.errors[0]);
  if (err instanceof Error) return err.message || (err as { code?: string }).code || err.name;
  return String(err);
}
