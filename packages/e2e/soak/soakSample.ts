import type { AppName, HostCpu } from '@tributary/testkit/bench';

/** The machine over the interval: its CPU by state, and what the soak adds to it. */
export interface HostSample extends HostCpu {
  /** By process group over the interval, in cores (cpuSecondsBetween's groups), when they were read. */
  processes?: Record<string, number>;
  /**
   * The machine's speed at the sample: a fixed JavaScript workload's time in a process of its own,
   * ms (timeJsWorkloadInChild; lower is faster). It rises when the machine slows, whoever slows it.
   */
  jsWorkloadMs?: number;
}

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
  /** Memory outside the heap that JavaScript objects hold (Buffers and more), at the sample: it saws with garbage. */
  externalBytes: number;
  /**
   * The Buffers' and ArrayBuffers' memory in the second after the last full collection, the least
   * read (runtime's nodejs_array_buffers_live_bytes): what is still referenced. Absent in runs written before it.
   */
  arrayBuffersLiveBytes?: number;
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

/** What PostgreSQL did over the interval (see postgresActivityBetween). */
export interface PostgresActivity {
  /** Checkpoints completed (timed and requested), and those requested (WAL filled max_wal_size, or a CHECKPOINT). */
  checkpoints: number;
  checkpointsRequested: number;
  /** Time checkpoints spent writing and syncing over the interval. */
  checkpointWriteSeconds: number;
  /** Bytes of buffers written per second by checkpoints, by the background writer, and by backends themselves. */
  checkpointWriteBytesPerSecond: number;
  bgwriterWriteBytesPerSecond: number;
  /** Null from PostgreSQL 17, which counts backends' writes in pg_stat_io. */
  backendWriteBytesPerSecond: number | null;
  /** Bytes of blocks read per second from outside shared buffers (the OS cache or the disk). */
  readBytesPerSecond: number;
  /** Blocks found in shared buffers, in percent of those asked for; null when none was asked for. */
  bufferHitPercent: number | null;
  tempBytesPerSecond: number;
  /** Tables (partitions by their own name) whose autovacuum or autoanalyze finished in the interval. */
  autovacuumed: string[];
  autoanalyzed: string[];
  /** Vacuums running at the sample, with their phase and how long they have run. */
  vacuumsRunning: { table: string; phase: string; seconds: number }[];
  /** Dead tuples of every table at the sample. */
  deadTuples: number;
  /**
   * Rows updated in the interval by table (partitions by their own name), and how many of those
   * updates were HOT (no index entry added); absent in runs before it was sampled.
   */
  updates?: { table: string; all: number; hot: number }[];
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
  /**
   * What the parts every service shares did over the interval: PostgreSQL's maintenance and
   * caching, and the machine's CPU. Missing in runs written before they were sampled; null at the
   * first sample or when unread.
   */
  postgresActivity?: PostgresActivity | null;
  host?: HostSample | null;
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
    /**
     * The sender's relay: mean time of a pass over the pending deliveries (it walks their index,
     * dead entries included until the day's partition is vacuumed). Missing in runs written before.
     */
    relayPassMs?: number | null;
  };
  api: { requests: number; errors: number; p50Ms: number; p99Ms: number };
}
