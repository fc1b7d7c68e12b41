import { keccak256, toBytes } from 'viem';

/** topic0 of an event or the 4-byte selector of a function, from its string signature. */
export function eventTopic0(signature: string): `0x${string}` {
  return keccak256(toBytes(signature));
}

export function functionSelector(signature: string): `0x${string}` {
  return keccak256(toBytes(signature)).slice(0, 10) as `0x${string}`;
}

export const TRANSFER_SIGNATURE = 'Transfer(address,address,uint256)';
/** keccak256("Transfer(address,address,uint256)"): shared by ERC20 (3 topics) and ERC721 (4 topics). */
export const TRANSFER_TOPIC0 = eventTopic0(TRANSFER_SIGNATURE);
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000' as const;

export const SELECTORS = {
  name: functionSelector('name()'),
  symbol: functionSelector('symbol()'),
  decimals: functionSelector('decimals()'),
  totalSupply: functionSelector('totalSupply()'),
} as const;
