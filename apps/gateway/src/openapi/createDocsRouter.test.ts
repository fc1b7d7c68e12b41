import { webhookBody } from '@tributary/schema';
import { serializeWebhook, webhookHeaders } from '@tributary/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';
import type { OpenApiDocument } from './buildOpenApiDocument.ts';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ streams: true });
});

afterAll(async () => {
  await gw?.close();
});

/** Every `$ref` anywhere in a value. */
function refs(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refs);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [v] : refs(v)));
}

/** Resolves a JSON pointer (`#/a/b`) against `root`, or undefined. */
function resolvePointer(root: unknown, pointer: string): unknown {
  return pointer
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], root);
}

describe('GET /openapi.json and GET /docs', () => {
  it('serves the OpenAPI 3.1 document without a key', async () => {
    const res = await fetch(`${gw.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = (await res.json()) as OpenApiDocument;
    expect(Object.keys(doc)).toEqual([
      'openapi',
      'info',
      'tags',
      'components',
      'security',
      'paths',
      'webhooks',
    ]);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toEqual({
      title: 'Tributary',
      version: '2.2',
      description: expect.stringContaining('Every route needs an X-API-Key header.'),
    });
    expect(doc.tags.map((t) => t.name)).toEqual([
      'data',
      'streams',
      'backfills',
      'history',
      'stats',
      'settings',
    ]);
    expect(doc.security).toEqual([{ apiKey: [] }]);
    expect(doc.components.securitySchemes).toEqual({
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    });
    // Every route of the data and stream interfaces, once, under its tag.
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => `${method.toUpperCase()} ${path} [${op.tags.join()}]`),
    );
    expect(operations.sort()).toEqual([
      'DELETE /streams/evm/{id} [streams]',
      'DELETE /streams/evm/{id}/address [streams]',
      'DELETE /streams/evm/{id}/backfill/{backfillId} [backfills]',
      'GET /api/v2.2/erc20/{token_address}/owners [data]',
      'GET /api/v2.2/{address}/erc20/transfers [data]',
      'GET /api/v2.2/{address}/logs [data]',
      'GET /history [history]',
      'GET /settings [settings]',
      'GET /stats [stats]',
      'GET /stats/{streamId} [stats]',
      'GET /streams/evm [streams]',
      'GET /streams/evm/{id} [streams]',
      'GET /streams/evm/{id}/address [streams]',
      'GET /streams/evm/{id}/backfill [backfills]',
      'GET /streams/evm/{id}/backfill/{backfillId} [backfills]',
      'GET /streams/evm/{id}/listen [streams]',
      'GET /streams/evm/{id}/sequence [streams]',
      'PATCH /streams/evm/{id}/address [streams]',
      'POST /history/replay/{streamId}/{id} [history]',
      'POST /settings [settings]',
      'POST /streams/evm/{id} [streams]',
      'POST /streams/evm/{id}/address [streams]',
      'POST /streams/evm/{id}/backfill [backfills]',
      'POST /streams/evm/{id}/status [streams]',
      'PUT /streams/evm [streams]',
    ]);
  });

  it('gives every operation a unique id and a JSON body for every status, and resolves every $ref', async () => {
    const doc = (await (await fetch(`${gw.baseUrl}/openapi.json`)).json()) as OpenApiDocument;
    const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
    expect(new Set(operations.map((o) => o.operationId)).size).toBe(operations.length);
    for (const op of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        expect(status).toMatch(/^[1-5]\d\d$/);
        expect(response.content['application/json'].schema, `${op.operationId} ${status}`).toBeTypeOf(
          'object',
        );
      }
    }
    // In an OpenAPI document a $ref resolves against the document: zod's $defs became components.
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(0);
    for (const ref of all) {
      expect(ref, ref).toMatch(/^#\/components\/schemas\/\w+$/);
      expect(resolvePointer(doc, ref), ref).toBeTypeOf('object');
    }
  });

  it("documents the stream webhook: the sender's headers, and its body from the contract, in wire order", async () => {
    const doc = (await (await fetch(`${gw.baseUrl}/openapi.json`)).json()) as OpenApiDocument;
    expect(Object.keys(doc.webhooks)).toEqual(['streamWebhook']);
    const op = doc.webhooks['streamWebhook']!.post;
    const headers = webhookHeaders({
      id: 'd',
      body: '{}',
      secrets: { current: 's', previous: 'p' },
      queueSize: 0,
    });
    expect(op.parameters.map((p) => p.name).sort()).toEqual(
      Object.keys(headers)
        .filter((h) => h !== 'content-type')
        .sort(),
    );
    const schema = op.requestBody.content['application/json'].schema;
    expect(schema).toEqual({ $ref: '#/components/schemas/WebhookBody' });
    const component = resolvePointer(doc, schema['$ref'] as string) as {
      properties: Record<string, unknown>;
      required: string[];
      additionalProperties: boolean;
    };
    // Every member of a body the sender serializes (extras included), in the order it sends them.
    const sent = JSON.parse(
      serializeWebhook({
        confirmed: true,
        removed: true,
        backfillId: '17',
        sequence: '1',
        chainId: '0x1',
        abi: [],
        streamId: '00000000-0000-4000-8000-000000000001',
        tag: 't',
        retries: 0,
        block: { number: '1', hash: `0x${'1'.repeat(64)}`, timestamp: '1' },
        logs: [],
        txs: [],
        txsInternal: [],
        erc20Transfers: [],
        erc20Approvals: [],
        nftTransfers: [],
        nftApprovals: { ERC721: [], ERC1155: [] },
        nftTokenApprovals: [],
        nativeBalances: [],
      }),
    ) as Record<string, unknown>;
    expect(webhookBody.safeParse(sent).error?.issues).toBeUndefined();
    expect(Object.keys(component.properties)).toEqual(Object.keys(sent));
    expect(component.required).toEqual(
      Object.keys(sent).filter((k) => !['removed', 'backfillId', 'sequence'].includes(k)),
    );
    expect(component.additionalProperties).toBe(false);
    // The items are components of their own, rendered on /docs like every schema.
    const html = await (await fetch(`${gw.baseUrl}/docs`)).text();
    for (const name of [
      'WebhookBody',
      'WebhookLog',
      'WebhookTx',
      'WebhookErc20Transfer',
      'WebhookNftTransfer',
    ])
      expect(html).toContain(`id="schema-${name}"`);
  });

  it('renders /docs from the document: every route, parameter and status, without a key or a CDN', async () => {
    const doc = (await (await fetch(`${gw.baseUrl}/openapi.json`)).json()) as OpenApiDocument;
    const res = await fetch(`${gw.baseUrl}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).not.toMatch(/<script|<link|src=|https?:\/\//i);
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const start = html.indexOf(`id="${op.operationId}"`);
        expect(start, op.operationId).toBeGreaterThan(-1);
        const end = html.indexOf('</section>', start);
        const section = html.slice(start, end);
        expect(section).toContain(`${method.toUpperCase()}</span> <code>${path}</code>`);
        for (const p of op.parameters)
          expect(section, `${op.operationId} ${p.name}`).toContain(`<code>${p.name}</code>`);
        for (const status of Object.keys(op.responses)) expect(section).toContain(`<b>${status}</b>`);
        for (const ref of refs(op)) {
          const name = ref.split('/').at(-1);
          expect(html).toContain(`id="schema-${name}"`);
        }
        if (op.requestBody) {
          expect(section).toContain('Request body');
          const fields = Object.keys(
            (op.requestBody.content['application/json'].schema['properties'] as object | undefined) ?? {},
          );
          for (const field of fields)
            expect(section, `${op.operationId} ${field}`).toContain(`<code>${field}</code>`);
        }
      }
    }
  });
});
