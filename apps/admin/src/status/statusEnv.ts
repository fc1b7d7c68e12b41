import {
  databaseEnv,
  extraRpcUrlsEnv,
  kafkaEnv,
  parseEnv,
  redisEnv,
  rpcEnv,
  webhookQueueEnv,
} from '@tributary/config';
import { z } from 'zod';

const list = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    );

/** The deployment the status command looks at: the services' own variables, with their defaults. */
const statusEnvSchema = z.object({
  ...databaseEnv,
  ...redisEnv,
  ...kafkaEnv,
  ...rpcEnv,
  ...extraRpcUrlsEnv,
  ...webhookQueueEnv,
  /** The consumer groups on the block topic (the projector's and the matcher's defaults). */
  STATUS_GROUPS: list('tributary-projector,stream-matcher'),
  /** name=url of each service whose /readyz is asked: its ops port, which says what is not ready. */
  STATUS_SERVICES: list(
    'chain-follower=http://127.0.0.1:9101,projector=http://127.0.0.1:9102,stream-matcher=http://127.0.0.1:9103,webhook-sender=http://127.0.0.1:9104,gateway=http://127.0.0.1:9106',
  ),
});
export type StatusEnv = z.infer<typeof statusEnvSchema>;

export function loadStatusEnv(source: NodeJS.ProcessEnv = process.env): StatusEnv {
  return parseEnv(statusEnvSchema, source);
}

/** STATUS_SERVICES entries as {name, url}. */
export function parseServices(entries: readonly string[]): { name: string; url: string }[] {
  return entries.map((e) => {
    const at = e.indexOf('=');
    if (at <= 0) throw new Error(`STATUS_SERVICES: "${e}" is not name=url`);
    return { name: e.slice(0, at), url: e.slice(at + 1) };
  });
}
