import { Gauge, type Registry } from 'prom-client';

/**
 * `tributary_consumer_lag_messages{group}`: a consumer group's messages not yet committed, read
 * from the broker when scraped (`lag`: the group's lag probe). A broker that does not answer
 * within 1.5 s keeps the last value; a scrape never fails for it.
 */
export function createConsumerLagGauge(registry: Registry, group: string, lag: () => Promise<number>): void {
  new Gauge({
    name: 'tributary_consumer_lag_messages',
    help: 'Messages of the block topic not yet committed by the consumer group',
    labelNames: ['group'],
    registers: [registry],
    async collect() {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), 1_500);
      });
      const n = await Promise.race([lag().catch(() => undefined), late]);
      clearTimeout(timer);
      if (n !== undefined) this.set({ group }, n);
    },
  });
}
