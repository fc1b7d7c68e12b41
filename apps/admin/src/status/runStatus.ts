import { createKafka } from '@tributary/bus';
import { createPool } from '@tributary/db';
import { redisConnection } from '@tributary/config';
import { openWebhookQueue } from '@tributary/webhooks';
import { formatStatus } from './formatStatus.ts';
import { judgeStatus } from './judgeStatus.ts';
import { type StatusSnapshot, readStatus } from './readStatus.ts';
import { type StatusEnv, parseServices } from './statusEnv.ts';

export interface StatusResult {
  snapshot: StatusSnapshot;
  problems: string[];
  text: string;
}

/** Looks at the deployment twice, `windowMs` apart, and judges what is stuck. */
export async function runStatus(env: StatusEnv, windowMs: number): Promise<StatusResult> {
  const pool = createPool({ connectionString: env.DATABASE_URL, max: 2 });
  const kafka = createKafka({ brokers: env.KAFKA_BROKERS, clientId: `${env.KAFKA_CLIENT_ID}-status` });
  const admin = kafka.admin({ retry: { retries: 0 } });
  // No offline queue and one try per command: a Redis that is down is reported, not waited for.
  const queue = openWebhookQueue({
    redis: redisConnection(env),
    prefix: env.WEBHOOK_QUEUE_PREFIX,
    mode: 'failsFast',
    onBroken: () => undefined, // its reads fail: reported as an unreadable source
  });
  queue.on('error', () => undefined); // reported as an unreadable source
  try {
    await admin.connect().catch(() => undefined); // reported by the first read
    const sources = {
      pool,
      kafka,
      admin,
      queue,
      topicPrefix: env.KAFKA_TOPIC_PREFIX,
      groups: env.STATUS_GROUPS,
      rpcUrls: new Map([[env.CHAIN_ID, env.RPC_URL], ...env.EXTRA_RPC_URLS]),
      services: parseServices(env.STATUS_SERVICES),
    };
    const before = await readStatus(sources, { deadLetters: windowMs === 0 });
    let after = before;
    if (windowMs > 0) {
      await new Promise((r) => setTimeout(r, windowMs));
      after = await readStatus(sources);
    }
    const problems = judgeStatus(before, after);
    return { snapshot: after, problems, text: formatStatus(after, problems) };
  } finally {
    await Promise.allSettled([admin.disconnect(), queue.close(), pool.end()]);
  }
}
