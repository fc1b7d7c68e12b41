// CPU instructions the gateway process executes per request, by endpoint, counted by valgrind's
// callgrind: a figure that does not move with the machine's load or speed (the latency benches on
// this shared machine swing by 2x within an hour), for comparing the gateway's own cost across
// changes. The gateway runs from its bundle (as the image runs it) under callgrind against the
// data-API bench database (seedDataset.ts), with counting off; each endpoint gets WARMUP requests
// of the load bench's request mix (so the code is optimised as it would be), then WINDOWS windows
// of WINDOW requests each counted. PostgreSQL's work is not in it (see loadEndpoints.ts for the
// whole). Prints a table and writes bench/results/gateway-instructions.json.
// The figure is the median over the windows (the middle one; the lower middle for an even count).
// Some of V8's collections are timed (idle and memory-reducing ones) and code under callgrind runs
// some 50 times slower, so a window can hold a full collection that the same requests at full
// speed would not trigger: windows of one run differ by up to 1.7x, and a mean follows the odd one. Compare medians, over several runs for
// differences under 10%; every window is kept in the results.
// Env: DATABASE_URL, BENCH_INSTR_WARMUP (3000), BENCH_INSTR_WINDOW (1000), BENCH_INSTR_WINDOWS (5),
// BENCH_INSTR_CONCURRENCY (4), BENCH_ONLY (e.g. "transfers"), BENCH_RESULTS, BENCH_INSTR_BUILD
// (true; false counts the dist/main.mjs already there, e.g. one built from another commit),
// BENCH_INSTR_NODE_OPTIONS (the gateway's NODE_OPTIONS, e.g. "--max-semi-space-size=32").
// Needs valgrind (installed with apt-get when missing). Takes several minutes: code under
// callgrind runs some 50 times slower.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPool } from '@tributary/db';
import { createAccountWithKey } from '@tributary/db/accounts';
import { sleep } from '@tributary/runtime';
import { benchDatabaseName, seedParams } from './datasetShape.ts';
import { percentile } from './openLoopLoad.ts';
import { type EndpointName, RequestMix } from './requestMix.ts';
import { seedDataset } from './seedDataset.ts';
import { buildAppBundle, freePort } from '@tributary/testkit/bench';

const env = process.env;
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const GATEWAY_DIR = fileURLToPath(new URL('../', import.meta.url));
const RESULTS = env['BENCH_RESULTS'] ?? `${ROOT}bench/results/gateway-instructions.json`;
const WARMUP = Number(env['BENCH_INSTR_WARMUP'] ?? 3000);
const WINDOW = Number(env['BENCH_INSTR_WINDOW'] ?? 1000);
const WINDOWS = Number(env['BENCH_INSTR_WINDOWS'] ?? 5);
const CONCURRENCY = Number(env['BENCH_INSTR_CONCURRENCY'] ?? 4);
const ENDPOINTS: EndpointName[] = ['transfers', 'logs', 'owners'];
const BASE_URL = env['DATABASE_URL'] ?? 'postgres://tributary@127.0.0.1:55432/tributary';

const say = (line: string) => console.log(`[instr ${new Date().toISOString().slice(11, 19)}] ${line}`);

