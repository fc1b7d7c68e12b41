import { createChainRegistry } from '@tributary/chains';
import { createPool } from '@tributary/db';
import { createLogger } from '@tributary/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError } from '../errors/apiErrors.ts';
import { TRANSFER_TOPIC, addr, followChains } from '../testing/chainFixtures.ts';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';
import { createFollowedChains } from './createFollowedChains.ts';

const W = addr('wallet');
const paths = (chain: string) => [
  `/api/v2.2/${W}/erc20/transfers${chain}`,
  `/api/v2.2/${W}/logs?topic0=${TRANSFER_TOPIC}&from_block=0${chain.replace('?', '&')}`,
  `/api/v2.2/erc20/${W}/owners${chain}`,
];

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});

afterAll(async () => {
  await gw?.close();
});

async function answers(path: string) {
  const res = await gw.request(path);
  return { status: res.status, body: (await res.json()) as { message?: string; result?: unknown[] } };
}

describe('a known chain that the deployment does not follow', () => {
  it('answers 400 naming the chain on every data endpoint, by name, by hex id and by default', async () => {
    for (const path of [...paths(''), ...paths('?chain=eth'), ...paths('?chain=0x1')]) {
      expect(await answers(path), path).toEqual({
        status: 400,
        body: { message: 'chain 0x1 (eth) is not followed by this deployment' },
      });
    }
    expect(await answers(paths('?chain=linea%20sepolia')[0]!)).toEqual({
      status: 400,
      body: { message: 'chain 0xe705 (linea sepolia) is not followed by this deployment' },
    });
    // A chain nobody knows stays a bad parameter of its own kind.
    expect(await answers(paths('?chain=dogecoin')[0]!)).toEqual({
      status: 400,
      body: { message: 'Invalid chain provided: dogecoin' },
    });
  });

  it('is served once a follower has checkpointed it; the others still answer 400', async () => {
    await followChains(gw.db.pool, [0xa4b1]);
    for (const path of paths('?chain=arbitrum')) {
      const { status, body } = await answers(path);
      expect(status, path).toBe(200);
      expect(body.result, path).toEqual([]);
    }
    expect((await answers(paths('?chain=0xa4b1')[2]!)).status).toBe(200);
    expect(await answers(paths('?chain=base')[1]!)).toEqual({
      status: 400,
      body: { message: 'chain 0x2105 (base) is not followed by this deployment' },
    });
  });
});

describe('the followed chains read from follower_checkpoints', () => {
  const chains = createChainRegistry();
  const polygon = chains.resolve('polygon')!;
  const logger = createLogger('followed-chains-test', 'silent');

  it('are kept for cacheMs: a chain followed meanwhile shows once the set is read again', async () => {
    let t = 0;
    const followed = createFollowedChains({ pool: gw.db.pool, cacheMs: 10_000, logger, now: () => t });
    await expect(followed.assertFollowed(polygon)).rejects.toThrow(BadRequestError);
    await followChains(gw.db.pool, [0x89]);
    t = 9_999;
    await expect(followed.assertFollowed(polygon)).rejects.toThrow(
      'chain 0x89 (polygon) is not followed by this deployment',
    );
    t = 10_000;
    await expect(followed.assertFollowed(polygon)).resolves.toBeUndefined();
  });

  it('keep the last set read when PostgreSQL cannot be read, and fail without one', async () => {
    const pool = createPool({ connectionString: gw.db.url, max: 1, application: 'followed-chains-test' });
    let t = 0;
    const followed = createFollowedChains({ pool, cacheMs: 1_000, logger, now: () => t });
    await followed.assertFollowed(polygon);
    await pool.end();
    t = 5_000;
    await expect(followed.assertFollowed(polygon)).resolves.toBeUndefined();
    await expect(followed.assertFollowed(chains.resolve('eth')!)).rejects.toThrow(BadRequestError);
    const fresh = createFollowedChains({ pool, cacheMs: 1_000, logger });
    await expect(fresh.assertFollowed(polygon)).rejects.toThrow(/pool/i);
  });
});
