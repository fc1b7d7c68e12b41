import type { AppName } from './launchNode.ts';

/**
 * The node flags each service runs with wherever it runs: its package.json `start` script,
 * `npm start` (infra/dev/start-all.sh), docker-compose.yml (NODE_OPTIONS) and launchApp (tests,
 * benches, chaos and soak), so that what the soak and chaos commands measure is what ships.
 * serviceNodeFlags.test.ts holds those places to this table.
 *
 * The four pipeline services move bulk messages (blocks of logs, batches of matches and deliveries)
 * that die young: a 64 MiB semi-space keeps them from being promoted to the old generation. The
 * gateway's requests are small, and V8's default young generation serves them.
 */
export const SERVICE_NODE_FLAGS: Readonly<Record<AppName, readonly string[]>> = {
  'chain-follower': ['--max-semi-space-size=64'],
  projector: ['--max-semi-space-size=64'],
  'stream-matcher': ['--max-semi-space-size=64'],
  'webhook-sender': ['--max-semi-space-size=64'],
  gateway: [],
};

/**
 * The NODE_OPTIONS a service starts with: its flags first, then the caller's own NODE_OPTIONS, which
 * win where they set the same flag (a bench comparing another semi-space).
 */
export function serviceNodeOptions(app: AppName, callerNodeOptions = ''): string {
  return [...SERVICE_NODE_FLAGS[app], callerNodeOptions].join(' ').trim();
}
