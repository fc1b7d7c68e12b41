// The failover command (`pnpm failover`): the production topologies of RELIABILITY.md on this
// machine (infra/local's kafka3 and sentinel: three Kafka brokers, topics of three copies needing
// two; Redis with a replica under three sentinels), then, at once and under load, the leader broker
// of a topic SIGKILLed while an idempotent producer writes to it, and the Redis master SIGKILLed
// while webhook jobs are added and run through the sentinels. Counts what was acknowledged against
// what was read back and run (exit 1 when one is missing), and writes the pauses measured to
// bench/results/topology-failover.json (never judged: this machine's speed is not the production's).
// Options (or FAILOVER_* variables): --messages N (3000)  --jobs N (3000)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKafka } from '@tributary/bus';
import { redisConnection } from '@tributary/config';
import { writeResult } from '@tributary/testkit/bench';
import { measureBrokerLoss } from './measureBrokerLoss.ts';
import { measureRedisFailover } from './measureRedisFailover.ts';
import { startTopologyServers } from './startTopologyServers.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return Number(i >= 0 ? process.argv[i + 1] : (process.env[`FAILOVER_${name.toUpperCase()}`] ?? fallback));
};
const options = { messages: arg('messages', 3000), jobs: arg('jobs', 3000) };
const log = (line: string) => console.log(`[failover ${new Date().toISOString().slice(11, 19)}] ${line}`);

const dir = mkdtempSync(join(tmpdir(), 'tributary-failover-'));
log(`starting three brokers and Redis under Sentinel (data in ${dir})`);
const servers = await startTopologyServers(dir);
log(`up: ${servers.env['KAFKA_BROKERS']} / sentinels ${servers.env['REDIS_SENTINELS']}`);
let ok = false;
// kafkajs may reject a promise of its own that nobody awaits: stop the servers before leaving.
process.on('unhandledRejection', (err) => {
  log(`unhandled: ${String(err)}`);
  void servers.stop().finally(() => process.exit(1));
});
try {
  const kafka = createKafka({
    brokers: (servers.env['KAFKA_BROKERS'] ?? '').split(','),
    clientId: 'failover',
  });
  const redis = redisConnection({
    REDIS_URL: 'redis://127.0.0.1',
    REDIS_SENTINELS: (servers.env['REDIS_SENTINELS'] ?? '').split(',').map((s) => {
      const [host, port] = s.split(':');
      return { host: host as string, port: Number(port) };
    }),
    REDIS_SENTINEL_NAME: servers.env['REDIS_SENTINEL_NAME'] ?? 'mymaster',
  });
  const [kafkaResult, redisResult] = await Promise.all([
    measureBrokerLoss({
      kafka,
      topic: 'failover-blocks',
      messages: options.messages,
      killBroker: servers.killBroker,
      log,
    }),
    measureRedisFailover({
      redis,
      prefix: 'failover',
      jobs: options.jobs,
      killMaster: servers.killRedisMaster,
      log,
    }),
  ]);
  ok =
    kafkaResult.acknowledged === options.messages &&
    kafkaResult.readBack === options.messages &&
    redisResult.acknowledged === options.jobs &&
    redisResult.processed === options.jobs;
  log(
    `kafka: ${kafkaResult.acknowledged}/${options.messages} acknowledged, ${kafkaResult.readBack} read back with broker ${kafkaResult.killedBroker} down; ` +
      `pause ${kafkaResult.pause.longestGapMs} ms (first ack ${kafkaResult.pause.killToFirstAckMs} ms after the kill)`,
  );
  log(
    `redis: ${redisResult.acknowledged}/${options.jobs} added, ${redisResult.processed} run (${redisResult.processedAgain} again, ` +
      `${redisResult.lostWithMaster} added again by the relay pass); adds paused ${redisResult.addPause.longestGapMs} ms, ` +
      `work paused ${redisResult.workPause.longestGapMs} ms`,
  );
  log(
    `written to ${writeResult('topology-failover', { options, ok, kafka: kafkaResult, redis: redisResult })}`,
  );
} finally {
  await servers.stop();
  rmSync(dir, { recursive: true, force: true });
}
log(ok ? 'nothing lost' : 'LOST: see the counts above');
process.exit(ok ? 0 : 1);
