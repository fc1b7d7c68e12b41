import { describe, expect, it } from 'vitest';
import { cpuSnapshot } from './processCpu.ts';
import { hostCpuBetween, parseProcStat, readHostCpu } from './readHostCpu.ts';

describe('readHostCpu', () => {
  it("reads the machine's CPU from /proc/stat, in cores over the interval", () => {
    // user nice system idle iowait irq softirq steal guest guest_nice
    const cpus = 'cpu0 50 0 25 400 10 0 5 10 0 0\ncpu1 50 0 25 400 10 0 5 10 0 0\nintr 5\n';
    const before = parseProcStat(`cpu  100 0 50 800 20 0 10 20 0 0\n${cpus}`, 0)!;
    const after = parseProcStat(`cpu  160 0 70 880 40 0 10 40 30 0\n${cpus}`, 1000)!;
    expect(before).toEqual({ atMs: 0, cpus: 2, busy: 160, iowait: 20, steal: 20, total: 1000 });
    // 200 ticks passed on 2 cores: 80 busy, 80 idle, 20 waiting, 20 stolen (guest time is in user).
    expect(hostCpuBetween(before, after)).toEqual({
      cores: 2,
      busyCores: 0.8,
      iowaitCores: 0.2,
      stealCores: 0.2,
    });
    expect(parseProcStat('no cpu here', 0)).toBeNull();
  });

  it('reads this machine, and agrees with cpuSnapshot, which counts stolen time as busy', () => {
    const host = readHostCpu();
    expect(host).not.toBeNull();
    expect(host!.cpus).toBeGreaterThanOrEqual(1);
    const snapshot = cpuSnapshot();
    const again = readHostCpu()!;
    // Between the two reads around it, the snapshot's busy seconds lie between theirs.
    expect(snapshot.busySeconds).toBeGreaterThanOrEqual((host!.busy + host!.steal) / 100);
    expect(snapshot.busySeconds).toBeLessThanOrEqual((again.busy + again.steal) / 100);
    expect(snapshot.busySeconds + snapshot.idleSeconds).toBeGreaterThanOrEqual(host!.total / 100);
    // It carries the counters it read, so a caller needs no second read of /proc/stat.
    expect(snapshot.host).not.toBeNull();
    expect(snapshot.busySeconds).toBe((snapshot.host!.busy + snapshot.host!.steal) / 100);
    expect(snapshot.host!.atMs).toBeGreaterThanOrEqual(host!.atMs);
  });
});
