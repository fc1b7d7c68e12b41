import { Registry, collectDefaultMetrics } from 'prom-client';

export { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** A Prometheus registry of the service's own, with process metrics and a `service` label. */
export function createMetrics(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}
