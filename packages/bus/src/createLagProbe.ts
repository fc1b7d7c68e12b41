import type { Admin, Kafka } from 'kafkajs';

/**
 * A consumer group's lag on one topic: messages between its committed offsets and the
 * partitions' ends (from a partition's start when the group has committed nothing there). One
 * admin client, connected on first use and again after a failure; `close()` disconnects it.
 */
export function createLagProbe(
  kafka: Kafka,
  opts: { groupId: string; topic: string },
): {
  /**
   * The lag of `partitions` (the ones a member holds: none for a standby), or of every partition
   * of the topic when not given (the group's).
   */
  lag(partitions?: readonly number[]): Promise<number>;
  close(): Promise<void>;
} {
  let admin: Admin | undefined;
  async function connected(): Promise<Admin> {
    if (admin) return admin;
    const a = kafka.admin();
    await a.connect();
    admin = a;
    return a;
  }
  return {
    async lag(partitions) {
      const a = await connected();
      try {
        const [ends, committed] = await Promise.all([
          a.fetchTopicOffsets(opts.topic),
          a.fetchOffsets({ groupId: opts.groupId, topics: [opts.topic] }),
        ]);
        const done = new Map<number, bigint>();
        for (const t of committed)
          for (const p of t.partitions) if (p.offset !== '-1') done.set(p.partition, BigInt(p.offset));
        let lag = 0n;
        for (const p of ends) {
          if (partitions && !partitions.includes(p.partition)) continue;
          const from = done.get(p.partition) ?? BigInt(p.low);
          if (BigInt(p.high) > from) lag += BigInt(p.high) - from;
        }
        return Number(lag);
      } catch (err) {
        admin = undefined;
        await a.disconnect().catch(() => undefined);
        throw err;
      }
    },
    async close() {
      const a = admin;
      admin = undefined;
      await a?.disconnect();
    },
  };
}
