import { errorBody, webhookBody } from '@tributary/schema';
import { z } from 'zod';
import type { ResponseContract, RouteContract } from './routeContract.ts';

type JsonSchema = Record<string, unknown>;

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  tags: { name: string; description: string }[];
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, JsonSchema> };
  security: Record<string, string[]>[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  /** What the service POSTs to a stream's webhookUrl (OpenAPI 3.1 `webhooks`). */
  webhooks: Record<string, { post: OpenApiWebhookOperation }>;
}

interface OpenApiWebhookOperation {
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  parameters: OpenApiHeader[];
  requestBody: { required: true; content: { 'application/json': { schema: JsonSchema } } };
  responses: Record<string, { description: string }>;
}

interface OpenApiHeader {
  name: string;
  in: 'header';
  required: boolean;
  description: string;
  schema: JsonSchema;
}

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description?: string;
  schema: JsonSchema;
  style?: 'form';
  explode?: boolean;
}

export interface OpenApiOperation {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  parameters: OpenApiParameter[];
  requestBody?: { required: true; content: { 'application/json': { schema: JsonSchema } } };
  responses: Record<string, { description: string; content: { 'application/json': { schema: JsonSchema } } }>;
}

/**
 * Statuses every authenticated route can answer before or after its handler runs: the key check,
 * the rate limit, the HTTP server's limits and the error handler's 500.
 */
export const GUARD_RESPONSES: Record<number, ResponseContract> = {
  401: { description: 'X-API-Key missing, unknown or revoked' },
  408: { description: 'The request was not received whole in time' },
  429: {
    description:
      'Rate limited (the key), or too many failed API keys from the address; Retry-After says when to come back',
  },
  431: { description: 'Request line and headers too large' },
  500: { description: 'Internal error; the body names the request id of the log line' },
};

/** Statuses of a route whose method carries a JSON body (parsed before the handler runs). */
export const BODY_RESPONSES: Record<number, ResponseContract> = {
  400: { description: 'Malformed or unusable JSON body, or a body that does not fit the route' },
  413: { description: 'Body larger than the limit' },
};

/** Statuses of a route with path parameters: express refuses a malformed percent-escape. */
export const PATH_RESPONSES: Record<number, ResponseContract> = {
  400: { description: 'Malformed percent-encoding in the path, or a path parameter that cannot be used' },
};

const TAGS = [
  { name: 'data', description: 'The data interface (/api/v2.2): transfers, logs, token holders' },
  { name: 'streams', description: 'Streams: stored configurations that make the service POST webhooks' },
  {
    name: 'backfills',
    description:
      "Beyond the hosted service: a stream's webhooks of a past block range, sent on request, with progress and cancel",
  },
  { name: 'history', description: 'Webhook deliveries and replays' },
  { name: 'stats', description: 'Delivery counts' },
  { name: 'settings', description: 'The webhook signing secret of the account' },
];

/** Named schemas of the document (`components.schemas`), filled as operations are converted. */
type Components = Record<string, JsonSchema>;

/** Points every `#/$defs/<name>` reference at its component's name. */
function renameRefs(value: unknown, names: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => renameRefs(v, names));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')) {
        const name = v.slice('#/$defs/'.length);
        return [k, `#/components/schemas/${names.get(name) ?? name}`];
      }
      return [k, renameRefs(v, names)];
    }),
  );
}

/**
 * A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), as a request or an answer sees it.
 * Schemas with a meta `id` (AbiParam, Stream, Error, ...) become components: a `$ref` in an OpenAPI
 * document resolves against the document, so zod's `$defs` move to `components.schemas`. Answers
 * are converted first; a request's schemas share their components when they read the same as
 * input, else they get `<id>Input` components of their own.
 */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output', components: Components): JsonSchema {
  const {
    $schema: _dialect,
    $defs = {},
    ...rest
  } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  const defs = Object.entries($defs);
  const unnamed = defs.find(([name]) => name.startsWith('__'));
  if (unnamed) throw new Error(`a schema used twice (${unnamed[0]}) needs a meta id to be a component`);
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const plain = new Map(defs.map(([name]) => [name, name]));
  const shared =
    io === 'output' ||
    defs.every(
      ([name, def]) => components[name] === undefined || same(components[name], renameRefs(def, plain)),
    );
  const names = shared ? plain : new Map(defs.map(([name]) => [name, `${name}Input`]));
  for (const [name, def] of defs) {
    const component = names.get(name) ?? name;
    const value = renameRefs(def, names) as JsonSchema;
    if (components[component] !== undefined && !same(components[component], value))
      throw new Error(`two different schemas are named ${component}`);
    components[component] = value;
  }
  return renameRefs(rest, names) as JsonSchema;
}

