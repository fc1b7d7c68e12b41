export {
  APPROVAL_TOPIC0,
  SELECTORS,
  TRANSFER_BATCH_TOPIC0,
  TRANSFER_SINGLE_TOPIC0,
  TRANSFER_SIGNATURE,
  TRANSFER_TOPIC0,
  ZERO_ADDRESS,
  erc20TransferEventAbi,
} from './signatures.ts';
export { decodeTransfer } from './decodeTransfer.ts';
export { decodeUint, readTokenInfo, readTokenMetadata } from './readTokenMetadata.ts';
export { type NftEvent, decodeNftEvent } from './decodeNftEvent.ts';
export { type NftContractInfo, readNftContractInfo } from './readNftContractInfo.ts';
export { classifyRpcError, errorText } from './classifyRpcError.ts';
export type { RpcBlock, RpcLog } from './rpcTypes.ts';
export { hexToNumber, toHex } from './rpcHex.ts';
export { mapLimit } from './mapLimit.ts';
export {
  type BlockContentsReader,
  type RpcCall,
  createBlockContentsReader,
} from './readBlockContents.ts';
export { toBlockHeader, toChainLog } from './toChainLog.ts';
