import type { ChainRegistry } from '@tributary/chains';
import type { Pool } from '@tributary/db';
import { type StreamChange, streamId } from '@tributary/schema';
import type { WebhookPoster } from '@tributary/webhooks';
import type { Queue } from 'bullmq';
import type { Response } from 'express';
import type { StreamLimits } from '@tributary/stream-rules';
import type { Logger } from 'pino';
import type { CursorCodec } from '../cursor/createCursorCodec.ts';
import type { FollowedChains } from '../data/createFollowedChains.ts';
import { NotFoundError } from '../errors/apiErrors.ts';
import type { AccountQuotas } from './streamLimitsEnv.ts';

export interface StreamRouteDeps {
  pool: Pool;
  chains: ChainRegistry;
  /** A stream on a chain that is not followed is accepted (as the hosted service does) and logged. */
  followedChains: FollowedChains;
  cursors: CursorCodec;
  /**
   * Tells every stream-matcher instance to reload a stream now (Kafka `streams.changes.v1`), best
   * effort: matchers also find the committed change before their next block.
   */
  announceChange: (change: StreamChange) => void;
  /** The webhook delivery queue: replays and resumed (held) deliveries are enqueued here. */
  deliveryQueue: Queue;
  /** POSTs test webhooks within the operator's policy of where webhooks may go. */
  webhookPoster: WebhookPoster;
  testWebhookTimeoutMs: number;
  /** What one stream body may hold, and what one account may keep (README "Limits"). */
  limits: { stream: StreamLimits; quotas: AccountQuotas };
  /** How long a replaced webhook secret keeps signing (SECRET_ROTATION_WINDOW_MS). */
  secretRotationWindowMs: number;
  logger: Logger;
}

/** The account the gateway's auth put on the response. */
export function accountOf(res: Response): { id: string; webhookSecret: string } {
  const account = res.locals['account'] as { id: string; webhookSecret: string } | undefined;
  if (!account) throw new Error('stream routes mounted without authentication');
  return account;
}

export function isUuid(raw: unknown): raw is string {
  return streamId.safeParse(raw).success;
}

export function streamIdParam(raw: unknown): string {
  if (!isUuid(raw)) throw new NotFoundError('Stream not found');
  return raw.toLowerCase();
}
