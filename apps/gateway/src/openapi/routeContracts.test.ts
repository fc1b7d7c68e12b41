import * as schemas from '@tributary/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStatusScanner } from '../testing/createStatusScanner.ts';
import { type RegisteredRoute, registeredRoutes } from '../testing/registeredRoutes.ts';
import { type TestGateway, startTestGateway } from '../testing/startTestGateway.ts';
import {
  BODY_RESPONSES,
  GUARD_RESPONSES,
  PATH_RESPONSES,
  documentedStatuses,
  openApiPath,
} from './buildOpenApiDocument.ts';
import type { RouteContract } from './routeContract.ts';
import { ROUTE_CONTRACTS } from './routeContracts.ts';

// The document against the app itself: the routes its router stack holds, the parameters their
// handlers read and the statuses their code can answer with.

let gw: TestGateway;
let routes: RegisteredRoute[];

beforeAll(async () => {
  gw = await startTestGateway({ streams: true });
  routes = registeredRoutes(gw.app).filter((r) => r.path !== '/openapi.json' && r.path !== '/docs');
});

afterAll(async () => {
  await gw?.close();
});

/** A schema argument as compiled code writes it: `name`, `mod.name` or `(0, mod.name)`. */
const ARG = String.raw`\(?(?:0,\s*)?(?:[\w$]+\.)?(\w+)\)?`;
const QUERY_READ = new RegExp(String.raw`parseQuery\)?\(\s*${ARG}\s*,\s*req\.query`, 'g');
const PATH_READ = new RegExp(String.raw`parsePathParams\)?\(\s*${ARG}\s*,\s*req\.params`, 'g');

const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

function contractOf(route: RegisteredRoute): RouteContract {
  const found = ROUTE_CONTRACTS.find(
    (c) => c.method === route.method && `${c.mount}${c.path}` === route.path,
  );
  if (!found) throw new Error(`${key(route.method, route.path)} is registered but has no contract`);
  return found;
}

/** The export name of a schema in @tributary/schema (or stream-rules'), to find it in handler source. */
function schemaName(schema: unknown): string | undefined {
  return Object.entries(schemas).find(([, value]) => value === schema)?.[0];
}

describe('the OpenAPI document and the router stack', () => {
  it('serves at /openapi.json exactly the routes the app registers', async () => {
    const res = await fetch(`${gw.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => key(method, path)),
    );
    const registered = routes.map((r) => key(r.method, r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')));
    expect(registered.length).toBe(ROUTE_CONTRACTS.length);
    expect(new Set(registered).size).toBe(registered.length);
    expect([...registered].sort()).toEqual([...documented].sort());
  });

  it('documents the path parameters each route path names, and no others', () => {
    for (const route of routes) {
      const contract = contractOf(route);
      const named = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
      const documented = Object.keys(contract.params?.shape ?? {});
      expect(documented, key(route.method, route.path)).toEqual(named);
      expect(openApiPath(contract)).toBe(route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}'));
    }
  });

  it("reads the query and the path only through the contract's schemas", () => {
    for (const route of routes) {
      const contract = contractOf(route);
      const source = route.handlers.map(String).join('\n');
      const where = key(route.method, route.path);
      const queryReads = source.match(/req\.query/g)?.length ?? 0;
      const throughSchema = [...source.matchAll(QUERY_READ)];
      expect(queryReads, where).toBe(throughSchema.length);
      if (contract.query) {
        expect(
          throughSchema.map((m) => m[1]),
          where,
        ).toEqual([schemaName(contract.query)]);
      } else {
        expect(throughSchema, where).toEqual([]);
      }
      const pathNames = Object.keys(contract.params?.shape ?? {});
      const pathSchemas = [...source.matchAll(PATH_READ)].map((m) => m[1]);
      const named = [...source.matchAll(/req\.params\[\s*["']([A-Za-z0-9_]+)["']\s*\]/g)].map((m) => m[1]);
      // Every read of req.params is of a documented name, or the whole through the contract's schema.
      expect(source.match(/req\.params/g)?.length ?? 0, where).toBe(pathSchemas.length + named.length);
      for (const name of named) expect(pathNames, where).toContain(name);
      for (const name of pathSchemas) expect(name, where).toBe(schemaName(contract.params));
    }
  });
});

describe('statuses', () => {
  const scanner = createStatusScanner();

  it('finds the statuses in handler code, through the functions it calls', () => {
    const handler = async (id: string) => {
      // Never called: its source is what the scanner reads.
      const scannerInput = `streamIdParam(${id}); throw new ValidationError({}); sendJson(res, 202, {})`;
      return scannerInput;
    };
    expect([...scanner.statusesOfText(String(handler).replace(/`/g, ''))].sort()).toEqual([202, 404, 422]);
    expect([...scanner.statusesOf('parseLimit')]).toEqual([400]);
  });

  it("documents every status each route's handler can answer with", () => {
    for (const route of routes) {
      const emitted = new Set<number>();
      for (const handler of route.handlers) {
        for (const status of scanner.statusesOfText(String(handler))) emitted.add(status);
      }
      const where = key(route.method, route.path);
      expect(emitted.size, where).toBeGreaterThan(0);
      expect(documentedStatuses(contractOf(route)), where).toEqual(expect.arrayContaining([...emitted]));
    }
  });

  it('documents on every route the statuses of the guards in front of the handlers', () => {
    const statuses = (names: string[]) => [...new Set(names.flatMap((n) => [...scanner.statusesOf(n)]))];
    const guard = Object.keys(GUARD_RESPONSES).map(Number);
    expect(guard).toEqual(expect.arrayContaining(statuses(['createAuthenticate', 'createRateLimit'])));
    expect(statuses(['createAuthenticate'])).toContain(401);
    // The HTTP server's own answers (answerClientError) and the error handler's.
    const anyRoute = [
      ...guard,
      ...Object.keys(BODY_RESPONSES).map(Number),
      ...Object.keys(PATH_RESPONSES).map(Number),
    ];
    expect(anyRoute).toEqual(
      expect.arrayContaining(statuses(['answerClientError', 'createErrorHandler', 'rejectUnusableBody'])),
    );
    for (const contract of ROUTE_CONTRACTS) {
      expect(documentedStatuses(contract)).toEqual(expect.arrayContaining(guard));
      if (contract.method !== 'get')
        expect(documentedStatuses(contract)).toEqual(expect.arrayContaining([400, 413]));
    }
  });
});
