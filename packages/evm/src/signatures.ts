import { type AbiEvent, keccak256, toBytes } from 'viem';

/** topic0 of an event or the 4-byte selector of a function, from its string signature. */
function eventTopic0(signature: string): `0x${string}` {
  return keccak256(toBytes(signature));
}

function functionSelector(signature: string): `0x${string}` {
  return keccak256(toBytes(signature)).slice(0, 10) as `0x${string}`;
}

export const TRANSFER_SIGNATURE = 'Transfer(address,address,uint256)';
/** keccak256("Transfer(address,address,uint256)"): shared by ERC20 (3 topics) and ERC721 (4 topics). */
export const TRANSFER_TOPIC0 = eventTopic0(TRANSFER_SIGNATURE);
/** The ABI item of the ERC20 Transfer event (value not indexed), as a stream's `abi` names it. */
export const erc20TransferEventAbi = {
  anonymous: false,
  inputs: [
    { indexed: true, name: 'from', type: 'address' },
    { indexed: true, name: 'to', type: 'address' },
    { indexed: false, name: 'value', type: 'uint256' },
  ],
  name: 'Transfer',
  type: 'event',
} satisfies AbiEvent;
/** keccak256("Approval(address,address,uint256)"): ERC20 (3 topics) and ERC721 (4 topics: the token id indexed). */
export const APPROVAL_TOPIC0 = eventTopic0('Approval(address,address,uint256)');
/** ERC721 and ERC1155 alike: (owner indexed, operator indexed, bool approved). */
export const APPROVAL_FOR_ALL_TOPIC0 = eventTopic0('ApprovalForAll(address,address,bool)');
export const TRANSFER_SINGLE_TOPIC0 = eventTopic0('TransferSingle(address,address,address,uint256,uint256)');
export const TRANSFER_BATCH_TOPIC0 = eventTopic0(
  'TransferBatch(address,address,address,uint256[],uint256[])',
);
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000' as const;

export const SELECTORS = {
  name: functionSelector('name()'),
  symbol: functionSelector('symbol()'),
  decimals: functionSelector('decimals()'),
  totalSupply: functionSelector('totalSupply()'),
  supportsInterface: functionSelector('supportsInterface(bytes4)'),
} as const;

/** ERC165 interface ids that tell an NFT contract's standard. */
export const INTERFACE_IDS = { ERC721: '0x80ac58cd', ERC1155: '0xd9b67a26' } as const;
