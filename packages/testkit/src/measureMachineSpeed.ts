import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How fast this machine is at the moment, by two fixed workloads (lower is faster). */
export interface MachineSpeed {
  /** A fixed JavaScript workload (objects, strings, JSON), ms: median of five runs. */
  jsWorkloadMs: number;
  /**
   * One byte to another process over a Unix socket and back, µs, median of 2,000: what handing a
   * request to another process (a database backend, a service) costs in wake-ups and context switches.
   */
  socketRoundTripUs: number;
}

function jsWorkload(): number {
  const started = performance.now();
  let n = 0;
  for (let i = 0; i < 100_000; i++) {
    const o = { a: i, b: `x${i}`, c: [i, i + 1], d: { e: 'y'.repeat(i % 20) } };
    n += (JSON.parse(JSON.stringify(o)) as { a: number }).a & 1;
  }
  if (n < 0) throw new Error('unreachable');
  return performance.now() - started;
}

const ECHO_SERVER = `
const net = require('node:net');
const server = net.createServer((s) => s.on('data', (b) => s.write(b)));
server.listen(process.argv[1], () => process.stdout.write('ready\\n'));
process.stdin.on('end', () => process.exit(0)).resume();
`;

async function socketRoundTrip(samples: number): Promise<number> {
  const path = join(tmpdir(), `machine-speed-${randomBytes(4).toString('hex')}.sock`);
  const child = spawn(process.execPath, ['-e', ECHO_SERVER, path], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.stdout?.once('data', () => resolve());
    });
    const socket = connect(path);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.setNoDelay(true);
    const times: number[] = [];
    const one = Buffer.from([1]);
    for (let i = 0; i < samples; i++) {
      const started = performance.now();
      await new Promise<void>((resolve) => {
        socket.once('data', () => resolve());
        socket.write(one);
      });
      times.push((performance.now() - started) * 1000);
    }
    socket.destroy();
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)] as number;
  } finally {
    child.stdin?.end();
    child.kill();
    rmSync(path, { force: true });
  }
}

/**
 * Measures the machine's current speed (a few seconds). Figures taken at different hours on a
 * shared machine differ by more than most changes do: results record these beside them.
 */
export async function measureMachineSpeed(): Promise<MachineSpeed> {
  jsWorkload();
  const runs = Array.from({ length: 5 }, jsWorkload).sort((a, b) => a - b);
  return {
    jsWorkloadMs: Number((runs[2] as number).toFixed(0)),
    socketRoundTripUs: Number((await socketRoundTrip(2_000)).toFixed(1)),
  };
}
