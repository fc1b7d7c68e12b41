import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

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

/** The fixed JavaScript workload's median time over `runs`, in ms, after one run to warm up. */
export function timeJsWorkload(runs: number): number {
  jsWorkload();
  const times = Array.from({ length: runs }, jsWorkload).sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

/**
 * timeJsWorkload in a child process of its own (about half a second), so that the caller's event
 * loop, which may be serving requests, never waits on it.
 */
export async function timeJsWorkloadInChild(runs = 3): Promise<number> {
  const self = import.meta.url;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import { timeJsWorkload } from ${JSON.stringify(self)}; console.log(timeJsWorkload(${runs}));`,
    ],
    { cwd: dirname(fileURLToPath(self)), timeout: 60_000 },
  );
  const ms = Number(stdout.trim());
  if (!Number.isFinite(ms) || ms <= 0) throw new Error(`the workload's child said ${JSON.stringify(stdout)}`);
  return ms;
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
  return {
    jsWorkloadMs: Number(timeJsWorkload(5).toFixed(0)),
    socketRoundTripUs: Number((await socketRoundTrip(2_000)).toFixed(1)),
  };
}