// The request mix draws its parameters from Math.random: a seeded generator makes every run ask
// the same requests in the same order (xorshift32; this process does nothing else with it).
function seedRandom(seed: number) {
  let s = seed >>> 0 || 1;
  Math.random = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

function ensureValgrind(): string {
  const version = () => execFileSync('valgrind', ['--version']).toString().trim();
  try {
    return version();
  } catch {
    say('valgrind not found: installing it (apt-get)');
    execFileSync('bash', ['-c', `. '${ROOT}infra/local/lib.sh' && apt_install valgrind`], {
      stdio: 'inherit',
    });
    return version();
  }
}

/** callgrind_control on our process: counting on/off, and a dump of the counts so far. */
const control = (pid: number, ...args: string[]) =>
  execFileSync('callgrind_control', [...args, String(pid)], { stdio: 'pipe' });

function dumpedInstructions(outBase: string, dumpIndex: number): number {
  const file = `${outBase}.${dumpIndex}`;
  const totals = readFileSync(file, 'utf8').match(/^totals: (\d+)/m);
  if (!totals) throw new Error(`no totals in ${file}`);
  return Number(totals[1]);
}

/** Closed loop: `concurrency` requests at a time over keep-alive connections, `count` in all. */
async function drive(origin: string, apiKey: string, mix: RequestMix, count: number, concurrency: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const statuses: Record<string, number> = {};
  let bytes = 0;
  const one = (path: string) =>
    new Promise<void>((resolve, reject) => {
      const req = request(`${origin}${path}`, { agent, headers: { 'x-api-key': apiKey } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          bytes += body.length;
          statuses[String(res.statusCode)] = (statuses[String(res.statusCode)] ?? 0) + 1;
          if (res.statusCode === 200) mix.observe(path, body);
          resolve();
        });
      });
      req.on('error', reject);
      req.end();
    });
  let issued = 0;
  const worker = async () => {
    while (issued < count) {
      issued++;
      await one(mix.path());
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  return { statuses, avgResponseBytes: Math.round(bytes / Math.max(1, count)) };
}

async function startUnderCallgrind(databaseUrl: string, outBase: string) {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${outBase}`,
      process.execPath,
      'dist/main.mjs',
    ],
    {
      cwd: GATEWAY_DIR,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        NODE_ENV: 'development',
        RATE_LIMIT_PER_SECOND: '0',
        NODE_OPTIONS: env['BENCH_INSTR_NODE_OPTIONS'] ?? '',
        HTTP_PORT: String(port),
        HTTP_HOST: '127.0.0.1',
        OPS_PORT: '0',
      },
      stdio: ['ignore', 'ignore', 'ignore'],
    },
  );
  process.once('exit', () => child.kill('SIGKILL'));
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway under callgrind exited (${child.exitCode})`);
    if (
      await fetch(`${origin}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error('gateway under callgrind not ready after 300 s');
    await sleep(1000);
  }
  return { child, origin, pid: child.pid as number };
}

const valgrind = ensureValgrind();
const benchUrl = await seedDataset(BASE_URL, env);
if (env['BENCH_INSTR_BUILD'] !== 'false') {
  say('building the gateway bundle');
  buildAppBundle('gateway', 'inherit');
}

const pool = createPool({ connectionString: benchUrl, max: 1, application: 'bench-keys' });
const { key } = await createAccountWithKey(pool, { accountName: 'bench', label: 'instructions bench' });
await pool.end();

const only = env['BENCH_ONLY']?.split(',').map((s) => s.trim());
const params = seedParams(env);
const outBase = join(tmpdir(), `gateway-callgrind-${process.pid}.out`);
const results = [];
for (const endpoint of ENDPOINTS) {
  if (only && !only.includes(endpoint)) continue;
  // A fresh process per endpoint: each is warmed and counted on its own.
  const gw = await startUnderCallgrind(benchUrl, outBase);
  say(`${endpoint}: gateway under callgrind (pid ${gw.pid}); warm-up ${WARMUP} requests`);
  seedRandom(7);
  const mix = new RequestMix(endpoint, params, 0.2, 5_000);
  await drive(gw.origin, key, mix, WARMUP, CONCURRENCY);
  const perRequest: number[] = [];
  let last: Awaited<ReturnType<typeof drive>> | undefined;
  for (let w = 1; w <= WINDOWS; w++) {
    control(gw.pid, '-i', 'on');
    last = await drive(gw.origin, key, mix, WINDOW, CONCURRENCY);
    control(gw.pid, '-i', 'off');
    control(gw.pid, '-d', `window-${w}`);
    await sleep(500);
    perRequest.push(Math.round(dumpedInstructions(outBase, w) / WINDOW));
    say(`${endpoint}: window ${w}: ${perRequest.at(-1)?.toLocaleString('en')} instructions per request`);
  }
  gw.child.kill('SIGTERM');
  await new Promise((resolve) => gw.child.once('exit', resolve));
  for (const f of readdirSync(tmpdir())) {
    if (f.startsWith(`gateway-callgrind-${process.pid}.out`)) rmSync(join(tmpdir(), f), { force: true });
  }
  results.push({
    endpoint,
    instructionsPerRequest: {
      median: percentile(
        [...perRequest].sort((a, b) => a - b),
        50,
      ),
      windows: perRequest,
    },
    statuses: last?.statuses,
    avgResponseBytes: last?.avgResponseBytes,
  });
}

console.log('');
console.log('endpoint   instructions per request (median) windows');
for (const r of results) {
  console.log(
    `${r.endpoint.padEnd(10)} ${r.instructionsPerRequest.median.toLocaleString('en').padEnd(33)} ${r.instructionsPerRequest.windows.map((n) => n.toLocaleString('en')).join(' / ')}`,
  );
}
const report = {
  at: new Date().toISOString(),
  benchmark:
    'gateway CPU instructions per request (callgrind), by endpoint, over the data-API bench request mix; PostgreSQL not included',
  valgrind,
  node: process.version,
  database: benchDatabaseName(env),
  run: {
    warmupRequests: WARMUP,
    windowRequests: WINDOW,
    windows: WINDOWS,
    concurrency: CONCURRENCY,
    gatewayNodeOptions: env['BENCH_INSTR_NODE_OPTIONS'] ?? '',
  },
  endpoints: results,
};
await mkdir(dirname(RESULTS), { recursive: true });
await writeFile(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
say(`wrote ${RESULTS}`);
if (existsSync(outBase)) rmSync(outBase, { force: true });
