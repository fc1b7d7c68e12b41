import type { RequestHandler, Router } from 'express';
import type { z } from 'zod';

type HttpMethod = 'get' | 'put' | 'post' | 'patch' | 'delete';

/** A documented status: what it means, and the body's schema (errors default to errorBody). */
export interface ResponseContract {
  description: string;
  schema?: z.ZodType;
}

/**
 * One route's contract: the schemas that validate its request and describe its answers. The route
 * is registered from it (registerRoute), and the OpenAPI document is generated from the same
 * objects, so a path, a parameter or a body cannot differ between the two.
 */
export interface RouteContract {
  method: HttpMethod;
  /** Where the router that registers it is mounted ('' for the root). */
  mount: '' | '/api/v2.2';
  /** express syntax, relative to `mount`: `/:address/logs`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Statuses this route's handler answers with; the guards' statuses are added to every route. */
  responses: Record<number, ResponseContract>;
}

/** Registers a handler on `router` at the contract's method and path. */
export function registerRoute(router: Router, contract: RouteContract, ...handlers: RequestHandler[]): void {
  router[contract.method](contract.path, ...handlers);
}
