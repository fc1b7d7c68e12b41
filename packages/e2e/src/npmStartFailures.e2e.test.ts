import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, freePort, getTestSettings, startAnvil, uniqueName } from '@tributary/testkit';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { readProcesses } from './harness/readProcesses.ts';
import { REPO_ROOT } from '@tributary/testkit/bench';
import { waitFor } from './harness/waitFor.ts';

// Each way `npm start` (infra/dev/start-all.sh, which npm start execs) can fail, provoked for real:
// it exits 1 and its last two lines are `[start] ERROR: <the cause>` and `[start] what to do: ...`,
// and nothing it started is left running.

const SHUTDOWN_DEADLINE_MS = 3_000;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Started {
  code: number | null;
  output: string;
  /** The last two lines that are not blank. */
  error: string;
  todo: string;
}

/**
 * Runs start-all.sh with `env` over a base of its own (a data dir, free service ports, one devnet)
 * until it exits, and checks that nothing carrying its marker variable outlives it.
 */
async function start(env: Record<string, string | undefined>): Promise<Started> {
  const id = uniqueName('npm-start-fails');
  const dataDir = mkdtempSync(join(tmpdir(), 'tributary-start-fails-'));
  const marker = `TRIBUTARY_TEST_STACK=${id}`;
  const ours = () => readProcesses().filter((p) => p.state !== 'Z' && p.environ.includes(marker));
  cleanups.push(() => {
    for (const p of ours()) signal(p.pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
  const ports: Record<string, string> = {};
  for (const name of ['HTTP_PORT', 'RECEIVER_PORT', 'FOLLOWER_OPS_PORT', 'PROJECTOR_OPS_PORT'].concat([
    'MATCHER_OPS_PORT',
    'SENDER_OPS_PORT',
    'GATEWAY_OPS_PORT',
    'DEVNET2_PORT',
    'FOLLOWER2_OPS_PORT',
  ]))
    ports[name] = String(await freePort());
  const full: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '',
    TRIBUTARY_TEST_STACK: id,
    TRIBUTARY_DATA_DIR: dataDir,
    NODE_ENV: 'development',
    DEVNET2: 'off',
    SHUTDOWN_DEADLINE_MS: String(SHUTDOWN_DEADLINE_MS),
    KAFKA_TOPIC_PREFIX: `${id}.`,
    KAFKA_CLIENT_ID: id,
    KAFKA_GROUP_ID: `${id}-projector`,
    MATCHER_GROUP_ID: `${id}-matcher`,
    WEBHOOK_QUEUE_PREFIX: `${id}-q`,
    ...ports,
  };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete full[name];
    else full[name] = value;
  }
  let output = '';
  const child = spawn('bash', [join(REPO_ROOT, 'infra/dev/start-all.sh')], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: full,
  });
  cleanups.push(() => signal(-child.pid!, 'SIGKILL'));
  const collect = (chunk: string) => {
    output += chunk;
  };
  child.stdout.setEncoding('utf8').on('data', collect);
  child.stderr.setEncoding('utf8').on('data', collect);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  // Its supervisors' guards exit a moment after their supervisor.
  const left = await waitFor('nothing of it left running', () => ours().length === 0 || undefined, {
    timeoutMs: 5_000,
    diagnostics: () =>
      `left: ${ours()
        .map((p) => `${p.pid} ${p.cmdline}`)
        .join('\n')}\noutput:\n${output}`,
  }).catch((error: Error) => error.message);
  expect(left).toBe(true);
  // The supervisors' records of their process groups went with them.
  const runDir = join(dataDir, 'run');
  if (existsSync(runDir)) expect(readdirSync(runDir)).toEqual([]);
  const lines = output.split('\n').filter((line) => line.trim() !== '');
  return { code, output, error: lines.at(-2) ?? '', todo: lines.at(-1) ?? '' };
}

function expectFailure(run: Started, cause: string | RegExp): void {
  const context = `npm start's output:\n${run.output}`;
  expect(run.code, context).toBe(1);
  expect(run.error.startsWith('[start] ERROR: '), context).toBe(true);
  if (typeof cause === 'string') expect(run.error, context).toContain(cause);
  else expect(run.error, context).toMatch(cause);
  expect(run.todo, context).toMatch(/^\[start\] what to do: ./);
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** A listener on `port` (0: any) that drops every connection: a port another program holds. */
async function holdPort(port = 0): Promise<{ port: number; server: Server }> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { port: (server.address() as { port: number }).port, server };
}

