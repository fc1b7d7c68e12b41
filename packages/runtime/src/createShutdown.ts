import type { Logger } from 'pino';
import { startHardDeadline } from './startHardDeadline.ts';

type Phase = 'intake' | 'drain' | 'close';

interface Step {
  name: string;
  phase: Phase;
  run: () => Promise<void> | void;
}

const ORDER: Phase[] = ['intake', 'drain', 'close'];

/**
 * What the exit code tells a supervisor (compose, `npm start`, Kubernetes): whether starting the
 * process again can help. Every service exits with one of these.
 */
export const EXIT_CODES = {
  /** Stopped as asked (a signal), every step done. */
  stopped: 0,
  /** A step failed while stopping as asked: what it did not flush is recovered from what is durable. */
  stepFailed: 1,
  /** The deadline passed with steps still running (kafkajs and BullMQ `close()` can hang). */
  deadline: 70,
  /** A fatal error a fresh process may not hit (a lost connection, an unhandled rejection): restart. */
  restart: 75,
  /** A fatal error a restart alone will not clear (configuration, data that needs an operator). */
  noRestart: 78,
  /** A second SIGINT/SIGTERM while stopping: exit now. */
  interrupted: 130,
} as const;

/** How long past its deadline a shutdown that cannot run its timers is killed (SIGKILL). */
export const HARD_DEADLINE_EXTRA_MS = 5_000;

export interface Shutdown {
  /** intake: stop taking work (HTTP, consumers, workers); drain: finish in-flight work and commit; close: pools and clients. */
  register(name: string, phase: Phase, run: () => Promise<void> | void): void;
  /** Runs every step once, phase by phase (steps of one phase in reverse order of registration). */
  run(reason: string): Promise<void>;
  /**
   * Stops the process for good: runs the steps under the deadline, then exits. `exitCode` says
   * whether a restart can help (EXIT_CODES); when the steps fail on a clean stop, `stepFailed`.
   * A second call while stopping changes nothing (the first reason wins).
   */
  exit(reason: string, exitCode?: number): void;
  /** A fatal error: logged at fatal level, then `exit` with `restart` (or `noRestart` when it will not help). */
  fail(reason: string, err: unknown, opts?: { restartHelps?: boolean }): void;
  /** SIGTERM/SIGINT start the shutdown; the process exits when it is done or when the deadline forces it. */
  installSignalHandlers(): void;
  readonly signal: AbortSignal;
}

export function createShutdown(opts: {
  logger: Logger;
  deadlineMs: number;
  onStart?: () => void;
  /** Instead of process.exit (tests): no hard deadline then, the process is not this shutdown's. */
  exit?: (code: number) => void;
}): Shutdown {
  const steps: Step[] = [];
  const controller = new AbortController();
  const exitProcess = opts.exit ?? ((code: number) => process.exit(code));
  let running: Promise<void> | undefined;
  let exiting = false;
  let exited = false;
  let failed = false;

  const exitOnce = (code: number) => {
    if (exited) return;
    exited = true;
    exitProcess(code);
  };

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
    exit(reason, exitCode = EXIT_CODES.stopped) {
      if (exiting) return;
      exiting = true;
      // Every way out has the same deadline: a step that hangs never keeps a dead service alive.
      // Not unref'd: a step that waits on nothing must not let the process end with another code.
      const timer = setTimeout(() => {
        opts.logger.error({ reason, deadlineMs: opts.deadlineMs }, 'shutdown deadline passed: forcing exit');
        exitOnce(exitCode === EXIT_CODES.stopped ? EXIT_CODES.deadline : exitCode);
      }, opts.deadlineMs);
      // That timer needs the event loop: should a busy loop hold it, a thread of its own kills the process.
      if (opts.exit === undefined) {
        try {
          startHardDeadline({
            ms: opts.deadlineMs + HARD_DEADLINE_EXTRA_MS,
            service: String(opts.logger.bindings()['service'] ?? ''),
            reason,
          });
        } catch (err) {
          opts.logger.warn({ err }, 'no hard deadline for this shutdown: its thread did not start');
        }
      }
      shutdown.run(reason).then(
        () => {
          clearTimeout(timer);
          const code = exitCode === EXIT_CODES.stopped && failed ? EXIT_CODES.stepFailed : exitCode;
          opts.logger.info({ reason, exitCode: code }, 'exiting');
          exitOnce(code);
        },
        () => exitOnce(exitCode === EXIT_CODES.stopped ? EXIT_CODES.stepFailed : exitCode),
      );
    },
    fail(reason, err, failOpts) {
      const restartHelps = failOpts?.restartHelps ?? true;
      opts.logger.fatal({ err, reason, restartHelps }, reason);
      shutdown.exit(reason, restartHelps ? EXIT_CODES.restart : EXIT_CODES.noRestart);
    },
    installSignalHandlers() {
      const onSignal = (sig: NodeJS.Signals) => {
        if (exiting) {
          opts.logger.warn({ signal: sig }, 'second signal: exiting now');
          exitOnce(EXIT_CODES.interrupted);
          return;
        }
        shutdown.exit(sig, EXIT_CODES.stopped);
      };
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
    },
  };
  return shutdown;
}
