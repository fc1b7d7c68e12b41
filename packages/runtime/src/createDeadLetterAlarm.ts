import type { Registry } from 'prom-client';
import { createDeadLetterCounter } from './createDeadLetterCounter.ts';
import type { Health } from './createHealth.ts';

/** A message or job a consumer set aside on the dead-letter topic. */
export interface SetAside {
  /** The topic it came from (or the queue, for a job). */
  topic: string;
  /** Where on it: "partition 0 offset 1234", "job 42". */
  at: string;
  reason: string;
}

/**
 * One place for what every consumer does when it sets a message aside: counts it in
 * `tributary_dead_letters_total{consumer, topic}`, and names it in the service's readiness (check
 * `dead-letters`) until an operator acknowledges the dead letters (`npm run admin -- dead-letters
 * ack`), so that a consumer that skipped work says so until someone has looked. The letters
 * themselves (bytes, origin, reason) are on the dead-letter topic, where `npm run status` and
 * `admin dead-letters list` read them.
 */
export function createDeadLetterAlarm(opts: {
  registry: Registry;
  health: Health;
  consumer: string;
  /** When an operator last acknowledged the dead letters (null: never). */
  acknowledgedAt: () => Promise<Date | null>;
}): (letter: SetAside) => void {
  const counter = createDeadLetterCounter(opts.registry);
  const letters: { when: Date; letter: SetAside }[] = [];
  opts.health.addCheck('dead-letters', async () => {
    if (letters.length === 0) return;
    const acked = await opts.acknowledgedAt();
    const open = letters.filter((l) => acked === null || l.when > acked);
    if (open.length === 0) return;
    const last = open[open.length - 1]!.letter;
    throw new Error(
      `${open.length} message(s) set aside on the dead-letter topic since ${open[0]!.when.toISOString()}; last: ${last.topic} ${last.at}: ${last.reason} (npm run admin -- dead-letters list; then dead-letters ack)`,
    );
  });
  return (letter) => {
    counter.inc({ consumer: opts.consumer, topic: letter.topic });
    letters.push({ when: new Date(), letter });
    if (letters.length > 100) letters.shift();
  };
}
