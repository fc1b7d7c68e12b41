import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addr, followChains } from '../testing/chainFixtures.ts';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('./keys.ts', import.meta.url));
const TRANSFERS = `/api/v2.2/${addr('w')}/erc20/transfers`;

let gw: TestGateway;

async function keys(...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', CLI, ...args], {
      env: { ...process.env, DATABASE_URL: gw.db.url },
    });
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, out: e.stdout };
  }
}

beforeAll(async () => {
  gw = await startTestGateway();
  await followChains(gw.db.pool, [1]);
});

afterAll(async () => {
  await gw?.close();
});

describe('keys CLI', () => {
  it('creates a key that works, lists it by prefix and revokes it', async () => {
    const created = await keys('create', '--account', 'cli-user', '--label', 'laptop');
    expect(created.code).toBe(0);
    const key = /api key \(shown once, store it now\): (trb_[A-Za-z0-9_-]{32})\n/.exec(created.out)?.[1];
    expect(created.out).toMatch(/^created account cli-user \([0-9a-f-]{36}\)\n/);
    expect(key).toBeDefined();
    const headers = { 'x-api-key': key! };
    expect((await gw.request(TRANSFERS, { headers })).status).toBe(200);

    const listed = await keys('list');
    const prefix = key!.slice(0, 12);
    expect(listed.out).toContain(`${prefix}…\tcli-user\tlaptop\t`);
    expect(listed.out).not.toContain(key!);

    expect(await keys('revoke', 'trb_nothing-like-it')).toEqual({
      code: 1,
      out: 'no active key matches trb_nothing-like-it\n',
    });
    expect(await keys('revoke', prefix)).toEqual({ code: 0, out: `revoked ${prefix}…\n` });
    expect((await gw.request(TRANSFERS, { headers })).status).toBe(401);
    expect((await keys('list')).out).toMatch(new RegExp(`${prefix}…\\tcli-user\\tlaptop\\t\\S+\\trevoked `));
  });
});
