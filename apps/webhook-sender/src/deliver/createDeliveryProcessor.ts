import {
  type DeliveryOutcome,
  type FollowUpJob,
  jobIdFor,
  nameThenEnqueue,
  renameThenEnqueue,
} from '@tributary/webhooks';
import { nextInSequence, setDeliveriesAside } from '@tributary/db/streams';
import { type WebhookJob, webhookJob } from '@tributary/schema';
import { createOutageLog } from '@tributary/runtime';
import { DelayedError, type Job, type Processor, type Queue, UnrecoverableError } from 'bullmq';
import { type AttemptDeps, attemptDelivery, createDeliveryStore, slowEndpointMs } from './attemptDelivery.ts';
import { createEndpointSlots } from './createEndpointSlots.ts';
import { createOwnFailureJudge } from './judgeOwnFailure.ts';

/** How long a job waits after an error of ours (not the receiver's): 1-3 s, jittered. */
const infraRetryMs = () => 1_000 + Math.floor(Math.random() * 2_000);

/** Thrown to make BullMQ schedule the next attempt through the custom backoff strategy. */
class RetryLater extends Error {
  override readonly name = 'RetryLater';
}

export interface DeliveryProcessor {
  /** Runs one job of the webhook queue: what main.ts gives the BullMQ worker it opens. */
  process: Processor;
  /** The retry schedule, as the worker's custom backoff strategy. */
  backoffStrategy(attemptsMade: number, type?: string, err?: Error, job?: { data?: unknown }): number;
  /** Endpoints with no free request slot in this process now. */
  saturatedEndpoints(): number;
}

/**
 * What the sender's BullMQ worker runs. The retry schedule lives here (custom backoff strategy): a failed attempt
 * throws, BullMQ waits `schedule[attempts made - 1]`, and once the schedule is used up the
 * attempt finishes the job as failed in history.
 *
 * A batch job (the first attempt of a block event's deliveries) runs its members side by side and
 * ends once each has an outcome recorded in PostgreSQL; a member to try again later, or whose
 * endpoint is busy or slow, goes on as its own delivery job, added before the batch job ends. A
 * sender killed mid-batch leaves the batch job to BullMQ's stalled check: another sender runs it
 * again, and members already delivered are skipped (their status is no longer pending).
 */
