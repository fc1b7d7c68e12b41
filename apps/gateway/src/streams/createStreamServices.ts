import type { ChainRegistry } from '@tributary/chains';
import {
  type TopicReplication,
  createStreamChangeAnnouncer,
  ensureTopics,
  hoursToMs,
  topicsFor,
} from '@tributary/bus';
import type { Pool } from '@tributary/db';
import { type OutageLog, createOutageLog, retryUntilDone } from '@tributary/runtime';
import type { WebhookPoster } from '@tributary/webhooks';
import type { Queue } from 'bullmq';
import type { Kafka, Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { createCursorCodec } from '../cursor/createCursorCodec.ts';
import { createFollowedChains } from '../data/createFollowedChains.ts';
import type { StreamRouteDeps } from './streamDeps.ts';

/**
 * The stream routes' dependencies, over clients main.ts built: the change producer connects (the
 * change topic made first, with its copies and retention) while the gateway already serves.
 */
export async function createStreamServices(opts: {
  clients: {
    kafka: Kafka;
    /** Where kafkajs' connection failures go (kafkaClientLogger): ended by the next change that reaches the broker. */
    kafkaOutage: OutageLog;
    /** The change producer (`plain`): a change is best effort, PostgreSQL holds it. */
    producer: Producer;
    /** The webhook queue (`waits`): test webhooks and replays must be added. */
    deliveryQueue: Queue;
    /** Test webhooks leave through the sender's own client, under the same policy. */
    webhookPoster: WebhookPoster;
  };
  settings: {
    topicPrefix: string;
    /** retention.ms of the change topic, set once the producer connects (unset: left as it is). */
    changesRetentionHours?: number;
    testWebhookTimeoutMs: number;
    secretRotationWindowMs: number;
    followedChainsCacheMs: number;
    /** What one stream body and one account may hold. */
    limits: StreamRouteDeps['limits'];
  };
  /** How the change topic is replicated, when the gateway is the first to need it (default: a single broker's). */
  replication?: TopicReplication;
  pool: Pool;
  chains: ChainRegistry;
  cursorSecret: string;
  logger: Logger;
}): Promise<{ deps: StreamRouteDeps; stop: () => void }> {
  const { settings } = opts;
  const { kafka, producer } = opts.clients;
  // The gateway does not need Kafka: it serves while the producer connects (with backoff, one log
  // line per outage); a stream change announced meanwhile waits for it, the call does not.
  const stopping = new AbortController();
  const changesRetentionHours = settings.changesRetentionHours;
  const connected = retryUntilDone(
    async () => {
      await ensureTopics(
        kafka,
        [
          {
            topic: topicsFor(settings.topicPrefix).streamChanges,
            ...(changesRetentionHours === undefined ? {} : { retentionMs: hoursToMs(changesRetentionHours) }),
          },
        ],
        { ...(opts.replication ? { replication: opts.replication } : {}), logger: opts.logger },
      );
      await producer.connect();
    },
    {
      outage: createOutageLog(opts.logger, 'kafka (stream change producer)'),
      signal: stopping.signal,
    },
  );
  connected.catch(() => undefined); // only given up when the gateway stops
  const announceChange = createStreamChangeAnnouncer({
    producer,
    topicPrefix: settings.topicPrefix,
    ready: connected,
    outage: opts.clients.kafkaOutage,
  });
  return {
    deps: {
      pool: opts.pool,
      chains: opts.chains,
      followedChains: createFollowedChains({
        pool: opts.pool,
        cacheMs: settings.followedChainsCacheMs,
        logger: opts.logger,
      }),
      cursors: createCursorCodec(opts.cursorSecret),
      announceChange,
      deliveryQueue: opts.clients.deliveryQueue,
      webhookPoster: opts.clients.webhookPoster,
      testWebhookTimeoutMs: settings.testWebhookTimeoutMs,
      limits: settings.limits,
      secretRotationWindowMs: settings.secretRotationWindowMs,
      logger: opts.logger,
    },
    /** Stops trying to connect the producer (main.ts closes the clients). */
    stop: () => stopping.abort(),
  };
}
