/**
 * Collects the calls made in one turn of the event loop (up to `maxSize`) and runs them as one
 * batch: concurrent deliveries share one PostgreSQL round trip instead of one each. `run`
 * answers in the order of its keys.
 */
export function createBatcher<K, V>(run: (keys: K[]) => Promise<V[]>, maxSize = 200): (key: K) => Promise<V> {
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
        for (const b of batch) b.reject(err);
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
