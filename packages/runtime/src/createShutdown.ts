import type { Logger } from 'pino';

export type Phase = 'intake' | 'drain' | 'close';

interface Step {
  name: string;
  phase: Phase;
  run: () => Promise<void> | void;
}

const ORDER: Phase[] = ['intake', 'drain', 'close'];

export interface Shutdown {
  /** intake: stop taking work (HTTP, consumers, workers); drain: finish in-flight work and commit; close: pools and clients. */
  register(name: string, phase: Phase, run: () => Promise<void> | void): void;
  /** Runs every step once, phase by phase (steps of one phase in reverse order of registration). */
  run(reason: string): Promise<void>;
  /** SIGTERM/SIGINT start the shutdown; the process exits when it is done or when the deadline forces it. */
  installSignalHandlers(): void;
  readonly signal: AbortSignal;
}

export function createShutdown(opts: {
  logger: Logger;
  deadlineMs: number;
  onStart?: () => void;
  exit?: (code: number) => void;
}): Shutdown {
  const steps: Step[] = [];
  const controller = new AbortController();
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let running: Promise<void> | undefined;
  let failed = false;

  async function runAll(reason: string): Promise<void> {
    opts.logger.info({ reason, deadlineMs: opts.deadlineMs }, 'shutdown started');
    controller.abort(new Error(`shutdown: ${reason}`));
    opts.onStart?.();
    for (const phase of ORDER) {
      const inPhase = steps.filter((s) => s.phase === phase).reverse();
      await Promise.all(
        inPhase.map(async (step) => {
          const started = Date.now();
          try {
            await step.run();
            opts.logger.info({ step: step.name, phase, ms: Date.now() - started }, 'shutdown step done');
          } catch (err) {
            failed = true;
            opts.logger.error({ step: step.name, phase, err }, 'shutdown step failed');
          }
        }),
      );
    }
    opts.logger.info({ failed }, 'shutdown complete');
  }

  const shutdown: Shutdown = {
    signal: controller.signal,
    register(name, phase, run) {
      steps.push({ name, phase, run });
    },
    run(reason) {
      running ??= runAll(reason);
      return running;
    },
    installSignalHandlers() {
      const onSignal = (sig: NodeJS.Signals) => {
        if (running) {
          opts.logger.warn({ signal: sig }, 'second signal: exiting now');
          exit(130);
          return;
        }
        // kafkajs and BullMQ close() can hang: the deadline forces the exit.
        const timer = setTimeout(() => {
          opts.logger.error({ deadlineMs: opts.deadlineMs }, 'shutdown deadline passed: forcing exit');
          exit(70);
        }, opts.deadlineMs);
        timer.unref();
        shutdown.run(sig).then(
          () => exit(failed ? 1 : 0),
          () => exit(1),
        );
      };
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
    },
  };
  return shutdown;
}
