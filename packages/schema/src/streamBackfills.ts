import { z } from 'zod';
import { streamId } from './streamRequests.ts';

// The per-stream backfill (beyond the hosted service): POST, GET and DELETE
// /streams/evm/{id}/backfill[/{backfillId}].

const blockNumberField = (what: string) =>
  z
    .number({ error: `${what} must be a block number` })
    .int({ error: `${what} must be an integer` })
    .nonnegative({ error: `${what} must not be negative` })
    .max(Number.MAX_SAFE_INTEGER, { error: `${what} is too large` })
    .meta({ description: what });

export const streamBackfillBody = z.object({
  chainId: z
    .string({ error: 'chainId must be a hex string such as "0x1"' })
    .regex(/^0x[0-9a-fA-F]{1,15}$/, { error: 'chainId must be a hex string such as "0x1"' })
    .meta({ description: 'One of the stream\'s chains, hex ("0x1")', example: '0x1' }),
  fromBlock: blockNumberField('The first block of the range'),
  toBlock: blockNumberField('The last block of the range (at most the block the chain follower reached)'),
  dryRun: z
    .boolean({ error: 'dryRun must be true or false' })
    .meta({ description: 'Count the blocks and matches of the range; send nothing' })
    .optional(),
});
export type StreamBackfillBody = z.infer<typeof streamBackfillBody>;

export const streamBackfillPathParams = z.object({
  id: streamId,
  backfillId: z
    .string()
    .regex(/^[0-9]{1,18}$/)
    .meta({ description: 'Backfill id, as the POST answered it', example: '1' }),
});

export const STREAM_BACKFILL_STATUSES = ['running', 'done', 'cancelled', 'failed'] as const;

export const streamBackfillResponse = z
  .object({
    id: z.string(),
    streamId: z.string(),
    chainId: z.string(),
    fromBlock: z.number().int(),
    toBlock: z.number().int(),
    dryRun: z.boolean(),
    status: z.enum(STREAM_BACKFILL_STATUSES),
    blocks: z.object({
      total: z.number().int(),
      done: z.number().int().meta({ description: 'Blocks evaluated so far' }),
      fromTables: z.number().int().meta({ description: 'Evaluated blocks read from the query tables' }),
      fromNode: z.number().int().meta({ description: "Evaluated blocks read from the chain's node" }),
    }),
    matchedBlocks: z.number().int().meta({ description: 'Blocks with something for the stream' }),
    webhooks: z.number().int().meta({
      description: 'Webhooks stored for delivery (a dry run: that would be sent)',
    }),
    delivered: z.number().int().meta({ description: 'Of those, delivered (a dry run: 0)' }),
    waiting: z.string().nullable().meta({ description: 'Why it is not moving now; null while it moves' }),
    error: z.string().nullable(),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: 'StreamBackfill' });

export const streamBackfillList = z.object({ result: z.array(streamBackfillResponse) });

// An ordered stream's numbered webhooks (GET /streams/evm/{id}/sequence): what a receiver should
// have received between two sequence numbers.

const sequenceParam = (name: string, example: string) =>
  z
    .string({ error: `${name} must be a single sequence number` })
    .regex(/^[0-9]{1,15}$/, { error: `${name} must be a sequence number` })
    .meta({
      description: `${name === 'from' ? 'First' : 'Last'} sequence number (at most 100 in all)`,
      example,
    });

export const streamSequenceQuery = z.object({
  from: sequenceParam('from', '1'),
  to: sequenceParam('to', '100'),
});

export const streamSequencePage = z
  .object({
    lastSequence: z.number().int().meta({ description: 'The last number the stream gave (0: none yet)' }),
    result: z.array(
      z.object({
        sequence: z.number().int(),
        deliveryId: z.string().meta({ description: 'Its webhook-id' }),
        chainId: z.string(),
        blockNumber: z.number().int(),
        blockHash: z.string(),
        status: z.string().meta({ description: 'pending, held, delivered or failed' }),
        payload: z
          .record(z.string(), z.unknown())
          .meta({ description: 'The webhook body as sent (retries 0)' }),
      }),
    ),
  })
  .meta({ id: 'StreamSequencePage' });
