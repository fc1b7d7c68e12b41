export { type DevnetClient, TEST_MNEMONIC, createDevnetClient, devnetAccount } from './createDevnetClient.ts';
export {
  type DemoDeployment,
  deploy,
  deployBulkTransferEmitter,
  deployDemo,
  waitMined,
} from './deployDemo.ts';
export { type ActivityStep, activityStep, generateActivity } from './generateActivity.ts';
