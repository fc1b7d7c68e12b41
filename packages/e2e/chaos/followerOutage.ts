import { readFileSync } from 'node:fs';
import type { SupervisedApp } from './superviseApp.ts';

export interface FollowerOutage {
  /** `frozen`: SIGSTOP then SIGCONT (the process resumes with what it held); `down`: SIGKILL, kept down, then started afresh. */
  how: 'frozen' | 'down';
  from: number;
  until: number;
  /** The node's head when it stopped and when it came back: the blocks it has to catch up on. */
  headFrom: number;
  headUntil: number;
}

/** Stops the follower for `ms` while the run goes on mining blocks, then lets it come back. */
export async function stopFollower(opts: {
  follower: SupervisedApp;
  how: FollowerOutage['how'];
  ms: number;
  head: () => Promise<number>;
  log: (line: string) => void;
}): Promise<FollowerOutage> {
  const headFrom = await opts.head();
  const from = Date.now();
  if (opts.how === 'frozen') opts.follower.freeze();
  else opts.follower.holdDown();
  opts.log(
    `follower ${opts.how === 'frozen' ? 'frozen (SIGSTOP)' : 'killed and kept down'} for ${opts.ms / 1000} s at head ${headFrom}`,
  );
  await new Promise((r) => setTimeout(r, opts.ms));
  const headUntil = await opts.head();
  if (opts.how === 'frozen') opts.follower.thaw();
  else opts.follower.release();
  opts.log(`follower back (${opts.how}): ${headUntil - headFrom} blocks mined meanwhile`);
  return { how: opts.how, from, until: Date.now(), headFrom, headUntil };
}

export interface CatchUp {
  /** The first progress line in backfill mode after the outage: when, and the block it reached. */
  at: string;
  block: number;
  head: number;
}

/**
 * The follower's own word that it caught up on the outage's blocks: its first progress line with
 * `"mode":"backfill"` (it publishes blocks already `confirmations` deep at once) after the outage,
 * with a head at least the one the outage ended at (a frozen follower first finishes the step it
 * was in). Null when it never said so.
 */
export function findCatchUp(logFile: string, outage: FollowerOutage): CatchUp | null {
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.startsWith('{') || !line.includes('"mode":"backfill"')) continue;
    let entry: { time: string; block: number; head: number };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue; // a line cut short by a SIGKILL
    }
    if (Date.parse(entry.time) >= outage.until && entry.head >= outage.headUntil)
      return { at: entry.time, block: entry.block, head: entry.head };
  }
  return null;
}
