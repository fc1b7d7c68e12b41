import { topicsFor } from './topicsFor.ts';
import { type StreamChange, streamChange } from '@tributary/schema';
import type { Producer } from 'kafkajs';

/** A stream change of now: what the gateway (config, addresses) and the sender (status) announce. */
export function streamChangeOf(streamId: string, kind: StreamChange['kind']): StreamChange {
  return { v: 1, streamId, kind, at: Date.now() };
}

/**
 * Announces stream changes on `streams.changes.v1`, keyed by stream id, checked against the
 * contract the matchers read them with; `topicPrefix` isolates deployments and tests.
 *
 * Best effort, by design: a change is durable once PostgreSQL committed it, and every matcher
 * checks PostgreSQL for changes before the blocks of each Kafka fetch. The event only lets matchers
 * reload a stream before that. So the caller neither waits for Kafka nor fails with it (a stream
 * API call answers while Kafka is away; a delivery's outcome is recorded): the send waits for
 * `ready` (the producer's connection), and a failure goes to `outage`.
 */
export function createStreamChangeAnnouncer(opts: {
  producer: Producer;
  topicPrefix: string;
  ready?: Promise<unknown>;
  outage: { ok(): void; failed(err: unknown): void };
}): (change: StreamChange) => void {
  const topic = topicsFor(opts.topicPrefix).streamChanges;
  return (change) => {
    const value = JSON.stringify(streamChange.parse(change));
    (async () => {
      await opts.ready;
      await opts.producer.send({ topic, messages: [{ key: change.streamId, value }] });
    })().then(
      () => opts.outage.ok(),
      (err: unknown) => opts.outage.failed(err),
    );
  };
}
