import { Counter, type Registry } from 'prom-client';

/**
 * `tributary_dead_letters_total{consumer, topic}`: messages (or jobs) a consumer could not
 * process and set aside with the reason. One definition, so every service exports the same series.
 */
export function createDeadLetterCounter(registry: Registry): Counter<'consumer' | 'topic'> {
  return new Counter({
    name: 'tributary_dead_letters_total',
    help: 'Messages or jobs a consumer could not process (bad JSON, schema failure), set aside with the reason',
    labelNames: ['consumer', 'topic'],
    registers: [registry],
  });
}
