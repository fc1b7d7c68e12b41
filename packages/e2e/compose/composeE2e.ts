// The compose end-to-end command (`npm run test:compose`): docker-compose.yml as a user runs it, from
// the built image: the whole stack up, an API key made in the gateway container, a stream whose
// webhooks a receiver on the host counts against the chain, then PostgreSQL, Kafka, Redis and the
// services killed and recreated (their volumes kept) while transfers go on. Exits 1 when a webhook
// is lost or doubled under a new webhook-id, when a volume lost its data, or when a consumer had to
// repair a gap (Kafka lost its log); tears everything down, volumes included.
import { demoTokenAbi } from '@tributary/contracts';
import { createDevnetClient, deployDemo, devnetAccount, waitMined } from '@tributary/devnet';
import { erc20TransferEventAbi } from '@tributary/evm';
import { freePort } from '@tributary/testkit/bench';
import type { Abi, PublicClient } from 'viem';
import { startWebhookReceiver } from '../src/harness/startWebhookReceiver.ts';
import { createComposeProject, dockerHostAddress } from './composeProject.ts';

const say = (line: string) => console.log(`[compose-e2e ${new Date().toISOString().slice(11, 19)}] ${line}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const started = Date.now();

const gatewayPort = await freePort();
const anvilPort = await freePort();
const project = await createComposeProject({ gatewayPort, anvilPort });
const receiver = await startWebhookReceiver({ host: await dockerHostAddress() });
const problems: string[] = [];
let exitCode = 1;
try {
  say(`project ${project.name}: building and starting ${project.services.join(', ')}`);
  await project.compose(['up', '-d', '--build', '--wait', ...project.services], 1_200_000);
  say(
    `up and healthy after ${Math.round((Date.now() - started) / 1000)} s; gateway on 127.0.0.1:${gatewayPort}`,
  );

  // An API key, as the README tells a Docker user to make one.
  const keyOut = await project.compose([
    'exec',
    '-T',
    'gateway',
    'pnpm',
    '-s',
    '--filter',
    '@tributary/admin',
    'keys',
    'create',
    '--account',
    'e2e',
  ]);
  const key = /^api key .*: (\S+)$/m.exec(keyOut)?.[1];
  if (!key) throw new Error(`no API key in: ${keyOut}`);
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${gatewayPort}${path}`, {
      method,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  const client = createDevnetClient({ rpcUrl: `http://127.0.0.1:${anvilPort}` });
  const chain = client as unknown as PublicClient;
  const demo = await deployDemo(client);
  const erc20 = demoTokenAbi as Abi;
  await waitMined(
    client,
    await client.writeContract({
      address: demo.demo,
      abi: erc20,
      functionName: 'mint',
      args: [client.account.address, 10n ** 24n],
    } as never),
  );
  const receiverUrl = receiver.url.replace(/\/\/[^/:]+:/, '//host.docker.internal:');
  const created = await api('PUT', '/streams/evm', {
    webhookUrl: receiverUrl,
    description: 'compose e2e',
    tag: 'compose-e2e',
    chainIds: ['0x7a69'],
    includeContractLogs: true,
    topic0: ['Transfer(address,address,uint256)'],
    abi: [erc20TransferEventAbi],
  });
  if (created.status !== 200)
    throw new Error(`PUT /streams/evm: ${created.status} ${JSON.stringify(created.body)}`);
  const streamId = String(created.body['id']);
  await api('POST', `/streams/evm/${streamId}/address`, { address: demo.demo });
  say(`stream ${streamId} -> ${receiverUrl}`);

  const transferBlocks: bigint[] = [];
  const transfer = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const hash = await client.writeContract({
        address: demo.demo,
        abi: erc20,
        functionName: 'transfer',
        args: [devnetAccount(5).address, BigInt(i + 1)],
      } as never);
      transferBlocks.push((await waitMined(client, hash)).blockNumber);
    }
  };
  await transfer(3);

  // Crashes and recreations, each while transfers go on; the volumes must keep their data.
  const faults: [string, string[]][] = [
    ['PostgreSQL killed and recreated', ['postgres']],
    ['Kafka killed and recreated', ['kafka']],
    ['Redis killed and recreated', ['redis']],
    [
      'the matcher, the sender and the follower killed and recreated',
      ['stream-matcher', 'webhook-sender', 'chain-follower'],
    ],
  ];
  for (const [what, services] of faults) {
    say(what);
    await project.compose(['kill', '-s', 'SIGKILL', ...services]);
    await transfer(2);
    await project.compose(['up', '-d', '--force-recreate', '--wait', ...services], 600_000);
    await transfer(2);
  }

  // Every block with a transfer: both webhooks, whatever was killed meanwhile.
  const expected = [...new Set(transferBlocks.map(String))];
  const arrived = (block: string, confirmed: boolean) =>
    receiver.received.filter(
      (w) =>
        w.acknowledged &&
        w.body?.streamId === streamId &&
        w.body.block?.number === block &&
        w.body.confirmed === confirmed,
    );
  const deadline = Date.now() + 300_000;
  for (;;) {
    const missing = expected.flatMap((b) =>
      [false, true]
        .filter((c) => arrived(b, c).length === 0)
        .map((c) => `${b}:${c ? 'confirmed' : 'unconfirmed'}`),
    );
    if (missing.length === 0) break;
    if (Date.now() > deadline) {
      problems.push(`lost webhooks: ${missing.join(', ')}`);
      break;
    }
    await sleep(1_000);
  }
  const newIds = expected.flatMap((b) =>
    [false, true].filter((c) => new Set(arrived(b, c).map((w) => String(w.headers['webhook-id']))).size > 1),
  ).length;
  if (newIds > 0) problems.push(`${newIds} webhooks sent again under a new webhook-id`);

  // The volumes kept their data: the key (PostgreSQL), the stream, and no gap Kafka made consumers repair.
  const stream = await api('GET', `/streams/evm/${streamId}`);
  if (stream.status !== 200)
    problems.push(`the stream or the key did not survive PostgreSQL's recreation: ${stream.status}`);
  for (const [service, port] of [
    ['projector', 9102],
    ['stream-matcher', 9103],
  ] as const) {
    const metrics = await project.compose([
      'exec',
      '-T',
      service,
      'node',
      '-e',
      `fetch('http://127.0.0.1:${port}/metrics').then((r) => r.text()).then((t) => console.log(t))`,
    ]);
    const gaps = metrics
      .split('\n')
      .filter((l) => l.startsWith('tributary_consumer_gaps_total{'))
      .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
    if (gaps > 0)
      problems.push(
        `${service} found ${gaps} gap(s) in the block topic: Kafka's volume did not keep its log`,
      );
  }
  const head = await chain.getBlockNumber({ cacheTime: 0 });
  say(
    `blocks with transfers: ${expected.length}, webhooks expected ${expected.length * 2}, received ${receiver.received.filter((w) => w.body?.streamId === streamId).length}; head ${head}`,
  );
  say(
    problems.length === 0
      ? 'OK: nothing lost, nothing doubled, every volume kept its data'
      : `FAILED:\n  ${problems.join('\n  ')}`,
  );
  exitCode = problems.length === 0 ? 0 : 1;
} catch (err) {
  say(`FAILED: ${err instanceof Error ? err.stack : String(err)}`);
  const logs = await project.compose(['logs', '--tail', '30']).catch(() => '');
  console.log(logs);
} finally {
  say('tearing down (volumes included)');
  await project
    .compose(['down', '-v', '--remove-orphans'], 300_000)
    .catch((err: unknown) => say(`down failed: ${String(err)}`));
  await receiver.close();
  say(`took ${Math.round((Date.now() - started) / 1000)} s`);
}
process.exit(exitCode);
