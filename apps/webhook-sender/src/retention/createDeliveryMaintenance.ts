import type { Pool, PoolClient } from '@tributary/db';
import {
  type DeliveryDay,
  type DroppedDay,
  type ExpiredDeliveries,
  createDeliveryDay,
  dropDeliveryDay,
  expireKeptDeliveries,
  foldDeliveryCounts,
  listDeliveryDays,
  withDeliveryMaintenanceLock,
} from '@tributary/db/streams';
import { type OutageLog, createOutageLog } from '@tributary/runtime';
import type { Logger } from 'pino';

const DAY_MS = 86_400_000;

/** What the operator keeps (README, Operations: retention). */
export interface RetentionPolicy {
  /** Delivered webhooks keep their body and attempts this long (DELIVERY_RETENTION_DAYS). */
  deliveredDays: number;
  /** Failed and held ones, this long (FAILED_DELIVERY_RETENTION_DAYS); pending ones always. */
  failedDays: number;
}

/** What one maintenance pass did. */
export interface MaintenancePass {
  created: DeliveryDay[];
  /** Days left to the default partition: it holds rows of theirs (blocks timestamped ahead). */
  blocked: DeliveryDay[];
  dropped: DroppedDay[];
  /** Days due whose rows to keep are too many to move yet: dropped once their held and failed rows expire. */
  deferred: DeliveryDay[];
  expired: ExpiredDeliveries;
}

export interface DeliveryMaintenance {
  /** Days made ahead, days due dropped, expired rows of the default partition removed; undefined when another sender holds the lock. */
  pass(): Promise<MaintenancePass | undefined>;
  /** Folds the counters' deltas; undefined when another sender holds the lock. */
  fold(): Promise<number | undefined>;
  stop(): Promise<void>;
}

/** `YYYY-MM-DD` of a UTC day, `offset` days after the one `at` falls in. */
export const utcDay = (at: Date, offset = 0): DeliveryDay =>
  new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS + offset * DAY_MS).toISOString().slice(0, 10);

/** Days of partitions made ahead of today. */
const AHEAD_DAYS = 3;
/** Rows to keep above which a day waits (the move holds both tables exclusively). */
const MOVE_LIMIT = 100_000;
/** How long a partition's DDL waits for its lock before the day waits for the next pass. */
const LOCK_TIMEOUT_MS = 3_000;
/** Rows of the default partition removed per transaction. */
const EXPIRE_BATCH = 5_000;

/**
 * The deliveries' upkeep, run by every sender and done by one at a time (an advisory lock): each
 * `passEveryMs`, the day partitions of the next `AHEAD_DAYS` days are made, the days whose time is
 * up are dropped (their rows still pending, held or failed moved first), and rows of the default
 * partition whose time is up are removed; each `foldEveryMs`, the counters' deltas are folded.
 * Each step is a transaction of its own that waits at most `LOCK_TIMEOUT_MS` for a table lock, so
 * it never queues the deliveries behind a long statement; a step that fails is tried again on the
 * next pass.
 */
