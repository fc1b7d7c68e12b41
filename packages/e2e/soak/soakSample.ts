import type { AppName } from '@tributary/testkit/bench';

/** One service's process, from its /metrics (prom-client's default metrics). */
export interface ServiceSample {
  rssBytes: number;
  heapUsedBytes: number;
  heapTotalBytes: number;
  /** Heap used just after the last full collection (runtime's nodejs_heap_live_bytes): what it retains. */
  heapLiveBytes: number;
  /**
   * The same less V8's compiled code and bytecode with their metadata (runtime's
   * nodejs_heap_live_data_bytes, read at a full collection at most once a minute): what the application holds.
   */
  heapLiveDataBytes: number;
  externalBytes: number;
  /** Event-loop delay percentiles over the interval since the previous scrape (prom-client resets them). */
  eventLoopP50Ms: number;
  eventLoopP99Ms: number;
  eventLoopMaxMs: number;
  /** CPU over the interval (process_cpu_seconds_total), in cores; null at the first sample. */
  cpuCores?: number | null;
}

export interface PostgresSizes {
  databaseBytes: number;
  /** Each table's size without its indexes (heap, TOAST, maps), partitions counted in their root. */
  tables: Record<string, number>;
  indexes: Record<string, { table: string; bytes: number }>;
  /** Files in pg_wal. */
  walDirBytes: number;
  /** WAL bytes written per second since the previous sample (pg_current_wal_lsn difference); null at the first. */
  walWrittenPerSecond: number | null;
}

export interface KafkaDisk {
  /** Everything under the broker's log dir, as allocated on disk. */
  logDirBytes: number;
  /** By topic, every partition of it. */
  topics: Record<string, number>;
}

interface LatencySample {
  /** Unconfirmed webhooks' first attempts that arrived in the interval. */
  webhooks: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** What the soak measured at one moment; rates and percentiles cover the interval before it. */
export interface SoakSample {
  /** Minutes since the load started. */
  minute: number;
  at: string;
  /** A service that did not answer its /metrics is missing. */
  services: Partial<Record<AppName, ServiceSample>>;
  /** Exits of each service its supervisor saw that the soak did not ask for, since the start. */
  unplannedExits: Partial<Record<AppName, number>>;
  postgres: PostgresSizes | null;
  kafka: KafkaDisk;
  redis: { usedMemoryBytes: number; rssBytes: number } | null;
  latency: LatencySample;
  delivery: {
    /** Webhooks the receiver answered 2xx, per second. */
    deliveredPerSecond: number;
    /** POSTs the receiver got (first attempts and retries, answered or failed), per second. */
    requestsPerSecond: number;
    /** POSTs it answered 500, per second. */
    failedPerSecond: number;
    /** The sender's attempts by outcome, per second (tributary_webhook_attempts_total). */
    attemptsPerSecond: Record<string, number>;
    /** Deliveries pending in PostgreSQL (the backlog, retries waiting included). */
    pending: number | null;
    oldestPendingSeconds: number | null;
  };
  pipeline: {
    blocks: number;
    logs: number;
    followerLagBlocks: number | null;
    projectorLagMessages: number | null;
    matcherLagMessages: number | null;
    /** Mean time of one projector transaction over the interval (tributary_projector_batch_duration_seconds). */
    projectorBatchMs: number | null;
    /** Mean time the matcher took per block event over the interval (tributary_matcher_block_duration_seconds). */
    matcherBlockMs: number | null;
  };
  api: { requests: number; errors: number; p50Ms: number; p99Ms: number };
}
