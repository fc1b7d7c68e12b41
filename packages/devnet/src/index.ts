export { type DevnetClient, createDevnetClient, devnetAccount } from './createDevnetClient.ts';
export {
  type DemoDeployment,
  deploy,
  deployBulkTransferEmitter,
  deployDemo,
  waitMined,
} from './deployDemo.ts';
export { generateActivity } from './generateActivity.ts';