async function closeAll(servers: Server[]): Promise<void> {
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
}

/** Servers that answer nothing useful: start-all gets as far as the step a case is about. */
async function unusedServers() {
  const closed = await freePort();
  return {
    DATABASE_URL: `postgres://tributary@127.0.0.1:${closed}/tributary`,
    REDIS_URL: `redis://127.0.0.1:${closed}`,
    KAFKA_BROKERS: `127.0.0.1:${closed}`,
    RPC_URL: `http://127.0.0.1:${closed}`,
  };
}

async function testDatabase(setup?: string) {
  const db = await createTestDatabase();
  cleanups.push(() => db.drop().catch(() => {}));
  if (setup) {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(setup);
    } finally {
      await client.end();
    }
  }
  return db.url;
}

describe('npm start, when it cannot start', () => {
  it('says which dependency could not be installed', async () => {
    // A pnpm of another version on PATH, and an npm that cannot install the pinned one.
    const bin = mkdtempSync(join(tmpdir(), 'tributary-start-bin-'));
    cleanups.push(() => rmSync(bin, { recursive: true, force: true }));
    writeFileSync(join(bin, 'pnpm'), '#!/usr/bin/env bash\necho 0.0.1\n');
    writeFileSync(
      join(bin, 'npm'),
      '#!/usr/bin/env bash\necho "npm ERR! no registry in this test" >&2\nexit 1\n',
    );
    for (const tool of ['pnpm', 'npm']) chmodSync(join(bin, tool), 0o755);
    const run = await start({ ...(await unusedServers()), PATH: `${bin}:${process.env['PATH']}` });
    expectFailure(
      run,
      /^\[start\] ERROR: dependencies: could not install pnpm \d+\.\d+\.\d+ \(npm install -g/,
    );
    expect(run.todo).toContain('npm install -g pnpm@');
  });

  it('says which local server did not start and why: a port set through its variable that something else holds', async () => {
    const held = await holdPort();
    cleanups.push(() => closeAll([held.server]));
    const run = await start({
      ...(await unusedServers()),
      DATABASE_URL: undefined,
      PG_PORT: String(held.port),
    });
    expectFailure(
      run,
      `a local server did not start: pg: port ${held.port} is in use by another program; pick another with PG_PORT`,
    );
  });

  it('says when no free port is found above a default one', async () => {
    // The port redis was started on is kept in its data dir, and is its default the next time: held,
    // with the 200 above it.
    const servers: Server[] = [];
    cleanups.push(() => closeAll(servers));
    let base = 0;
    for (let attempt = 0; attempt < 20 && base === 0; attempt++) {
      const from = 20_000 + Math.floor(Math.random() * 10_000);
      try {
        for (let port = from; port <= from + 200; port++) servers.push((await holdPort(port)).server);
        base = from;
      } catch {
        await closeAll(servers.splice(0));
      }
    }
    expect(base).toBeGreaterThan(0);
    const dataDir = mkdtempSync(join(tmpdir(), 'tributary-start-ports-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    mkdirSync(join(dataDir, 'redis'));
    writeFileSync(join(dataDir, 'redis', 'REDIS_PORT'), `${base}\n`);
    const run = await start({
      ...(await unusedServers()),
      REDIS_URL: undefined,
      TRIBUTARY_DATA_DIR: dataDir,
    });
    expectFailure(
      run,
      `a local server did not start: redis: port ${base} and the 200 above it are in use; pick a free one with REDIS_PORT`,
    );
  });

  it('refuses a service port set through its variable that another program holds', async () => {
    const held = await holdPort();
    cleanups.push(() => closeAll([held.server]));
    const run = await start({ ...(await unusedServers()), HTTP_PORT: String(held.port) });
    expectFailure(
      run,
      `gateway: port ${held.port} is in use by another program; pick another with HTTP_PORT`,
    );
    expect(run.todo).toContain('set HTTP_PORT to a free port');
  });

  it('names the command that failed where no step names a cause: a data dir that is a file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tributary-start-file-')), 'data');
    writeFileSync(file, '');
    cleanups.push(() => rmSync(join(file, '..'), { recursive: true, force: true }));
    const run = await start({ ...(await unusedServers()), TRIBUTARY_DATA_DIR: file });
    expectFailure(
      run,
      /^\[start\] ERROR: npm start failed at infra\/dev\/start-all\.sh line \d+: mkdir -p "\$logs" \(exit code 1\)$/,
    );
  });

  it('says why devnet2 does not answer: its anvil exited', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'tributary-start-anvil-'));
    cleanups.push(() => rmSync(bin, { recursive: true, force: true }));
    writeFileSync(
      join(bin, 'anvil'),
      '#!/usr/bin/env bash\necho "anvil: no state for this test" >&2\nexit 3\n',
    );
    chmodSync(join(bin, 'anvil'), 0o755);
    const run = await start({ ...(await unusedServers()), DEVNET2: 'on', ANVIL_BIN: join(bin, 'anvil') });
    expectFailure(
      run,
      /^\[start\] ERROR: devnet2's anvil exited \(code 3\) after .*anvil: no state for this test/,
    );
  });

  it('says why the migrations failed', async () => {
    const run = await start(await unusedServers());
    expectFailure(
      run,
      /^\[start\] ERROR: migrations failed: migrate: connect ECONNREFUSED 127\.0\.0\.1:\d+$/,
    );
    expect(run.todo).toContain('DATABASE_URL (postgres://tributary@127.0.0.1:');
  });

  it('says why the devnets could not be compared with the indexed data: a node that does not answer', async () => {
    const settings = getTestSettings();
    const closed = await freePort();
    const run = await start({
      DATABASE_URL: await testDatabase(),
      REDIS_URL: settings.redisUrl,
      KAFKA_BROKERS: settings.kafkaBrokers.join(','),
      RPC_URL: `http://127.0.0.1:${closed}`,
    });
    expectFailure(
      run,
      `could not compare the devnets with the indexed data: the node at http://127.0.0.1:${closed}/ did not give block 0: fetch failed: connect ECONNREFUSED`,
    );
  });

  it("says why a new devnet's webhook queue could not be cleared", async () => {
    // PostgreSQL holds another chain's data for the devnet's chain id: the data starts afresh.
    const settings = getTestSettings();
    const closed = await freePort();
    const run = await start({
      DATABASE_URL: await testDatabase(
        `INSERT INTO follower_checkpoints (chain_id, block_number, block_hash, genesis_hash)
         VALUES (${settings.chainId}, 5, '\\x${'ab'.repeat(32)}', '\\x${'cd'.repeat(32)}')`,
      ),
      REDIS_URL: `redis://127.0.0.1:${closed}`,
      KAFKA_BROKERS: settings.kafkaBrokers.join(','),
      RPC_URL: settings.rpcUrl,
      CHAIN_ID: String(settings.chainId),
    });
    expectFailure(
      run,
      `could not clear the webhook queue of the new devnet in Redis at redis://127.0.0.1:${closed}: Could not connect to Redis at 127.0.0.1:${closed}: Connection refused`,
    );
  });

  it('says why the dev API key could not be created', async () => {
    const settings = getTestSettings();
    const run = await start({
      DATABASE_URL: await testDatabase(`
        CREATE FUNCTION refuse_keys() RETURNS trigger LANGUAGE plpgsql AS
          $$ BEGIN RAISE EXCEPTION 'api keys are refused by this test'; END $$;
        CREATE TRIGGER refuse_keys BEFORE INSERT ON api_keys FOR EACH ROW EXECUTE FUNCTION refuse_keys();`),
      REDIS_URL: settings.redisUrl,
      KAFKA_BROKERS: settings.kafkaBrokers.join(','),
      RPC_URL: settings.rpcUrl,
      CHAIN_ID: String(settings.chainId),
    });
    expectFailure(run, 'the dev API key could not be created: keys: api keys are refused by this test');
  });

  it('says why the gateway is not ready: its /readyz reason, after its log', async () => {
    const settings = getTestSettings();
    const anvil = await startAnvil();
    cleanups.push(() => anvil.stop());
    const closed = await freePort();
    const run = await start({
      DATABASE_URL: await testDatabase(),
      REDIS_URL: `redis://127.0.0.1:${closed}`,
      KAFKA_BROKERS: settings.kafkaBrokers.join(','),
      RPC_URL: anvil.rpcUrl,
      CHAIN_ID: '31337',
      READY_TIMEOUT: '15',
    });
    expectFailure(run, /^\[start\] ERROR: the gateway is not ready after 15 s: its \/readyz fails redis: ./);
    expect(run.output).toMatch(
      /\[start\] gateway not ready at http:\/\/127\.0\.0\.1:\d+\/readyz after 15 s: its \/readyz fails redis: .*; last log lines:\n/,
    );
    expect(run.todo).toContain('redis: REDIS_URL');
  }, 120_000);
});
