import type { z } from 'zod';

/** One row of the README's configuration table. */
interface ConfigRow {
  variables: string[];
  defaults: string;
  usedBy: string;
}

/** The section of the README under `heading` (empty when there is none). */
function section(readme: string, heading: string): string {
  const start = readme.indexOf(`\n## ${heading}`);
  if (start < 0) return '';
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The rows of the tables under `## Configuration` and `## Limits` in the README. */
function configRows(readme: string): ConfigRow[] {
  return [section(readme, 'Configuration'), section(readme, 'Limits')]
    .join('\n')
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [vars = '', defaults = '', usedBy = ''] = line.slice(1, -1).split(' | ');
      return {
        variables: [...vars.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1] as string),
        defaults,
        usedBy,
      };
    });
}

/** The object schema under refinements and transforms (an env schema is an object at heart). */
function objectShape(schema: z.ZodTypeAny): Record<string, z.ZodTypeAny> {
  type Node = z.ZodTypeAny & {
    _def: { schema?: Node; in?: Node; innerType?: Node };
    shape?: Record<string, z.ZodTypeAny>;
  };
  let s: Node | undefined = schema as Node;
  while (s && !s.shape) s = s._def.schema ?? s._def.in ?? s._def.innerType;
  if (!s?.shape) throw new Error('not an object schema');
  return s.shape;
}

/** A default as the table writes it: numbers and words as they are, a list comma-separated. */
function rendered(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (Array.isArray(value)) return value.join(',');
  if (typeof value === 'object') return undefined;
  return String(value);
}

const mentions = (cell: string, word: string) =>
  new RegExp(`(^|[^0-9A-Za-z_-])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^0-9A-Za-z_-])`).test(cell);

/**
 * Where the README's configuration table and a service's environment schema disagree: a variable
 * the service reads that no row lists for it, a default the row does not state, or a row that
 * lists the service for a variable it does not read. `names` are how the table may name the
 * service (`stream-matcher`, `matcher`); `all` names every service.
 */
export function envDocProblems(opts: {
  names: readonly string[];
  schema: z.ZodTypeAny;
  readme: string;
  /** Variables the service reads that operators never set (test switches). */
  undocumented?: readonly string[];
}): string[] {
  const problems: string[] = [];
  const shape = objectShape(opts.schema);
  const rows = configRows(opts.readme);
  const forThis = (row: ConfigRow) =>
    mentions(row.usedBy, 'all') || opts.names.some((n) => mentions(row.usedBy, n));
  const name = opts.names[0];
  for (const [variable, field] of Object.entries(shape)) {
    if (opts.undocumented?.includes(variable)) continue;
    const row = rows.find((r) => r.variables.includes(variable) && forThis(r));
    if (!row) {
      problems.push(`${variable}: no row of the configuration table lists it for ${name}`);
      continue;
    }
    const parsed = field.safeParse(undefined);
    const value = parsed.success ? rendered(parsed.data) : undefined;
    if (value !== undefined && !mentions(row.defaults, value))
      problems.push(`${variable}: the table's default "${row.defaults}" does not state ${value}`);
  }
  for (const row of rows) {
    if (!opts.names.some((n) => mentions(row.usedBy, n))) continue;
    for (const variable of row.variables)
      if (!(variable in shape))
        problems.push(`${variable}: the table lists it for ${name}, which does not read it`);
  }
  return problems;
}
