import { demoTokenAbi } from '@tributary/contracts';
import { type DemoDeployment, type DevnetClient, createDevnetClient, deployDemo } from '@tributary/devnet';
import { erc20TransferEventAbi } from '@tributary/evm';
import { type StartedAnvil, startAnvil } from '@tributary/testkit';
import type { Abi, Hash } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TRANSFER_TOPIC0 } from './harness/chainTruth.ts';
import { type GatewayClient, createGatewayClient } from './harness/createGatewayClient.ts';
import { type Pipeline, startPipeline } from './harness/startPipeline.ts';
import { type WebhookReceiver, startWebhookReceiver } from './harness/startWebhookReceiver.ts';
import { send } from './harness/tokenActivity.ts';
import { waitFor } from './harness/waitFor.ts';

// Two devnets with their own chain ids, one chain-follower each, every other service shared: one
// stream on both chain ids gets each chain's webhooks with that chain's id, and each chain is
// served by name and by hex id with its own transfers only.
const erc20 = demoTokenAbi as Abi;

interface Devnet {
  chainId: number;
  hex: string;
  names: [string, string];
  anvil: StartedAnvil;
  client: DevnetClient;
  demo: DemoDeployment;
  /** Transactions this test sent on the chain. */
  sent: Hash[];
}

const devnets: Devnet[] = [];
let pipeline: Pipeline;
let gw: GatewayClient;
let receiver: WebhookReceiver;

async function startDevnet(chainId: number, name: string): Promise<Devnet> {
  const anvil = await startAnvil({ chainId });
  const client = createDevnetClient({ rpcUrl: anvil.rpcUrl, chainId });
  const hex = `0x${chainId.toString(16)}`;
  return { chainId, hex, names: [name, hex], anvil, client, demo: await deployDemo(client), sent: [] };
}

beforeAll(async () => {
  devnets.push(await startDevnet(31337, 'devnet'), await startDevnet(31338, 'devnet2'));
  const [, second] = devnets as [Devnet, Devnet];
  receiver = await startWebhookReceiver();
  const extraChains = { EXTRA_CHAINS: 'devnet2:0x7a6a:2:1000' };
  pipeline = await startPipeline({
    name: 'multichain',
    apps: ['chain-follower', 'projector', 'stream-matcher', 'webhook-sender', 'gateway'],
    anvil: devnets[0]!.anvil,
    moreChains: [{ chainId: second.chainId, rpcUrl: second.anvil.rpcUrl }],
    env: {
      'chain-follower': extraChains,
      gateway: extraChains,
      'stream-matcher': { EXTRA_RPC_URLS: `${second.chainId}=${second.anvil.rpcUrl}` },
    },
  });
  gw = createGatewayClient(pipeline.gatewayUrl, pipeline.apiKey.key);
}, 180_000);

afterAll(async () => {
  await pipeline?.close();
  await receiver?.close();
  for (const d of devnets) await d.anvil.stop();
}, 60_000);

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(pipeline?.diagnostics()));
});

