import {
  type Account,
  type Chain,
  type PublicActions,
  type Transport,
  type WalletClient,
  createWalletClient,
  defineChain,
  http,
  publicActions,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';

/** anvil's standard test mnemonic: its accounts are funded on every devnet. */
const TEST_MNEMONIC = 'test test test test test test test test test test test junk';

export type DevnetClient = WalletClient<Transport, Chain, Account> & PublicActions<Transport, Chain, Account>;

export function devnetAccount(index: number): Account {
  return mnemonicToAccount(TEST_MNEMONIC, { addressIndex: index });
}

/** A wallet + public client for one devnet account (fast polling: automine answers at once). */
export function createDevnetClient(opts: {
  rpcUrl: string;
  chainId?: number;
  accountIndex?: number;
}): DevnetClient {
  const chain = defineChain({
    id: opts.chainId ?? 31337,
    name: 'devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [opts.rpcUrl] } },
  });
  return createWalletClient({
    account: devnetAccount(opts.accountIndex ?? 0),
    chain,
    transport: http(opts.rpcUrl),
    pollingInterval: 50,
  }).extend(publicActions);
}