/** The webhook a stream POSTs, its body converted from the contract the builders are typed by. */
function streamWebhookOf(components: Components): OpenApiWebhookOperation {
  const header = (name: string, required: boolean, description: string): OpenApiHeader => ({
    name,
    in: 'header',
    required,
    description,
    schema: { type: 'string' },
  });
  return {
    operationId: 'streamWebhook',
    tags: ['streams'],
    summary: "A stream's webhook",
    description:
      'POSTed to the webhookUrl of an active stream, once per (stream, block, confirmed): confirmed false when the block is first seen, true once it is deep enough. Retried on a non-2xx answer, a timeout or a connection error. On create, update and re-activation the stream is first sent the hosted service\'s test body (every array empty, "" for the block and chainId), which is not of this schema.',
    parameters: [
      header(
        'x-signature',
        true,
        "0x + lower-case hex of keccak256(the body bytes + the account's secret; the previous secret during a rotation window)",
      ),
      header('x-queue-size', true, "The stream's pending deliveries"),
      header('webhook-id', true, 'Standard Webhooks: the delivery id, stable across retries'),
      header('webhook-timestamp', true, 'Standard Webhooks: Unix seconds of this attempt'),
      header(
        'webhook-signature',
        true,
        'Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body>, one per secret (space-separated) during a rotation window',
      ),
    ],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: jsonSchemaOf(webhookBody, 'output', components) } },
    },
    responses: {
      '2XX': { description: 'Received: the delivery is done' },
      default: {
        description: 'Any other answer, a timeout or a refused connection: the delivery is retried',
      },
    },
  };
}

/** `/:address/logs` under `/api/v2.2` → `/api/v2.2/{address}/logs`. */
export function openApiPath(contract: RouteContract): string {
  return `${contract.mount}${contract.path}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function parametersOf(contract: RouteContract, components: Components): OpenApiParameter[] {
  const out: OpenApiParameter[] = [];
  const add = (where: 'path' | 'query', object: z.ZodObject | undefined) => {
    for (const [name, field] of Object.entries((object?.shape ?? {}) as Record<string, z.ZodType>)) {
      const schema = jsonSchemaOf(field, 'input', components);
      const description = typeof schema['description'] === 'string' ? schema['description'] : undefined;
      const parameter: OpenApiParameter = {
        name,
        in: where,
        required: where === 'path' || !field.safeParse(undefined).success,
        ...(description === undefined ? {} : { description }),
        schema,
      };
      if (schema['type'] === 'array') {
        parameter.style = 'form';
        parameter.explode = true;
      }
      out.push(parameter);
    }
  };
  add('path', contract.params);
  add('query', contract.query);
  return out;
}

function responsesOf(contract: RouteContract): Record<number, ResponseContract> {
  const carriesBody = contract.method !== 'get';
  return {
    ...GUARD_RESPONSES,
    ...(contract.params ? PATH_RESPONSES : {}),
    ...(carriesBody ? BODY_RESPONSES : {}),
    ...contract.responses,
  };
}

/** Every status a route can answer with: its handler's and those of the guards in front of it. */
export function documentedStatuses(contract: RouteContract): number[] {
  return Object.keys(responsesOf(contract)).map(Number);
}

function operationOf(contract: RouteContract, components: Components): OpenApiOperation {
  const responses: OpenApiOperation['responses'] = {};
  for (const [status, response] of Object.entries(responsesOf(contract))) {
    responses[status] = {
      description: response.description,
      content: {
        'application/json': {
          schema: response.schema
            ? jsonSchemaOf(response.schema, 'output', components)
            : jsonSchemaOf(errorBody, 'output', components),
        },
      },
    };
  }
  const operation: OpenApiOperation = {
    operationId: `${contract.method}${openApiPath(contract).replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    tags: [contract.tag],
    summary: contract.summary,
    ...(contract.description === undefined ? {} : { description: contract.description }),
    parameters: parametersOf(contract, components),
    responses,
  };
  if (contract.body) {
    operation.requestBody = {
      required: true,
      content: { 'application/json': { schema: jsonSchemaOf(contract.body, 'input', components) } },
    };
  }
  return operation;
}

/** The OpenAPI 3.1 document of the given routes, generated from the schemas that validate them. */
export function buildOpenApiDocument(contracts: readonly RouteContract[], version: string): OpenApiDocument {
  const components: Components = {};
  // Answers first: a request body shares their components where it reads the same.
  for (const contract of contracts) {
    for (const response of Object.values(contract.responses)) {
      if (response.schema) jsonSchemaOf(response.schema, 'output', components);
    }
  }
  const webhooks = { streamWebhook: { post: streamWebhookOf(components) } };
  const paths: OpenApiDocument['paths'] = {};
  for (const contract of contracts) {
    const path = openApiPath(contract);
    paths[path] ??= {};
    paths[path][contract.method] = operationOf(contract, components);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tributary',
      version,
      description:
        'Self-hosted EVM data and webhook streams, wire-compatible with the hosted Web3 Data API v2.2 and Streams API (the official moralis SDK works against it). Every route needs an X-API-Key header.',
    },
    tags: TAGS,
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
    },
    security: [{ apiKey: [] }],
    paths,
    webhooks,
  };
}
