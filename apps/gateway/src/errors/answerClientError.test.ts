import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseResponses, rawRequest } from '../testing/rawRequest.ts';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';

let gw: TestGateway;
let port: number;

beforeAll(async () => {
  gw = await startTestGateway();
  port = Number(new URL(gw.baseUrl).port);
});

afterAll(async () => {
  await gw?.close();
});

const JSON_TYPE = 'application/json; charset=utf-8';

async function send(lines: string[], body = '') {
  return parseResponses(
    await rawRequest(port, Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}`, 'latin1')),
  );
}

describe('requests that Node refuses before express sees them', () => {
  it('answers headers past the size limit with a JSON 431', async () => {
    const res = await gw.request(`/api/v2.2/${'a'.repeat(20_000)}/logs`);
    expect({ status: res.status, type: res.headers.get('content-type'), body: await res.json() }).toEqual({
      status: 431,
      type: JSON_TYPE,
      body: { message: 'Request line and headers too large' },
    });
    expect(await send(['GET / HTTP/1.1', 'host: x', `x-api-key: ${'k'.repeat(20_000)}`])).toEqual([
      { status: 431, contentType: JSON_TYPE, text: '{"message":"Request line and headers too large"}' },
    ]);
  });

  it('answers a malformed request with a JSON 400', async () => {
    const malformed = [{ status: 400, contentType: JSON_TYPE, text: '{"message":"Malformed HTTP request"}' }];
    expect(await send(['GET /a b c HTTP/1.1', 'host: x'])).toEqual(malformed);
    expect(await send(['GET / HTTP/1.1', 'host: x', 'bad header'])).toEqual(malformed);
    expect(
      await send(
        ['POST /settings HTTP/1.1', 'host: x', 'content-length: 2', 'transfer-encoding: chunked'],
        '0\r\n\r\n',
      ),
    ).toEqual(malformed);
  });

  it('answers garbage pipelined behind a request still in flight, and closes (as Node does)', async () => {
    const good = `GET /api/v2.2/x/logs HTTP/1.1\r\nhost: x\r\nx-api-key: ${gw.apiKey.key}\r\n\r\n`;
    const answers = await rawRequest(port, Buffer.from(`${good}GARBAGE\r\n\r\n`));
    expect(parseResponses(answers)).toEqual([
      { status: 400, contentType: JSON_TYPE, text: '{"message":"Malformed HTTP request"}' },
    ]);
  });

  it('answers a body that never arrives whole with a JSON 408 once the request time runs out', async () => {
    const started = Date.now();
    const answers = await send(
      [
        'POST /api/v2.2/0x0/logs HTTP/1.1',
        'host: x',
        'connection: close',
        'content-type: application/json',
        `x-api-key: ${gw.apiKey.key}`,
        'content-length: 40',
      ],
      '{"secretKey":"a',
    );
    expect(answers).toEqual([
      { status: 408, contentType: JSON_TYPE, text: '{"message":"Request not received in time"}' },
    ]);
    // The test gateway's request timeout is 1 s (Node's default, kept by main.ts, is 5 min).
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  });

  it('answers CONNECT, which Node keeps from express, with a JSON 404', async () => {
    expect(await send(['CONNECT /stats HTTP/1.1', 'host: x', `x-api-key: ${gw.apiKey.key}`])).toEqual([
      { status: 404, contentType: JSON_TYPE, text: '{"message":"Route not found: CONNECT /stats"}' },
    ]);
  });
});
