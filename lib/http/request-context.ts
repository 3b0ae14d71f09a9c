import crypto from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { API_VERSION, API_VERSION_HEADER } from "../version";
import { logAccess } from "../log";
import { setResponseHeader } from "./headers";
import type { ApiDeps, ApiEnv } from "./context";

const REQUEST_ID = /^[\w.:-]{8,128}$/;

/**
 * First middleware of every request: request id (echoed and logged), the version header on
 * every response (successes and errors alike), the db handle, and one structured log line.
 */
export function requestContext(deps: ApiDeps): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const started = performance.now();
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    c.set("requestId", requestId);
    c.set("deps", deps);
    c.set("db", deps.database.db);
    // Set before the handler runs so they are part of the response as it is built (cheaper than
    // editing a finished response), including responses built by the error handler.
    setResponseHeader(c, "X-Request-Id", requestId);
    setResponseHeader(c, API_VERSION_HEADER, API_VERSION);
    await next();
    logAccess({
      requestId,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 100) / 100,
      account: c.get("auth")?.accountId,
    });
  };
}
