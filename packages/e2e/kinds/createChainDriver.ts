import {
  type Abi,
  type Account,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeDeployData,
  http,
  parseGwei,
} from 'viem';

/** One transaction of a block being built: sent now, mined with the block. */
interface TxRequest {
  from: Account;
  to?: Address;
  data?: Hex;
  value?: bigint;
  /** Given, never estimated: a transaction may depend on one sent before it in the same block. */
  gas?: bigint;
}
export type SendTx = (tx: TxRequest) => Promise<Hash>;

export interface MinedBlock {
  number: number;
  hash: Hash;
  receipts: TransactionReceipt[];
}

export interface ChainDriver {
  /** Reads of the node (the drivers' view of the chain, never through the pipeline). */
  client: PublicClient;
  /**
   * One block: every transaction `build` sends, then one block mined with them all. Throws when
   * one reverted (a driver's bug: each block's activity only depends on itself).
   */
  mineBlock(build: (send: SendTx) => Promise<void>): Promise<MinedBlock>;
  mineEmpty(blocks: number): Promise<void>;
  /** Deploys a contract (a block of its own) and returns its address, lower-case. */
  deploy(from: Account, abi: Abi, bytecode: Hex, args: readonly unknown[]): Promise<Address>;
  /** Sends each address `value` wei from `from` (one block). */
  fund(from: Account, addresses: readonly Address[], value: bigint): Promise<void>;
  head(): Promise<number>;
  snapshot(): Promise<Hex>;
  /** Back to the snapshot's state: nonces included (they are read again). */
  revert(id: Hex): Promise<void>;
}

/**
 * Builds blocks on an anvil started without automine (`--no-mining`): transactions are sent with
 * their nonces counted here (read once per account, read again after a revert), a fixed gas and a
 * fee well above the base fee, then `evm_mine` makes them one block. Nothing waits on anvil's
 * automine, and a block holds the activity of several kinds at once, as real blocks do.
 */
export function createChainDriver(opts: {
  rpcUrl: string;
  chainId: number;
  /**
   * Wraps each change of the chain (mining, a revert): the services' node proxy runs it while
   * none of their requests is at the node (FaultyRpc.exclusive), so that no read of the newest
   * block is answered with the state of the block being mined, as anvil does meanwhile.
   */
  exclusive?: <T>(change: () => Promise<T>) => Promise<T>;
}): ChainDriver {
  const chain = defineChain({
    id: opts.chainId,
    name: 'devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [opts.rpcUrl] } },
  });
  const transport = http(opts.rpcUrl, { retryCount: 5, timeout: 60_000 });
  const client = createPublicClient({ chain, transport, pollingInterval: 50 }) as PublicClient;
  const wallet = createWalletClient({ chain, transport });
  // Per account: the next nonce, as a promise chained so that concurrent sends get one each.
  const nonces = new Map<string, Promise<number>>();
  const nextNonce = (account: Account): Promise<number> => {
    const key = account.address.toLowerCase();
    const current =
      nonces.get(key) ?? client.getTransactionCount({ address: account.address, blockTag: 'latest' });
    nonces.set(
      key,
      current.then((n) => n + 1),
    );
    return current;
  };
  const rpc = (method: string, params: unknown[] = []) => client.request({ method, params } as never);
  const change = (method: string, params: unknown[] = []) =>
    opts.exclusive ? opts.exclusive(() => rpc(method, params)) : rpc(method, params);

  const send: (sent: Hash[]) => SendTx = (sent) => async (tx) => {
    const hash = await wallet.sendTransaction({
      account: tx.from,
      chain,
      to: tx.to ?? null,
      data: tx.data,
      value: tx.value ?? 0n,
      gas: tx.gas ?? 300_000n,
      nonce: await nextNonce(tx.from),
      maxFeePerGas: parseGwei('100'),
      maxPriorityFeePerGas: parseGwei('1'),
    });
    sent.push(hash);
    return hash;
  };

  async function mineBlock(build: (send: SendTx) => Promise<void>): Promise<MinedBlock> {
    const sent: Hash[] = [];
    try {
      await build(send(sent));
    } catch (err) {
      // What was sent is mined (the next block must not find it pending), and the counted nonces
      // may be ahead of what reached the node: they are read again.
      await change('evm_mine');
      nonces.clear();
      throw err;
    }
    for (let attempt = 1; ; attempt++) {
      await change('evm_mine');
      const receipts = await Promise.all(
        sent.map((hash) => client.getTransactionReceipt({ hash }).catch(() => undefined)),
      );
      if (receipts.every((r) => r !== undefined)) {
        const reverted = receipts.filter((r) => r.status !== 'success');
        if (reverted.length > 0)
          throw new Error(`transactions reverted: ${reverted.map((r) => r.transactionHash).join(', ')}`);
        const block = await client.getBlock({ blockTag: 'latest' });
        return { number: Number(block.number), hash: block.hash, receipts };
      }
      if (attempt >= 3) throw new Error(`transactions not mined after ${attempt} blocks: ${sent.join(', ')}`);
    }
  }

  return {
    client,
    mineBlock,
    async mineEmpty(blocks) {
      if (blocks > 0) await change('anvil_mine', [`0x${blocks.toString(16)}`]);
    },
    async deploy(from, abi, bytecode, args) {
      const mined = await mineBlock(async (s) => {
        await s({ from, data: encodeDeployData({ abi, bytecode, args }), gas: 5_000_000n });
      });
      const address = mined.receipts[0]?.contractAddress;
      if (!address) throw new Error('the deployment created no contract');
      return address.toLowerCase() as Address;
    },
    async fund(from, addresses, value) {
      await mineBlock(async (s) => {
        for (const to of addresses) await s({ from, to, value, gas: 21_000n });
      });
    },
    head: async () => Number(await client.getBlockNumber({ cacheTime: 0 })),
    snapshot: async () => (await rpc('evm_snapshot')) as Hex,
    async revert(id) {
      const ok = await change('evm_revert', [id]);
      if (ok !== true) throw new Error(`evm_revert ${id} failed`);
      nonces.clear();
    },
  };
}