describe('two chains followed at once', () => {
  it("delivers one stream's webhooks from both chains, each with its own chainId", async () => {
    const created = await gw.request('PUT', '/streams/evm', {
      webhookUrl: receiver.url,
      description: 'transfers on both devnets',
      tag: 'e2e-two-chains',
      chainIds: devnets.map((d) => d.hex),
      includeContractLogs: true,
      topic0: ['Transfer(address,address,uint256)'],
      abi: [erc20TransferEventAbi],
    });
    expect(created.status).toBe(200);
    expect(created.body.chainIds).toEqual(['0x7a69', '0x7a6a']);
    const streamId: string = created.body.id;
    const tokens = [...new Set(devnets.map((d) => d.demo.demo.toLowerCase()))];
    expect((await gw.request('POST', `/streams/evm/${streamId}/address`, { address: tokens })).status).toBe(
      200,
    );

    const ofStream = () => receiver.received.filter((w) => w.body?.streamId === streamId && w.body.block);
    // The matcher applies stream changes asynchronously: each chain mints until one of its webhooks comes.
    let round = 0n;
    await waitFor(
      'an unconfirmed webhook of each chain',
      async () => {
        round++;
        for (const d of devnets) {
          const me = d.client.account.address;
          d.sent.push(
            await send(d.client, d.demo.demo, erc20, 'mint', [me, BigInt(d.chainId) * 1000n + round]),
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        const chainIds = new Set(ofStream().map((w) => w.body.chainId));
        return devnets.every((d) => chainIds.has(d.hex));
      },
      { timeoutMs: 120_000, intervalMs: 0, diagnostics: () => pipeline.diagnostics() },
    );

    // Every webhook names the chain its block and transactions come from.
    const hooks = ofStream();
    expect(new Set(hooks.map((w) => w.body.chainId))).toEqual(new Set(['0x7a69', '0x7a6a']));
    for (const w of hooks) {
      const d = devnets.find((x) => x.hex === w.body.chainId)!;
      expect(w.body.tag).toBe('e2e-two-chains');
      const block = await d.client.getBlock({ blockNumber: BigInt(w.body.block.number) });
      expect(w.body.block.hash, `${d.names[0]} block ${w.body.block.number}`).toBe(block.hash);
      const transfers = w.body.erc20Transfers as { transactionHash: Hash; to: string; value: string }[];
      expect(transfers.length).toBeGreaterThan(0);
      for (const t of transfers) {
        expect(d.sent, `${d.names[0]} transfer in block ${w.body.block.number}`).toContain(t.transactionHash);
        expect(BigInt(t.value) / 1000n).toBe(BigInt(d.chainId));
      }
    }
  });

  it('serves each chain by name and by hex id with its own data, and refuses a chain it does not follow', async () => {
    for (const d of devnets) {
      const me = d.client.account.address.toLowerCase();
      const other = devnets.find((x) => x !== d)!;
      // The projector may lag the webhooks: wait until the chain's last transfer is served.
      await waitFor(
        `${d.names[0]}'s transfers in the gateway`,
        async () => {
          const page = await gw.get(`/api/v2.2/${me}/erc20/transfers`, { chain: d.names[0], limit: 100 });
          return (
            page.status === 200 &&
            page.body.result.some((r: { transaction_hash: string }) => r.transaction_hash === d.sent.at(-1))
          );
        },
        { timeoutMs: 60_000, diagnostics: () => pipeline.diagnostics() },
      );
      const [byName, byHex] = await Promise.all(
        d.names.map((chain) => gw.get(`/api/v2.2/${me}/erc20/transfers`, { chain, limit: 100 })),
      );
      expect(byName!.status).toBe(200);
      expect(byHex!.raw).toBe(byName!.raw);
      const records = byName!.body.result as {
        transaction_hash: Hash;
        block_number: number;
        block_hash: string;
      }[];
      const hashes = records.map((r) => r.transaction_hash);
      for (const h of d.sent) expect(hashes).toContain(h);
      for (const h of other.sent) expect(hashes).not.toContain(h);
      for (const r of records) {
        const block = await d.client.getBlock({ blockNumber: BigInt(r.block_number) });
        expect(r.block_hash).toBe(block.hash);
      }
      const logs = await Promise.all(
        d.names.map((chain) =>
          gw.get(`/api/v2.2/${d.demo.demo}/logs`, {
            chain,
            topic0: TRANSFER_TOPIC0,
            from_block: 0,
            limit: 100,
          }),
        ),
      );
      expect(logs[0]!.status).toBe(200);
      expect(logs[1]!.raw).toBe(logs[0]!.raw);
      const logHashes = (logs[0]!.body.result as { transaction_hash: Hash }[]).map((l) => l.transaction_hash);
      for (const h of d.sent) expect(logHashes).toContain(h);
      for (const h of other.sent) expect(logHashes).not.toContain(h);
    }
    const eth = await gw.get(`/api/v2.2/${devnets[0]!.client.account.address}/erc20/transfers`, {
      chain: 'eth',
    });
    expect({ status: eth.status, body: eth.body }).toEqual({
      status: 400,
      body: { message: 'chain 0x1 (eth) is not followed by this deployment' },
    });
  });
});

it('received only bodies of the webhook body contract', () => {
  expect(receiver.offContract().map((w) => [w.path, w.contractIssues])).toEqual([]);
});
