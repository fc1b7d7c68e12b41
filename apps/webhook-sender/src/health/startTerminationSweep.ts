import type { Pool } from '@tributary/db';
import { terminateStaleErrorStreams } from '@tributary/db/streams';
import type { Logger } from 'pino';

/** Periodically moves streams that stayed in error too long to `terminated` and announces it. */
export function startTerminationSweep(opts: {
  pool: Pool;
  logger: Logger;
  afterMs: number;
  everyMs: number;
  /** Announces the change to the matchers (best effort, never throws). */
  onTerminated: (streamId: string) => void;
}): () => void {
  const timer = setInterval(() => {
    terminateStaleErrorStreams(opts.pool, opts.afterMs)
      .then((ids) => {
        for (const id of ids) {
          opts.logger.warn({ streamId: id }, 'stream terminated after staying in error');
          opts.onTerminated(id);
        }
      })
      .catch((err: unknown) => opts.logger.error({ err }, 'termination sweep failed'));
  }, opts.everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
