import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST as the receiver got it: its headers and exact body bytes (UTF-8). */
export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  raw: string;
}

/**
 * A webhook receiver on 127.0.0.1 that answers every POST with `status` (200 unless set) and keeps
 * each; `state.received` counts the requests that reached it.
 */
export async function startTestReceiver(): Promise<{
  url: string;
  state: { status: number; received: number };
  received: ReceivedRequest[];
  close(): Promise<void>;
}> {
  const state = { status: 200, received: 0 };
  const received: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    state.received++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = state.status;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    state,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
