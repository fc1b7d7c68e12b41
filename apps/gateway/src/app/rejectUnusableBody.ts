import type { RequestHandler } from 'express';
import { BadRequestError } from '../errors/apiErrors.ts';
import { jsonBodyProblem } from '../json/jsonBodyProblem.ts';

/** Far deeper than any stream body needs (ABI tuples and filters nest a handful of levels). */
const MAX_BODY_DEPTH = 64;

/**
 * Refuses a parsed JSON body that the handlers cannot use although it is valid JSON: the recursive
 * validators behind them (zod's schemas of ABI components and filters) overflow the call stack on
 * a body a few thousand levels deep, and PostgreSQL refuses a NUL character in text and jsonb.
 * Both were 500s.
 */
export const rejectUnusableBody: RequestHandler = (req, _res, next) => {
  const problem = jsonBodyProblem(req.body, MAX_BODY_DEPTH);
  if (problem !== undefined) throw new BadRequestError(problem);
  next();
};
