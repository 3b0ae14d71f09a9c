/**
 * Whether an error means the database cannot be reached right now (refused or dropped connection,
 * server shutting down or starting, pool connect timeout), as opposed to a bad statement: the
 * request answers 503 and the client retries, instead of a 500.
 */
const UNAVAILABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "57P01", "57P02", "57P03", "08000", "08001", "08003", "08004", "08006"]);
const UNAVAILABLE_MESSAGE = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection|the database system is (starting up|shutting down|in recovery mode)|Cannot use a pool after calling end/i;

export function isDatabaseUnavailable(err: unknown): boolean {
  // drizzle wraps driver errors (`cause`); AggregateError carries one per address tried.
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const { code, message, errors, cause } = e as { code?: unknown; message?: unknown; errors?: unknown[]; cause?: unknown };
    if (typeof code === "string" && UNAVAILABLE_CODES.has(code)) return true;
    if (typeof message === "string" && UNAVAILABLE_MESSAGE.test(message)) return true;
    if (Array.isArray(errors) && errors.some((x) => isDatabaseUnavailable(x))) return true;
    e = cause;
  }
  return false;
}
