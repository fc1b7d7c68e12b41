/** The servers the testkit can provide. */
export type ServiceName = 'postgres' | 'redis' | 'kafka' | 'anvil';

export const SERVICE_NAMES: readonly ServiceName[] = ['postgres', 'redis', 'kafka', 'anvil'];

export interface ServiceUrls {
  databaseUrl?: string;
  redisUrl?: string;
  kafkaBrokers?: string[];
  rpcUrl?: string;
}

/** What a provider (containers or local scripts) hands back: the URLs it made and how to undo it. */
export interface StartedServices {
  urls: ServiceUrls;
  stop: () => Promise<void>;
}
