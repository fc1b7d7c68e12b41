import type { OpenApiDocument, OpenApiOperation, OpenApiParameter } from './buildOpenApiDocument.ts';

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

type Schema = Record<string, unknown>;

/** A schema's type in a few words: `string /^0x…$/`, `array of AbiItem`, `"ASC" | "DESC"`. */
function typeOf(schema: Schema): string {
  if (typeof schema['$ref'] === 'string') return schema['$ref'].replace('#/components/schemas/', '');
  if (Array.isArray(schema['enum'])) return schema['enum'].map((v) => JSON.stringify(v)).join(' | ');
  if (Array.isArray(schema['anyOf'])) return (schema['anyOf'] as Schema[]).map(typeOf).join(' | ');
  if (schema['type'] === 'array' && typeof schema['items'] === 'object' && schema['items'] !== null)
    return `array of ${typeOf(schema['items'] as Schema)}`;
  const type = Array.isArray(schema['type']) ? schema['type'].join(' | ') : String(schema['type'] ?? 'any');
  const pattern = typeof schema['pattern'] === 'string' ? ` ${schema['pattern']}` : '';
  return `${type}${pattern}`;
}

/** An object schema's members as a table: name, type, required, meaning. */
function fieldsTable(schema: Schema): string {
  const properties = schema['properties'] as Record<string, Schema> | undefined;
  if (!properties) return '';
  const required = new Set((schema['required'] as string[] | undefined) ?? []);
  const rows = Object.entries(properties).map(
    ([name, field]) =>
      `<tr><td><code>${escapeHtml(name)}</code></td><td><code>${escapeHtml(typeOf(field))}</code></td><td>${required.has(name) ? 'yes' : 'no'}</td><td>${escapeHtml(String(field['description'] ?? ''))}</td></tr>`,
  );
  return `<table><thead><tr><th>field</th><th>type</th><th>required</th><th>meaning</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function parameterRow(p: OpenApiParameter): string {
  const example =
    p.schema['example'] === undefined ? '' : ` e.g. <code>${escapeHtml(String(p.schema['example']))}</code>`;
  return `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.in}</td><td>${p.required ? 'yes' : 'no'}</td><td><code>${escapeHtml(typeOf(p.schema))}</code></td><td>${escapeHtml(p.description ?? '')}${example}</td></tr>`;
}

/** `#/components/schemas/Stream` → a link to that schema below. */
function refLink(ref: string): string {
  const name = ref.replace('#/components/schemas/', '');
  return `<a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a>`;
}

function schemaBlock(label: string, schema: Schema): string {
  if (typeof schema['$ref'] === 'string' && Object.keys(schema).length === 1)
    return ` <span class="ref">${escapeHtml(label)}: ${refLink(schema['$ref'])}</span>`;
  return `<details><summary>${escapeHtml(label)}</summary><pre>${escapeHtml(JSON.stringify(schema, null, 2))}</pre></details>`;
}

function operationSection(method: string, path: string, op: OpenApiOperation): string {
  const parts = [
    `<section class="op" id="${escapeHtml(op.operationId)}">`,
    `<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>`,
    `<p>${escapeHtml(op.summary)}</p>`,
  ];
  if (op.description) parts.push(`<p class="desc">${escapeHtml(op.description)}</p>`);
  if (op.parameters.length > 0) {
    parts.push(
      '<table><thead><tr><th>parameter</th><th>in</th><th>required</th><th>type</th><th>meaning</th></tr></thead><tbody>',
      ...op.parameters.map(parameterRow),
      '</tbody></table>',
    );
  }
  if (op.requestBody) {
    const schema = op.requestBody.content['application/json'].schema;
    parts.push(
      '<p><b>Request body</b> (application/json)</p>',
      fieldsTable(schema),
      schemaBlock('JSON Schema', schema),
    );
  }
  parts.push('<ul class="responses">');
  for (const [status, response] of Object.entries(op.responses)) {
    const body = schemaBlock('body', response.content['application/json'].schema);
    parts.push(`<li><b>${status}</b> ${escapeHtml(response.description)}${body}</li>`);
  }
  parts.push('</ul></section>');
  return parts.join('\n');
}

/** The document as one self-contained HTML page: routes grouped by tag; no script, no CDN. */
export function renderDocsPage(doc: OpenApiDocument): string {
  const byTag = new Map<string, string[]>();
  const toc: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = op.tags[0] ?? 'other';
      const sections = byTag.get(tag) ?? [];
      sections.push(operationSection(method, path, op));
      byTag.set(tag, sections);
    }
  }
  const body: string[] = [];
  for (const tag of doc.tags) {
    const sections = byTag.get(tag.name);
    if (!sections) continue;
    toc.push(`<li><a href="#tag-${escapeHtml(tag.name)}">${escapeHtml(tag.name)}</a></li>`);
    body.push(
      `<h2 id="tag-${escapeHtml(tag.name)}">${escapeHtml(tag.name)}</h2><p>${escapeHtml(tag.description)}</p>`,
      ...sections,
    );
  }
  toc.push('<li><a href="#schemas">schemas</a></li>');
  body.push('<h2 id="schemas">schemas</h2>');
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    body.push(
      `<section class="schema" id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>${fieldsTable(schema)}${schemaBlock('JSON Schema', schema)}</section>`,
    );
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(doc.info.title)} API ${escapeHtml(doc.info.version)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:980px;margin:2em auto;padding:0 1em;color:#222}
code,pre{font-family:ui-monospace,monospace;font-size:13px}pre{background:#f6f8fa;padding:.6em;overflow:auto;max-height:32em}
table{border-collapse:collapse;width:100%;margin:.5em 0}td,th{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}
.op{border-top:1px solid #ccc;padding:.5em 0}.method{display:inline-block;min-width:4.5em;text-align:center;color:#fff;border-radius:3px;padding:0 .3em;background:#555}
.get{background:#2f6f9f}.put{background:#8a5a00}.post{background:#2e7d32}.delete{background:#b71c1c}.patch{background:#6a1b9a}
.desc{color:#555}.responses li{margin:.2em 0}
</style></head><body>
<h1>${escapeHtml(doc.info.title)} API <small>${escapeHtml(doc.info.version)}</small></h1>
<p>${escapeHtml(doc.info.description)}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI ${doc.openapi}). Error answers are <code>{"message", "details"?}</code>.</p>
<ul>${toc.join('')}</ul>
${body.join('\n')}
</body></html>
`;
}
