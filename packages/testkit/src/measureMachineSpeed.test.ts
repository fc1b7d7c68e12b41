import { describe, expect, it } from 'vitest';
import { timeJsWorkload, timeJsWorkloadInChild } from './measureMachineSpeed.ts';

describe('timeJsWorkloadInChild', () => {
  it('times the fixed workload in a child of its own while this event loop stays free', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    try {
      const ms = await timeJsWorkloadInChild(3);
      expect(ms).toBeGreaterThan(0);
      expect(ms).toBeLessThan(60_000);
    } finally {
      clearInterval(timer);
    }
    // The child takes hundreds of ms; a loop blocked by the workload would not have ticked.
    expect(ticks).toBeGreaterThan(5);
  });

  it('in this process, the same workload blocks the loop for its time', () => {
    const started = performance.now();
    const ms = timeJsWorkload(1);
    expect(ms).toBeGreaterThan(0);
    // One run to warm up and one timed: the call took at least the timed run.
    expect(performance.now() - started).toBeGreaterThanOrEqual(ms);
  });
});
