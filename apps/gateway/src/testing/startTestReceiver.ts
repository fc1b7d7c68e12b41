import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A webhook receiver on 127.0.0.1 that answers every POST with `status` (200 unless set);
 * `received` counts the requests that reached it.
 */
export async function startTestReceiver(): Promise<{
  url: string;
  state: { status: number; received: number };
  close(): Promise<void>;
}> {
  const state = { status: 200, received: 0 };
  const server: Server = createServer((req, res) => {
    state.received++;
    req.resume();
    req.on('end', () => {
      res.statusCode = state.status;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
