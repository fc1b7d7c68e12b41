// Factories of the follower's stages, for composition roots and end-to-end tests.
export {
  type ChainFollower,
  type FollowerOptions,
  createChainFollower,
} from './follow/createChainFollower.ts';
export { createHeadWatcher, type HeadWatcher } from './follow/createHeadWatcher.ts';
export { createRpc, type Rpc } from './follow/createRpc.ts';
export { type BlockPublisher, createBlockPublisher } from './publish/createBlockPublisher.ts';
