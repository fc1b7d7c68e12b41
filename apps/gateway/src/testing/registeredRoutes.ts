import type { Express } from 'express';

/** A route as the express app registered it: method and full path in express syntax. */
export interface RegisteredRoute {
  method: string;
  path: string;
  /** The route's handlers, in order (middleware of the route included). */
  handlers: ((...args: never[]) => unknown)[];
}

interface Layer {
  rawPath?: string | string[];
  route?: { path: string; methods: Record<string, boolean>; stack: Layer[] };
  handle: ((...args: never[]) => unknown) & { stack?: Layer[] };
}

function prefixOf(layer: Layer): string {
  const raw = layer.rawPath;
  return typeof raw === 'string' && raw !== '/' ? raw : '';
}

function walk(stack: Layer[], prefix: string, out: RegisteredRoute[]): void {
  for (const layer of stack) {
    if (layer.route) {
      for (const [method, on] of Object.entries(layer.route.methods)) {
        if (!on || method === '_all') continue;
        out.push({
          method,
          path: `${prefix}${layer.route.path}`,
          handlers: layer.route.stack.map((l) => l.handle),
        });
      }
    } else if (Array.isArray(layer.handle.stack)) {
      walk(layer.handle.stack, `${prefix}${prefixOf(layer)}`, out);
    }
  }
}

/** Every route the app registers, found by walking its router stack and the routers mounted in it. */
export function registeredRoutes(app: Express): RegisteredRoute[] {
  const out: RegisteredRoute[] = [];
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '', out);
  return out;
}
