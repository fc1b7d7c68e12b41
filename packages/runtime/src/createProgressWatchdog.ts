import type { Logger } from 'pino';

export interface ProgressWatchdog {
  /** Work was done (a batch committed, a block evaluated). */
  progress(): void;
  /** A readiness check: throws while work waits and nothing moved for `stallMs`. */
  check(): void;
  /** Milliseconds since work has been waiting without progress (0 when idle or moving). */
  stalledMs(): number;
  /** One probe of the backlog now (the timer calls it every INTERVAL_MS). */
  tick(): Promise<void>;
  stop(): void;
}

/** How often the backlog is probed (tests shorten it). */
const INTERVAL_MS = 5_000;

/**
 * Turns a silent stall into a restart. Every INTERVAL_MS it asks how much work waits (a
 * consumer's lag); while some waits and `progress()` was not called for `stallMs`, the service
 * is not ready, and after `exitAfterMs` it calls `onStalled` once (which exits the process, so
 * the supervisor starts it afresh). An idle service (nothing waiting) is never stalled. While the
 * backlog probe fails (its broker is away) a stall already declared stays, but the clock towards
 * the exit starts again when the probe answers: a restart cannot bring a broker back.
 */
export function createProgressWatchdog(opts: {
  name: string;
  logger: Logger;
  stallMs: number;
  exitAfterMs: number;
  intervalMs?: number;
  backlog: () => Promise<number>;
  onStalled: (reason: string) => void;
  now?: () => number;
}): ProgressWatchdog {
  const now = opts.now ?? Date.now;
  let lastProgress = now();
  let waitingSince: number | undefined;
  let backlog = 0;
  let stalled = false;
  let exited = false;
  let probeFailing = false;

  const stalledFor = () => (waitingSince === undefined ? 0 : now() - Math.max(lastProgress, waitingSince));

  async function tick(): Promise<void> {
    try {
      backlog = await opts.backlog();
      if (probeFailing) opts.logger.info({ watchdog: opts.name }, 'backlog probe recovered');
      probeFailing = false;
    } catch (err) {
      if (!probeFailing) opts.logger.warn({ watchdog: opts.name, err }, 'backlog probe failed');
      probeFailing = true;
      // The broker the probe asks is away: so is the work, and a restart would not bring it
      // back. The clock starts again once the probe answers.
      waitingSince = undefined;
      return;
    }
    if (backlog <= 0) {
      waitingSince = undefined;
      if (stalled) opts.logger.info({ watchdog: opts.name }, 'no work waiting: no longer stalled');
      stalled = false;
      return;
    }
    waitingSince ??= now();
    const ms = stalledFor();
    if (ms >= opts.stallMs && !stalled) {
      stalled = true;
      opts.logger.error(
        { watchdog: opts.name, backlog, stalledMs: ms },
        'work is waiting and nothing moves: not ready',
      );
    }
    if (ms >= opts.exitAfterMs && !exited) {
      exited = true;
      const reason = `${opts.name}: ${backlog} waiting and no progress for ${Math.round(ms / 1000)} s`;
      opts.logger.fatal(
        { watchdog: opts.name, backlog, stalledMs: ms },
        'stalled too long: exiting for a restart',
      );
      opts.onStalled(reason);
    }
  }

  const timer = setInterval(() => void tick(), opts.intervalMs ?? INTERVAL_MS);
  timer.unref();
  return {
    progress() {
      lastProgress = now();
      if (stalled) opts.logger.info({ watchdog: opts.name }, 'progress again: ready');
      stalled = false;
    },
    check() {
      if (stalled)
        throw new Error(
          `${opts.name} stalled: ${backlog} waiting, no progress for ${Math.round(stalledFor() / 1000)} s`,
        );
    },
    stalledMs: () => (stalled ? stalledFor() : 0),
    tick,
    stop: () => clearInterval(timer),
  };
}
