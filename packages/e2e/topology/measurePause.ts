/** The pause a fault caused in a stream of acknowledged writes, from their acknowledgement times. */
export interface Pause {
  /** From the server's death to the first write acknowledged after it. */
  killToFirstAckMs: number | null;
  /** The longest time between two acknowledged writes from the death on (the write in flight then included). */
  longestGapMs: number;
}

export function measurePause(ackTimes: readonly number[], killedAt: number): Pause {
  const after = ackTimes.filter((t) => t >= killedAt);
  const before = ackTimes.filter((t) => t < killedAt);
  let longestGapMs = 0;
  let previous = before.at(-1) ?? killedAt;
  for (const t of after) {
    longestGapMs = Math.max(longestGapMs, t - previous);
    previous = t;
  }
  return { killToFirstAckMs: after[0] === undefined ? null : after[0] - killedAt, longestGapMs };
}
