import fc from 'fast-check';
import type { OpenApiDocument, OpenApiOperation, OpenApiParameter } from '../openapi/buildOpenApiDocument.ts';
import type { Answer } from './answerProblems.ts';
import { queryFor, segment } from './hostileInputs.ts';

/** One operation of the served document. */
export interface DocumentOperation {
  /** `GET /api/v2.2/{address}/logs` */
  name: string;
  method: string;
  path: string;
  operation: OpenApiOperation;
}

/** Fitting values of parameters: by `<operation name> <parameter>` first, then by parameter name. */
export type Fitting = Record<string, readonly string[]>;

/** The operations of the document whose path `include` accepts. */
export function documentOperations(
  doc: OpenApiDocument,
  include: (path: string) => boolean,
): DocumentOperation[] {
  return Object.entries(doc.paths)
    .filter(([path]) => include(path))
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        name: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        operation,
      })),
    );
}

/** What a parameter fits with: the test's values for it, else the document's example. */
function fittingOf(op: DocumentOperation, p: OpenApiParameter, fitting: Fitting): readonly string[] {
  const given = fitting[`${op.name} ${p.name}`] ?? fitting[p.name];
  if (given && given.length > 0) return given;
  const example =
    p.schema['example'] ?? (p.schema['items'] as Record<string, unknown> | undefined)?.['example'];
  return [example === undefined ? 'x' : String(example)];
}

/**
 * Path and query of a request to one operation, from the document's parameters: each path
 * parameter a fitting or hostile segment, each query parameter absent, fitting or hostile (an
 * array one in bracket and indexed form), plus `extraQuery` parameters the operation does not know.
 */
export function requestFor(
  op: DocumentOperation,
  fitting: Fitting,
  extraQuery: Record<string, readonly string[]> = {},
): fc.Arbitrary<string> {
  const params = op.operation.parameters;
  const segments = params.filter((p) => p.in === 'path').map((p) => segment(fittingOf(op, p, fitting)));
  const query: Record<string, readonly string[]> = { ...extraQuery };
  for (const p of params.filter((x) => x.in === 'query')) {
    const values = fittingOf(op, p, fitting);
    if (p.schema['type'] === 'array') {
      query[`${p.name}[]`] = values;
      query[`${p.name}[0]`] = values;
    } else {
      query[p.name] = values;
    }
  }
  return fc.tuple(fc.tuple(...segments), queryFor(query)).map(([values, q]) => {
    let i = 0;
    return `${op.path.replace(/\{\w+\}/g, () => values[i++] ?? '')}${q}`;
  });
}

/**
 * A problem when an answer's status is not among the operation's documented ones. A request whose
 * hostile path no longer has the operation's shape (an empty segment, a `/` or `..` in one: fetch
 * sends the normalized path) reached another route or none, so it is not the operation's.
 */
export function undocumentedStatus(
  op: DocumentOperation,
  url: string,
  answer: Answer | undefined,
): string | undefined {
  if (answer === undefined) return undefined;
  const shape = new RegExp(`^${op.path.replace(/\{\w+\}/g, '[^/]+')}$`);
  if (!shape.test(new URL(url).pathname)) return undefined;
  if (String(answer.status) in op.operation.responses) return undefined;
  return `answered ${answer.status}, which ${op.name} does not document`;
}