export function createDeliveryMaintenance(deps: {
  pool: Pool;
  logger: Logger;
  policy: RetentionPolicy;
  passEveryMs: number;
  foldEveryMs: number;
  /** The clock (tests move it; nothing else reads the time). */
  now?: () => Date;
  onPass?: (pass: MaintenancePass) => void;
}): DeliveryMaintenance {
  const now = deps.now ?? (() => new Date());
  const locked = <T>(work: (client: PoolClient) => Promise<T>) =>
    withDeliveryMaintenanceLock(deps.pool, work);

  /**
   * One pass; undefined when another sender holds the lock. What it did before a failure or a
   * lock held elsewhere is said and counted all the same.
   */
  async function runPass(): Promise<MaintenancePass | undefined> {
    const done: MaintenancePass = {
      created: [],
      blocked: [],
      dropped: [],
      deferred: [],
      expired: { delivered: 0, held: 0, failed: 0 },
    };
    try {
      return (await passSteps(done)) ? done : undefined;
    } finally {
      report(done);
      deps.onPass?.(done);
    }
  }

  /** The steps of a pass, recorded in `done`; false when another sender holds the lock. */
  async function passSteps(done: MaintenancePass): Promise<boolean> {
    const at = now();
    const deliveredCutoff = new Date(at.getTime() - deps.policy.deliveredDays * DAY_MS);
    const failedCutoff = new Date(at.getTime() - deps.policy.failedDays * DAY_MS);
    const existing = new Set(await listDeliveryDays(deps.pool));
    for (let i = 0; i <= AHEAD_DAYS; i++) {
      const day = utcDay(at, i);
      if (existing.has(day)) continue;
      const result = await locked((client) => createDeliveryDay(client, day, LOCK_TIMEOUT_MS));
      if (result === undefined) return false;
      if (result === 'created') done.created.push(day);
      if (result === 'blocked') done.blocked.push(day);
    }
    // A day goes once all of it is older than the delivered cutoff.
    const due = [...existing].filter(
      (day) => Date.parse(`${day}T00:00:00Z`) + DAY_MS <= deliveredCutoff.getTime(),
    );
    for (const day of due) {
      const dropped = await locked(async (client) => ({
        result: await dropDeliveryDay(client, day, {
          failedCutoff,
          moveLimit: MOVE_LIMIT,
          lockTimeoutMs: LOCK_TIMEOUT_MS,
        }),
      }));
      if (dropped === undefined) return false;
      if (dropped.result) done.dropped.push(dropped.result);
      else done.deferred.push(day);
    }
    // A bounded number of batches a pass: a long backlog (a big stream's held rows expiring)
    // goes over several passes, and the counters are folded in between.
    for (let i = 0; i < 20; i++) {
      const batch = await locked((client) =>
        expireKeptDeliveries(client, { deliveredCutoff, failedCutoff, limit: EXPIRE_BATCH }),
      );
      if (batch === undefined) return false;
      done.expired.delivered += batch.delivered;
      done.expired.held += batch.held;
      done.expired.failed += batch.failed;
      if (batch.delivered < EXPIRE_BATCH && batch.held + batch.failed < EXPIRE_BATCH) break;
    }
    return true;
  }

  function report(done: MaintenancePass) {
    const { created, blocked, dropped, deferred, expired } = done;
    if (created.length > 0) deps.logger.info({ days: created }, 'delivery partitions made ahead');
    if (blocked.length > 0)
      deps.logger.warn(
        { days: blocked },
        'days left to the default partition: it holds deliveries of blocks timestamped on them',
      );
    for (const d of dropped)
      deps.logger.info(
        { day: d.day, removed: d.removed, kept: d.kept },
        'delivery partition dropped: its delivered webhooks removed, the rest kept',
      );
    if (deferred.length > 0)
      deps.logger.warn(
        { days: deferred, moveLimit: MOVE_LIMIT },
        'days due kept whole: too many held or failed deliveries to move; dropped once those expire',
      );
    if (expired.delivered + expired.held + expired.failed > 0)
      deps.logger.info({ expired }, 'kept deliveries expired');
  }

  const passOutage: OutageLog = createOutageLog(deps.logger, 'delivery retention');
  const foldOutage: OutageLog = createOutageLog(deps.logger, 'delivery counters');
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  // One step at a time in this process (a fold waits for a pass that is dropping a day).
  const serial = <T>(step: () => Promise<T | undefined>): Promise<T | undefined> => {
    const next = running.catch(() => undefined).then(() => (stopped ? undefined : step()));
    running = next;
    return next;
  };
  const pass = () => serial(runPass);
  const fold = () => serial(() => locked((client) => foldDeliveryCounts(client)));
  const every = (ms: number, step: () => Promise<unknown>, outage: OutageLog) => {
    const timer = setInterval(() => {
      step().then(
        () => outage.ok(),
        (err: unknown) => outage.failed(err),
      );
    }, ms);
    timer.unref();
    return timer;
  };
  const timers = [every(deps.passEveryMs, pass, passOutage), every(deps.foldEveryMs, fold, foldOutage)];

  return {
    pass,
    fold,
    async stop() {
      stopped = true;
      for (const t of timers) clearInterval(t);
      await running.catch(() => undefined);
    },
  };
}
