/** Bad usage (exit 2): the message, then the usage line. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A command that could not be done as asked (exit 1): not found, not allowed now. */
export class CommandFailure extends Error {
  override name = 'CommandFailure';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id as a lower-case uuid; anything else is bad usage (never a PostgreSQL cast error). */
export function uuidArg(what: string, value: string | undefined): string {
  if (value === undefined) throw new UsageError(`${what} is missing`);
  if (!UUID.test(value)) throw new UsageError(`${what} "${value}" is not an id (a uuid)`);
  return value.toLowerCase();
}
