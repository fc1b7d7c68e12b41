export { envBoolean, envInt, envPort, parseEnv } from './parseEnv.ts';
export {
  chainsEnv,
  databaseEnv,
  databaseTimeoutsEnv,
  extraRpcUrlsEnv,
  kafkaEnv,
  kafkaTopicsEnv,
  kafkaGroupEnv,
  kafkaRetentionEnv,
  logEnv,
  opsEnv,
  redisEnv,
  rpcEnv,
  webhookQueueEnv,
  webhookUrlEnv,
} from './commonEnv.ts';
export { envDocProblems } from './envDocProblems.ts';
export { type RedisConnectionOptions, redisConnection } from './redisConnection.ts';
export { kafkaReplication } from './kafkaReplication.ts';
