import { z } from 'zod';
import { streamBody } from './streamBody.ts';
import { streamAddressBody } from './streamRequests.ts';

// Response bodies of the stream interface; the stream itself is its body echoed with its state.

export const STREAM_STATUSES = ['active', 'paused', 'error', 'terminated'] as const;
/** A stream's status: the one definition every package uses. */
export type StreamStatus = (typeof STREAM_STATUSES)[number];

export const DELIVERY_STATUSES = ['pending', 'held', 'delivered', 'failed'] as const;
/** A delivery's status (deliveries.status): the one definition every package uses. */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** What a stream response adds to the stored body (spec 2.6). */
export const streamState = z.object({
  id: z.string(),
  status: z.enum(STREAM_STATUSES),
  statusMessage: z.string(),
});

export const streamAddressResponse = z.object({
  streamId: z.string(),
  address: streamAddressBody.shape.address,
});

export const streamAddressPage = z.object({
  result: z.array(z.object({ address: z.string() })),
  total: z.number().int(),
  cursor: z.string().optional(),
});

export const historyItem = z
  .object({
    id: z.string(),
    date: z.string(),
    streamId: z.string(),
    tag: z.string(),
    webhookUrl: z.string(),
    status: z.string(),
    attempts: z.number().int(),
    errorMessage: z.string(),
    deliveredAt: z.string().nullable(),
    tinyPayload: z.object({
      chainId: z.string(),
      confirmed: z.boolean(),
      block: z.string(),
      records: z.string(),
      retries: z.string(),
    }),
    payload: z.record(z.string(), z.unknown()).optional().meta({ description: 'The webhook body' }),
  })
  .meta({ id: 'HistoryItem' });

export const historyPage = z.object({
  result: z.array(historyItem),
  total: z.number().int(),
  cursor: z.string().optional(),
  retainedSince: z.string().nullable().meta({
    description:
      'How far back the history reaches (beyond the hosted service): delivered webhooks of blocks timestamped before this (ISO 8601) may have been removed by retention; pending, held and failed ones are kept longer. null: nothing has been removed',
  }),
});

export const deliveryStatsResponse = z
  .object({
    totalWebhooksDelivered: z.number().int(),
    totalWebhooksFailed: z.number().int(),
    totalLogsProcessed: z.number().int(),
    totalTxsProcessed: z.number().int(),
    totalTxsInternalProcessed: z.number().int(),
  })
  .meta({ id: 'DeliveryStats' });

export const settingsResponse = z
  .object({
    secretKey: z
      .string()
      .meta({ description: 'The webhook secret: x-signature is keccak256(body + secret)' }),
    standardWebhooksKey: z.string().meta({
      description:
        'The same secret as a Standard Webhooks key (whsec_ + base64 of its UTF-8 bytes), as the official verifiers take it',
    }),
    previousSecretValidUntil: z.string().optional().meta({
      description:
        'Only during a rotation window: until when (ISO 8601) the previous secret still signs (x-signature with it alone, webhook-signature with both)',
    }),
  })
  .meta({ id: 'Settings' });

export const listenWebhook = z
  .object({
    id: z.string().meta({ description: 'The delivery id: the webhook-id the sender uses' }),
    blockNumber: z.string(),
    confirmed: z.boolean(),
    removed: z.boolean().meta({ description: 'A removal notice' }),
    headers: z.record(z.string(), z.string()).meta({
      description: "Every header of the POST, signed now with the account's secrets as the sender signs",
    }),
    body: z.string().meta({ description: 'The exact body bytes to POST' }),
  })
  .meta({ id: 'ListenWebhook' });

export const listenPage = z.object({
  result: z.array(listenWebhook),
  cursor: z.string().meta({ description: 'Pass it to the next request: it continues after these webhooks' }),
});

/** A stream as the gateway answers it: the stored body echoed, plus id, status and statusMessage. */
export const streamResponse = streamBody.extend(streamState.shape).meta({ id: 'Stream' });

/** GET /streams/evm: a page of streams; no cursor on the last page. */
export const streamPage = z.object({
  result: z.array(streamResponse),
  total: z.number().int(),
  cursor: z.string().optional(),
});
