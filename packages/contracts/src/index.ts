export { bulkTransferEmitterAbi, bulkTransferEmitterBytecode } from './generated/BulkTransferEmitter.ts';
export { bytes32TokenAbi, bytes32TokenBytecode } from './generated/Bytes32Token.ts';
export { demoMultiTokenAbi, demoMultiTokenBytecode } from './generated/DemoMultiToken.ts';
export { demoNftAbi, demoNftBytecode } from './generated/DemoNft.ts';
export { demoTokenAbi, demoTokenBytecode } from './generated/DemoToken.ts';
export { eventEmitterAbi, eventEmitterBytecode } from './generated/EventEmitter.ts';
export {
  revertingMetadataTokenAbi,
  revertingMetadataTokenBytecode,
} from './generated/RevertingMetadataToken.ts';
export { ephemeralEmitterAbi } from './generated/EphemeralEmitter.ts';
export { oddMetadataTokenAbi, oddMetadataTokenBytecode } from './generated/OddMetadataToken.ts';
export { rebasingTokenAbi, rebasingTokenBytecode } from './generated/RebasingToken.ts';
export { subcallRevertTokenAbi, subcallRevertTokenBytecode } from './generated/SubcallRevertToken.ts';
export { topicShapesAbi, topicShapesBytecode } from './generated/TopicShapes.ts';
export { valueForwarderAbi, valueForwarderBytecode } from './generated/ValueForwarder.ts';
