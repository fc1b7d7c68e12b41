// pnpm --filter @tributary/devnet demo  (env RPC_URL, ACTIVITY_INTERVAL_MS, CHAIN_ID)
// Deploys the demo tokens and keeps making transfers and custom events, one line of JSON per action.
import { createDevnetClient } from './createDevnetClient.ts';
import { deployDemo } from './deployDemo.ts';
import { generateActivity } from './generateActivity.ts';

const rpcUrl = process.env['RPC_URL'] ?? 'http://127.0.0.1:58545';
const intervalMs = Number(process.env['ACTIVITY_INTERVAL_MS'] ?? '1000');
const chainId = Number(process.env['CHAIN_ID'] ?? '31337');
const log = (msg: string, fields: object = {}) =>
  console.log(JSON.stringify({ time: new Date().toISOString(), msg, ...fields }));

const client = createDevnetClient({ rpcUrl, chainId });
const demo = await deployDemo(client);
log('deployed demo contracts', { rpcUrl, ...demo });
const controller = new AbortController();
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    controller.abort();
    // A transaction in flight waits for its receipt; when the devnet stopped first, it never comes.
    setTimeout(() => {
      log('stopped with a transaction in flight');
      process.exit(0);
    }, 3_000).unref();
  });
}
const steps = await generateActivity({
  client,
  demo,
  intervalMs,
  signal: controller.signal,
  onStep: (s) => log('activity', { ...s }),
});
log('stopped', { steps });
