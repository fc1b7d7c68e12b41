export { EnvError, envBoolean, envInt, envList, envPort, parseEnv } from './parseEnv.ts';
export { databaseEnv, kafkaEnv, logEnv, opsEnv, redisEnv, rpcEnv } from './commonEnv.ts';
