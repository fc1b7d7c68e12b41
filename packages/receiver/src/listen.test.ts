import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ListenRefusedError, listen } from './listen.ts';

// The listen loop against a stand-in gateway on 127.0.0.1 that answers from a script: what the
// loop asks for after a dropped connection, what it forwards and prints, and when it gives up.
// (packages/e2e/src/listen.e2e.test.ts runs the command against the real gateway.)
const servers: Server[] = [];

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

const webhook = (id: string, block: string) => ({
  id,
  blockNumber: block,
  confirmed: false,
  removed: false,
  headers: { 'content-type': 'application/json', 'webhook-id': id },
  body: `{"block":"${block}"}`,
});

describe('listen', () => {
  it('asks again with the same cursor after a dropped connection, and forwards each webhook once, in order', async () => {
    const received: { id: string; body: string }[] = [];
    const local = await serve((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        received.push({ id: String(req.headers['webhook-id']), body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"outcome":"handled"}');
      });
    });
    const asked: (string | null)[] = [];
    const stop = new AbortController();
    const gateway = await serve((req, res) => {
      const cursor = new URL(req.url ?? '/', 'http://x').searchParams.get('cursor');
      asked.push(cursor);
      expect(req.headers['x-api-key']).toBe('the-key');
      const answer = (page: unknown) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(page));
      if (asked.length === 1) return answer({ result: [], cursor: 'c1' });
      if (asked.length === 2) return answer({ result: [webhook('w1', '5')], cursor: 'c2' });
      if (asked.length === 3) return req.socket.destroy(); // the gateway went away mid-poll
      if (asked.length === 4)
        return answer({ result: [webhook('w2', '6'), webhook('w3', '7')], cursor: 'c3' });
      stop.abort();
      return answer({ result: [], cursor: 'c3' });
    });
    const lines: string[] = [];
    await listen({
      apiUrl: gateway,
      apiKey: 'the-key',
      streamId: 's1',
      forwardTo: `${local}/webhook`,
      print: (l) => lines.push(l),
      signal: stop.signal,
      retryMs: 10,
    });
    expect(asked).toEqual([null, 'c1', 'c2', 'c2', 'c3']);
    expect(received).toEqual([
      { id: 'w1', body: '{"block":"5"}' },
      { id: 'w2', body: '{"block":"6"}' },
      { id: 'w3', body: '{"block":"7"}' },
    ]);
    expect(lines).toEqual([
      `listening to stream s1 at ${gateway}, forwarding to ${local}/webhook`,
      '200 block 5 unconfirmed w1 {"outcome":"handled"}',
      'connection lost (other side closed); reconnecting',
      'reconnected',
      '200 block 6 unconfirmed w2 {"outcome":"handled"}',
      '200 block 7 unconfirmed w3 {"outcome":"handled"}',
    ]);
  });

  it('prints a webhook the local receiver could not take, and goes on', async () => {
    const stop = new AbortController();
    let polls = 0;
    const gateway = await serve((_req, res) => {
      polls++;
      if (polls > 2) stop.abort();
      const page = polls === 2 ? { result: [webhook('w9', '9')], cursor: 'c' } : { result: [], cursor: 'c' };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(page));
    });
    // A port nothing listens on: one just freed.
    const closed = await serve(() => {});
    const freed = servers.pop()!;
    await new Promise((resolve) => freed.close(resolve));
    const lines: string[] = [];
    await listen({
      apiUrl: gateway,
      apiKey: 'k',
      streamId: 's',
      forwardTo: `${closed}/webhook`,
      print: (l) => lines.push(l),
      signal: stop.signal,
    });
    expect(lines[1]).toBe(
      `ERR block 9 unconfirmed w9 connect ECONNREFUSED ${closed.slice('http://'.length)}`,
    );
  });

  it('gives up on a refusal that asking again cannot fix', async () => {
    const gateway = await serve((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"Invalid API key"}');
    });
    const run = listen({
      apiUrl: gateway,
      apiKey: 'wrong',
      streamId: 's',
      forwardTo: 'http://127.0.0.1:1/',
      print: () => {},
    });
    await expect(run).rejects.toThrow(new ListenRefusedError('the gateway answered 401: Invalid API key'));
  });
});
