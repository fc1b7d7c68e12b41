export {
  APPROVAL_FOR_ALL_TOPIC0,
  APPROVAL_TOPIC0,
  INTERFACE_IDS,
  SELECTORS,
  TRANSFER_BATCH_TOPIC0,
  TRANSFER_SINGLE_TOPIC0,
  TRANSFER_SIGNATURE,
  TRANSFER_TOPIC0,
  ZERO_ADDRESS,
  erc20TransferEventAbi,
  eventTopic0,
  functionSelector,
} from './signatures.ts';
export { decodeTransfer } from './decodeTransfer.ts';
export { decodeText, decodeUint, readTokenInfo, readTokenMetadata } from './readTokenMetadata.ts';
export { type NftEvent, type NftMovement, decodeNftEvent } from './decodeNftEvent.ts';
export { type NftContractInfo, readNftContractInfo } from './readNftContractInfo.ts';
export { classifyRpcError, errorText } from './classifyRpcError.ts';
export type { RpcBlock, RpcCallFrame, RpcLog, RpcReceipt, RpcTransaction } from './rpcTypes.ts';
export { hexToNumber, toHex } from './rpcHex.ts';
export { mapLimit } from './mapLimit.ts';
export {
  type BlockContentsReader,
  type RpcCall,
  createBlockContentsReader,
} from './readBlockContents.ts';
export { toBlockHeader, toChainLog } from './toChainLog.ts';