export function createDeliveryProcessor(
  deps: AttemptDeps & {
    /** The webhook queue (`waits`) the follow-up jobs of an attempt go to: built by main.ts. */
    followUps: Queue;
    /** Jobs the worker runs at once (slow endpoints may hold half of them). */
    concurrency: number;
    /** Requests in flight to one endpoint (origin) from this process (0: no bound). */
    endpointConcurrency: number;
    /** How old an `x-queue-size` count may be before it is counted again. */
    queueSizeMaxAgeMs: number;
    /**
     * Stores a job whose data is not a webhook job on the dead-letter topic (the one policy of
     * every consumer); resolves once stored. A failure puts the job off: it is never dropped unsaid.
     */
    deadLetter: (job: { id: string; name: string; data: unknown }, reason: string) => Promise<void>;
    /** Tries of a failure of ours of unknown cause before its delivery is set aside (default 5). */
    unknownAttempts?: number;
  },
): DeliveryProcessor {
  const schedule = deps.retryScheduleMs;
  const store = createDeliveryStore(deps.pool, {
    threshold: deps.successRateThreshold,
    queueSizeMaxAgeMs: deps.queueSizeMaxAgeMs,
    onError: (err) => deps.logger.warn({ err }, 'counting queued deliveries failed'),
  });
  // Slow endpoints hold at most half the job slots: a job whose request hangs holds its job slot.
  const slots = createEndpointSlots(deps.endpointConcurrency, {
    thresholdMs: slowEndpointMs(deps.timeoutMs),
    limit: Math.max(1, Math.floor(deps.concurrency / 2)),
  });
  const { followUps } = deps;
  /**
   * The next numbered delivery of an ordered stream goes now, under a job named on its row first
   * (its earlier job, waiting or parked, no longer owns it). Should this fail, the relay finds it:
   * pending, its turn come, and its job missing.
   */
  async function handTurn(streamId: string, sequence: number): Promise<void> {
    const next = await nextInSequence(deps.pool, streamId, sequence);
    if (!next) return;
    await renameThenEnqueue(deps.pool, followUps, [
      {
        deliveryId: next.id,
        expected: next.jobId,
        jobId: jobIdFor({ for: 'turn', deliveryId: next.id }),
        attemptsBefore: next.attempts,
        delayMs: 0,
      },
    ]);
  }
  const attemptDeps = { ...deps, store, slots, onSequenceSettled: handTurn };
  const ownFailures = createOwnFailureJudge({ unknownAttempts: deps.unknownAttempts });

  /**
   * Deliveries whose bookkeeping failed for good: failed with the reason (in history, to replay
   * once the cause is fixed), each on the dead-letter topic, said in the log. Throws when it
   * cannot record that (PostgreSQL or Kafka away): the job is put off and tried again.
   */
  async function setAside(job: Job, deliveryIds: readonly string[], reason: string) {
    const aside = await setDeliveriesAside(deps.pool, deliveryIds, reason);
    for (const deliveryId of aside) {
      await deps.deadLetter({ id: `${job.id}:${deliveryId}`, name: job.name, data: { deliveryId } }, reason);
    }
    deps.logger.error(
      { jobId: job.id, deliveries: aside, reason },
      'deliveries set aside: their bookkeeping failed for good (failed in history, replay once fixed)',
    );
  }

  // Until a slot of that endpoint is expected to be free (at most ten timeouts away).
  const parkFor = (endpoint: string) => slots.postponeFor(endpoint, deps.timeoutMs, 10 * deps.timeoutMs);

  async function deliverOne(job: Job, data: Extract<WebhookJob, { v: 1 }>, token?: string) {
    // Put off for an endpoint that is still busy: put off again, without reading the delivery.
    if (data.busyEndpoint !== undefined && slots.isBusy(data.busyEndpoint)) {
      await job.moveToDelayed(Date.now() + parkFor(data.busyEndpoint), token);
      throw new DelayedError();
    }
    const attemptsMade = (data.attemptsBefore ?? 0) + job.attemptsMade;
    const result = await attemptDelivery(attemptDeps, data.deliveryId, attemptsMade, false, job.id);
    switch (result.outcome) {
      case 'retry':
        throw new RetryLater(result.error);
      case 'throttled':
        // Until its turn under the stream's limit, without counting an attempt.
        await job.moveToDelayed(Date.now() + result.afterMs, token);
        throw new DelayedError();
      case 'postponed':
      case 'handed-off':
        // Back to the delayed set, without counting an attempt.
        if (data.busyEndpoint !== result.endpoint)
          await job.updateData({ ...data, busyEndpoint: result.endpoint });
        await job.moveToDelayed(Date.now() + parkFor(result.endpoint), token);
        throw new DelayedError();
      case 'delivered':
      case 'gave-up':
      case 'held':
      case 'dropped':
      case 'waits-turn':
        return result;
      default: {
        const never: never = result;
        return never;
      }
    }
  }

  /** What a batch member's outcome leaves to do: a job of its own, or nothing. */
  function followUpOf(deliveryId: string, result: DeliveryOutcome): FollowUpJob | undefined {
    switch (result.outcome) {
      case 'retry':
        return {
          deliveryId,
          jobId: jobIdFor({ for: 'retry', deliveryId }),
          attemptsBefore: 1,
          delayMs: result.after,
        };
      case 'postponed':
        return {
          deliveryId,
          jobId: jobIdFor({ for: 'alone', deliveryId }),
          attemptsBefore: 0,
          delayMs: parkFor(result.endpoint),
          busyEndpoint: result.endpoint,
        };
      case 'handed-off':
        return {
          deliveryId,
          jobId: jobIdFor({ for: 'alone', deliveryId }),
          attemptsBefore: 0,
          delayMs: 0,
          busyEndpoint: result.endpoint,
        };
      case 'throttled':
        return {
          deliveryId,
          jobId: jobIdFor({ for: 'alone', deliveryId }),
          attemptsBefore: 0,
          delayMs: result.afterMs,
        };
      case 'delivered':
      case 'gave-up':
      case 'held':
      case 'dropped':
      case 'waits-turn':
        return undefined;
      default: {
        const never: never = result;
        return never;
      }
    }
  }

  async function deliverBatch(job: Job, deliveryIds: readonly string[]) {
    const settled = await Promise.allSettled(
      deliveryIds.map((id) => attemptDelivery(attemptDeps, id, 0, true, job.id)),
    );
    const alone: FollowUpJob[] = [];
    const outcomes: Record<string, number> = {};
    let firstError: unknown;
    for (const [i, s] of settled.entries()) {
      const deliveryId = deliveryIds[i] as string;
      if (s.status === 'rejected') {
        const verdict = ownFailures.judge(deliveryId, s.reason);
        if (verdict.permanent) {
          await setAside(job, [deliveryId], verdict.reason);
          outcomes['set-aside'] = (outcomes['set-aside'] ?? 0) + 1;
        } else firstError ??= s.reason;
        continue;
      }
      ownFailures.settled(deliveryId);
      outcomes[s.value.outcome] = (outcomes[s.value.outcome] ?? 0) + 1;
      const next = followUpOf(deliveryIds[i] as string, s.value);
      // A backfill's batch hands its priority on: its members never overtake live webhooks.
      if (next) alone.push({ ...next, priority: job.opts.priority });
    }
    // Each row names its new job before the job exists: the relay never sees a member without one.
    await nameThenEnqueue(deps.pool, followUps, alone);
    // The batch runs again (postponed below): its members with an outcome are skipped then.
    if (firstError !== undefined) throw firstError;
    return outcomes;
  }

  const outage = createOutageLog(deps.logger, 'delivery bookkeeping (PostgreSQL)');
  async function runJob(job: Job, token?: string) {
    const parsed = webhookJob.safeParse(job.data);
    if (!parsed.success) {
      // A poison job (not one of ours, or from an incompatible version): failed for good, said
      // and counted. Its delivery, if any, is still pending in PostgreSQL: the relay enqueues it anew.
      const reason = `invalid job data: ${parsed.error.issues[0]?.message ?? 'schema'}`;
      try {
        await deps.deadLetter({ id: String(job.id), name: job.name, data: job.data }, reason);
      } catch (err) {
        outage.failed(err, { jobId: job.id });
        await job.moveToDelayed(Date.now() + infraRetryMs(), token);
        throw new DelayedError();
      }
      deps.logger.error(
        { jobId: job.id, name: job.name, reason },
        'poison job moved to the dead-letter topic',
      );
      throw new UnrecoverableError(reason);
    }
    const data = parsed.data;
    try {
      const result = await (data.v === 1
        ? deliverOne(job, data, token).then((r) => {
            ownFailures.settled(data.deliveryId);
            return r;
          })
        : deliverBatch(job, data.deliveryIds));
      outage.ok();
      return result;
    } catch (err) {
      if (err instanceof RetryLater || err instanceof DelayedError) throw err;
      // Not the receiver's failure: the delivery could not be read or its outcome not recorded.
      // The same way every time (a bug, a value PostgreSQL refuses): set aside, never cycled
      // forever. PostgreSQL restarting: tried again shortly, without using up an attempt of the
      // receiver's retry schedule. Should Redis be gone too, the job's lock expires and BullMQ's
      // stalled check hands it out again.
      if (data.v === 1) {
        const verdict = ownFailures.judge(data.deliveryId, err);
        if (verdict.permanent) {
          try {
            await setAside(job, [data.deliveryId], verdict.reason);
          } catch (asideErr) {
            outage.failed(asideErr, { jobId: job.id });
            await job.moveToDelayed(Date.now() + infraRetryMs(), token);
            throw new DelayedError();
          }
          throw new UnrecoverableError(verdict.reason);
        }
      }
      outage.failed(err, { jobId: job.id });
      await job.moveToDelayed(Date.now() + infraRetryMs(), token);
      throw new DelayedError();
    }
  }
  return {
    process: runJob,
    // A job that continues a batch member counts the attempts made before it.
    backoffStrategy: (attemptsMade, _type, _err, job) => {
      const before = (job?.data as { attemptsBefore?: number } | undefined)?.attemptsBefore ?? 0;
      return schedule[Math.min(before + attemptsMade - 1, schedule.length - 1)] ?? 0;
    },
    saturatedEndpoints: () => slots.saturated(),
  };
}
