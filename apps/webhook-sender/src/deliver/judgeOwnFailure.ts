import { type Failure, UNKNOWN_ATTEMPTS, classifyFailure } from '@tributary/runtime';

/** What an error of ours (not the receiver's) asks of a delivery: try again shortly, or set it aside. */
export type OwnFailureVerdict = { permanent: false; failure: Failure } | { permanent: true; reason: string };

/**
 * Tells the sender's own failures apart (classifyFailure): reading a delivery or recording its
 * outcome failed because PostgreSQL or Redis is away (transient: tried again shortly, forever),
 * or the same way every time (deterministic, or of unknown cause `unknownAttempts` times in a row
 * for that delivery): then retrying only keeps the job cycling, so the delivery is set aside.
 */
export function createOwnFailureJudge(opts: { unknownAttempts?: number } = {}) {
  const unknownAttempts = opts.unknownAttempts ?? UNKNOWN_ATTEMPTS;
  const unknownTries = new Map<string, number>();
  return {
    judge(deliveryId: string, err: unknown): OwnFailureVerdict {
      const failure = classifyFailure(err);
      if (failure.kind === 'transient') return { permanent: false, failure };
      if (failure.kind === 'unknown') {
        const tries = (unknownTries.get(deliveryId) ?? 0) + 1;
        if (tries < unknownAttempts) {
          unknownTries.set(deliveryId, tries);
          return { permanent: false, failure };
        }
        unknownTries.delete(deliveryId);
        return { permanent: true, reason: `delivery failed ${tries} times, cause unknown: ${failure.why}` };
      }
      unknownTries.delete(deliveryId);
      return { permanent: true, reason: `delivery failed for good: ${failure.why}` };
    },
    /** The delivery got an outcome: its count of unknown failures starts again. */
    settled(deliveryId: string) {
      unknownTries.delete(deliveryId);
    },
  };
}
