/** The devnet every local script, container and test uses: anvil's defaults made explicit. */
export const ANVIL_CHAIN_ID = 31337;
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
/** Account 0 of ANVIL_MNEMONIC, funded with 10000 ETH on a fresh anvil. */
export const ANVIL_ACCOUNT_0 = {
  address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
} as const;
/**
 * States of past blocks anvil keeps on disk beyond those it holds in memory (--max-persisted-states).
 * Unbounded by default, and each one is the whole state: an idle devnet with 1-second blocks wrote
 * about 450 KB a block (39 GB a day) and one that tests had filled 815 KB (2.9 GB an hour), into
 * ~/.foundry/anvil/tmp, which anvil leaves behind when it stops. 3,600 keeps an hour of 1-second
 * blocks beyond memory for historical queries. infra/local/services/anvil.sh and compose give the
 * same number (startAnvil.test.ts and dockerCompose.test.ts hold them to it).
 */
export const ANVIL_MAX_PERSISTED_STATES = 3600;
