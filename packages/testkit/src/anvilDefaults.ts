/** The devnet every local script, container and test uses: anvil's defaults made explicit. */
export const ANVIL_CHAIN_ID = 31337;
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
/** Account 0 of ANVIL_MNEMONIC, funded with 10000 ETH on a fresh anvil. */
export const ANVIL_ACCOUNT_0 = {
  address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
} as const;
