import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceiverFaults {
  /** Share of webhooks answered 500 at once (the sender retries them on its schedule). */
  failPercent: number;
  /** Share answered 200 after slowMs × 0.5..1.5. */
  slowPercent: number;
  slowMs: number;
}

interface ReceiverCounts {
  requests: number;
  delivered: number;
  failed: number;
  /** Block mined → arrival of each unconfirmed webhook's first attempt. */
  latenciesMs: number[];
}

export interface SoakReceiver {
  /** One URL per origin (a port of its own: the sender bounds requests in flight per origin). */
  urls: string[];
  /** What arrived since the previous call. */
  drain(): ReceiverCounts;
  close(): Promise<void>;
}

/**
 * The webhook receivers of a soak run, as customers' endpoints are: most answer 200 at once, some
 * slowly, some fail with 500 (their retries then cycle through the sender's schedule). Nothing
 * is kept but counts and the latency of unconfirmed first attempts, so that the receiver's own
 * memory does not grow with the run; only the head of each body is read (its fields come first
 * in the hosted service's key order).
 */
export async function startSoakReceiver(
  o: ReceiverFaults & { origins: number; minedAt: (block: number) => number | undefined },
): Promise<SoakReceiver> {
  let counts: ReceiverCounts = { requests: 0, delivered: 0, failed: 0, latenciesMs: [] };
  const timers = new Set<NodeJS.Timeout>();
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    let head = '';
    req.on('data', (c: Buffer) => {
      if (head.length < 4096) head += c.toString('utf8', 0, Math.min(c.length, 4096));
    });
    req.on('end', () => {
      const arrived = Date.now();
      const streamId = /"streamId":"([^"]*)"/.exec(head)?.[1] ?? '';
      // The test webhook of a stream create or update: always accepted.
      if (streamId === '') return void res.end();
      counts.requests++;
      const unconfirmedFirst = head.startsWith('{"confirmed":false,"chainId"') && /"retries":0,/.test(head);
      const block = Number(/"block":\{"number":"(\d+)"/.exec(head)?.[1] ?? Number.NaN);
      const mined = o.minedAt(block);
      if (unconfirmedFirst && mined !== undefined) counts.latenciesMs.push(arrived - mined);
      const r = Math.random() * 100;
      if (r < o.failPercent) {
        counts.failed++;
        res.statusCode = 500;
        return void res.end();
      }
      const answer = () => {
        counts.delivered++;
        res.end();
      };
      if (r >= o.failPercent + o.slowPercent) return answer();
      const t = setTimeout(
        () => {
          timers.delete(t);
          answer();
        },
        o.slowMs * (0.5 + Math.random()),
      );
      timers.add(t);
    });
  };
  const servers = Array.from({ length: o.origins }, () => createServer(onRequest));
  for (const s of servers) await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return {
    urls: servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}/hook`),
    drain() {
      const out = counts;
      counts = { requests: 0, delivered: 0, failed: 0, latenciesMs: [] };
      return out;
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      await Promise.all(
        servers.map((s) => {
          s.closeAllConnections();
          return new Promise<void>((r) => s.close(() => r()));
        }),
      );
    },
  };
}
