import type { IncomingHttpHeaders } from "node:http";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Database, Db } from "../db/types";
import type { AuthContext } from "../auth/auth-context";
import type { Clock } from "../clock";

/** The parts of Node's request and response (HTTP/1 or 2) the API touches. */
export interface NodeBindings {
  incoming: { headers: IncomingHttpHeaders; socket?: { remoteAddress?: string } };
  outgoing: { setHeader(name: string, value: string): unknown; readonly headersSent: boolean };
}

export interface ApiDeps {
  database: Database;
  /** Largest request body accepted, in bytes (default `MAX_BODY_BYTES`); larger ones answer 413 unread. */
  maxBodyBytes?: number;
  /** The time budgets, expiry and alerts are decided by (default: the system clock; tests move their own). */
  clock?: Clock;
}

/**
 * What every request carries (`c.env`), set by `lib/http/request-context.ts` before routing:
 * its id, the db handle, and, under the Node server, Node's request and response.
 */
export interface RequestBindings {
  requestId: string;
  /** `performance.now()` when the request reached the API. */
  startedAt: number;
  db: Db;
  deps: ApiDeps;
  /** The authenticated account, for the access log line (set with the principal). */
  accountId?: string;
  /** The matched operation's route template, e.g. `POST /tools/execute` (set by `createRouter`; unset when none matched). */
  operation?: string;
  incoming?: NodeBindings["incoming"];
  outgoing?: NodeBindings["outgoing"];
  /**
   * Bookkeeping the response does not wait for (metrics), run with the access log line: under the
   * Node server once the response has been written, else as the response is returned.
   */
  afterResponse?: (() => void)[];
}

export interface ApiEnv {
  Bindings: RequestBindings;
  Variables: {
    auth: AuthContext;
  };
}

export type ApiApp = OpenAPIHono<ApiEnv>;
