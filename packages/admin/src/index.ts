export { formatStatus } from './status/formatStatus.ts';
export { judgeStatus } from './status/judgeStatus.ts';
export {
  type ChainStatus,
  type ConsumerStatus,
  type ServiceStatus,
  type StatusSnapshot,
  type StatusSources,
  readStatus,
} from './status/readStatus.ts';
export { type StatusResult, runStatus } from './status/runStatus.ts';
export { type StatusEnv, loadStatusEnv, parseServices, statusEnvSchema } from './status/statusEnv.ts';
export { type AdminResult, ADMIN_USAGE, runAdmin } from './admin/runAdmin.ts';
export { type AdminEnv, loadAdminEnv } from './admin/adminEnv.ts';
