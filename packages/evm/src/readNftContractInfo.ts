import { type Address, type PublicClient, encodeAbiParameters } from 'viem';
import { decodeText, decodeUint } from './readTokenMetadata.ts';
import { INTERFACE_IDS, SELECTORS } from './signatures.ts';
import { callOrNull } from './callOrNull.ts';

export interface NftContractInfo {
  address: Address;
  name: string | null;
  symbol: string | null;
  /** What the contract answers to ERC165; null when it answers to neither (or not at all). */
  contractType: 'ERC721' | 'ERC1155' | null;
}

/**
 * Reads an NFT contract's name, symbol and standard at `blockNumber`: four eth_calls, made once
 * per contract by the follower. Tolerant like readTokenMetadata: a getter that reverts or
 * returns garbage gives null (ERC1155 has no name or symbol in its standard).
 */
export async function readNftContractInfo(
  client: PublicClient,
  contract: Address,
  blockNumber: bigint,
): Promise<NftContractInfo> {
  const supports = (id: string) =>
    `${SELECTORS.supportsInterface}${encodeAbiParameters([{ type: 'bytes4' }], [id as `0x${string}`]).slice(2)}` as `0x${string}`;
  const [name, symbol, is721, is1155] = await Promise.all([
    callOrNull(client, contract, SELECTORS.name, blockNumber),
    callOrNull(client, contract, SELECTORS.symbol, blockNumber),
    callOrNull(client, contract, supports(INTERFACE_IDS.ERC721), blockNumber),
    callOrNull(client, contract, supports(INTERFACE_IDS.ERC1155), blockNumber),
  ]);
  return {
    address: contract.toLowerCase() as Address,
    name: decodeText(name),
    symbol: decodeText(symbol),
    contractType: decodeUint(is721) === 1n ? 'ERC721' : decodeUint(is1155) === 1n ? 'ERC1155' : null,
  };
}
