import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './freePort.ts';
import { REPO_ROOT } from './repoRoot.ts';

// A clone in a home directory with mode 0700 (root's default on Debian): the postgres OS user,
// which runs the local cluster, cannot traverse it. infra/local places the cluster under
// /var/lib/tributary instead, links it from the data dir, and says so; start, stop and start again work.
let home: string;
let dataDir: string;
let port: number;
let placed: string | undefined;

function infra(script: string) {
  const run = spawnSync('bash', [script, 'pg'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', TRIBUTARY_DATA_DIR: dataDir, PG_PORT: String(port) },
    encoding: 'utf8',
    timeout: 180_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

async function selectOne(): Promise<string> {
  const client = new pg.Client({ connectionString: `postgres://tributary@127.0.0.1:${port}/tributary` });
  await client.connect();
  try {
    return (await client.query<{ dir: string }>("SELECT current_setting('data_directory') AS dir")).rows[0]!
      .dir;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'tributary-home-'));
  mkdirSync(home, { mode: 0o700, recursive: true });
  dataDir = join(home, 'clone', '.data');
  port = await freePort();
});

afterAll(() => {
  infra('infra/local/down.sh');
  if (placed?.startsWith('/var/lib/tributary/')) rmSync(placed, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

describe('infra/local PostgreSQL under a directory the postgres user cannot traverse', () => {
  it('places the cluster under /var/lib/tributary, says so, and starts it again after a stop', async () => {
    expect(lstatSync(home).mode & 0o777).toBe(0o700);
    const up = infra('infra/local/up.sh');
    expect(up.stderr).toContain('the postgres user cannot reach');
    expect(up.status).toBe(0);
    const link = join(dataDir, 'pg');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    placed = readlinkSync(link);
    expect(placed).toMatch(/^\/var\/lib\/tributary\/pg-[0-9a-f]{12}$/);
    expect(await selectOne()).toBe(join(placed, 'data'));

    expect(infra('infra/local/down.sh').status).toBe(0);
    const again = infra('infra/local/up.sh');
    expect(again.status).toBe(0);
    expect(again.stderr).not.toContain('initdb');
    expect(await selectOne()).toBe(join(placed, 'data'));
  }, 300_000);
});
