import { Registry, collectDefaultMetrics } from 'prom-client';
import { registerLiveHeapGauge } from './registerLiveHeapGauge.ts';

export { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/**
 * A Prometheus registry of the service's own, with process metrics (prom-client's and the live heap)
 * and a `service` label.
 */
export function createMetrics(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  registerLiveHeapGauge(registry);
  return registry;
}
