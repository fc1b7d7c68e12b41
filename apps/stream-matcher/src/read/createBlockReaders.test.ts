import { demoTokenAbi, demoTokenBytecode } from '@tributary/contracts';
import { type StartedAnvil, startAnvil } from '@tributary/testkit';
import {
  type Address,
  type Hex,
  createTestClient,
  http,
  parseEther,
  publicActions,
  walletActions,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlockReaders } from './createBlockReaders.ts';

// Trigger calls and native balances read the state of the webhook's own block, named by its hash:
// after a reorg, the block now at that height answers nothing for it.
let anvil: StartedAnvil;
let client: ReturnType<typeof makeClient>;
let alice: Address;
let bob: Address;
/** Block n: 1 ETH to bob. Block n + 1: 2 ETH more, and a token deployed. */
const blocks: { number: number; hash: Hex }[] = [];
let token: Address;
const DECIMALS = '0x313ce567' as Hex; // decimals(): 6

function makeClient(url: string) {
  return createTestClient({ mode: 'anvil', transport: http(url) })
    .extend(publicActions)
    .extend(walletActions);
}

async function mined(hash: Hex) {
  const r = await client.waitForTransactionReceipt({ hash });
  return r;
}

beforeAll(async () => {
  anvil = await startAnvil();
  client = makeClient(anvil.rpcUrl);
  [alice, bob] = (await client.getAddresses()) as [Address, Address];
  const first = await mined(
    await client.sendTransaction({ account: alice, to: bob, value: parseEther('1'), chain: null }),
  );
  blocks.push({ number: Number(first.blockNumber), hash: first.blockHash });
  await client.setAutomine(false);
  const pay = await client.sendTransaction({ account: alice, to: bob, value: parseEther('2'), chain: null });
  const deploy = await client.deployContract({
    abi: demoTokenAbi,
    bytecode: demoTokenBytecode,
    args: ['Alpha', 'ALP', 6],
    account: alice,
    chain: null,
  });
  await client.mine({ blocks: 1 });
  await client.setAutomine(true);
  const second = await mined(pay);
  token = (await mined(deploy)).contractAddress!;
  expect(second.blockNumber).toBe(first.blockNumber + 1n);
  blocks.push({ number: Number(second.blockNumber), hash: second.blockHash });
});

afterAll(async () => {
  await anvil?.stop();
});

const readers = () => createBlockReaders({ rpcUrls: new Map([[31337, anvil.rpcUrl]]), concurrency: 4 });

describe('createBlockReaders', () => {
  it('reads balances and calls at the block its hash names, not at its height', async () => {
    const [n, next] = blocks as [{ number: number; hash: Hex }, { number: number; hash: Hex }];
    const atN = await client.getBalance({ address: bob, blockNumber: BigInt(n.number) });
    const atNext = await client.getBalance({ address: bob, blockNumber: BigInt(next.number) });
    expect(atNext - atN).toBe(parseEther('2'));
    // Block n's hash with the next block's height: what a reorg makes of a block event.
    const replaced = readers().forBlock(31337, { number: next.number, hash: n.hash });
    expect(await replaced.balance(bob)).toBe(atN);
    expect(await replaced.call({ to: token, data: DECIMALS })).toBe('0x'); // not deployed yet
    const own = readers().forBlock(31337, next);
    expect(await own.balance(bob)).toBe(atNext);
    expect(BigInt(await own.call({ to: token, data: DECIMALS }))).toBe(6n);
  });

  it('reads at the height when the node does not know the hash', async () => {
    const next = blocks[1]!;
    const unknown = readers().forBlock(31337, { number: next.number, hash: `0x${'ab'.repeat(32)}` });
    expect(await unknown.balance(bob)).toBe(
      await client.getBalance({ address: bob, blockNumber: BigInt(next.number) }),
    );
    expect(BigInt(await unknown.call({ to: token, data: DECIMALS }))).toBe(6n);
  });
});
