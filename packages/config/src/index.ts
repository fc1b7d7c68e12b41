export { EnvError, envBoolean, envInt, envList, envPort, parseEnv } from './parseEnv.ts';
export {
  chainsEnv,
  databaseEnv,
  databaseTimeoutsEnv,
  extraRpcUrlsEnv,
  kafkaEnv,
  kafkaRetentionEnv,
  logEnv,
  opsEnv,
  redisEnv,
  rpcEnv,
  webhookQueueEnv,
  webhookUrlEnv,
} from './commonEnv.ts';
export { envDocProblems } from './envDocProblems.ts';
