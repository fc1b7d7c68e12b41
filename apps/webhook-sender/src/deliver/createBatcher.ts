import { classifyFailure } from '@tributary/runtime';

/**
 * Collects the calls made in one turn of the event loop (up to `maxSize`) and runs them as one
 * batch: concurrent deliveries share one PostgreSQL round trip instead of one each. `run`
 * answers in the order of its keys. A batch that fails in a way a retry cannot cure (a row
 * PostgreSQL refuses) is run again one key at a time, so that only the calls of the keys at
 * fault fail.
 */
export function createBatcher<K, V>(
  run: (keys: K[]) => Promise<V[]>,
  maxSize = 200,
  isolate: (err: unknown) => boolean = (err) => classifyFailure(err).kind !== 'transient',
): (key: K) => Promise<V> {
  let pending: { key: K; resolve: (v: V) => void; reject: (e: unknown) => void }[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    run(batch.map((b) => b.key)).then(
      (values) => {
        for (const [i, b] of batch.entries()) b.resolve(values[i] as V);
      },
      (err: unknown) => {
        if (batch.length === 1 || !isolate(err)) {
          for (const b of batch) b.reject(err);
          return;
        }
        for (const b of batch) run([b.key]).then((values) => b.resolve(values[0] as V), b.reject);
      },
    );
  };
  return (key) =>
    new Promise<V>((resolve, reject) => {
      pending.push({ key, resolve, reject });
      if (pending.length >= maxSize) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}
