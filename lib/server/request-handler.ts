import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { isApiPath } from "../api/app";
import { stampClientAddress } from "../http/client-address";
import { stampPagePath } from "../http/page-path";
import { METRICS_PATH, serveMetrics } from "../observability/metrics-endpoint";

type Listener = (req: IncomingMessage, res: ServerResponse) => unknown;

/**
 * The public port's router: `/api/v1/*` and `/.well-known/*` to the Hono app; `/metrics` to the
 * scrape endpoint only when `metricsToken` is set (and then only with that bearer token); the rest
 * to Next, which answers an unset `/metrics` with its 404 page.
 */
export function createRequestHandler(handlers: { api: Listener; next: Listener; metricsToken?: string }): RequestListener {
  const { api, next, metricsToken } = handlers;
  return (req, res) => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const pathname = q < 0 ? url : url.slice(0, q);
    if (isApiPath(pathname)) void api(req, res);
    else if (metricsToken !== undefined && pathname === METRICS_PATH) serveMetrics(req, res, metricsToken);
    else {
      // Next sees no socket: the dashboard's sign-in throttle reads the client address from this header.
      stampClientAddress(req);
      // Nor its own URL: a signed-out visit is sent to sign in and back to it.
      stampPagePath(req);
      void next(req, res);
    }
  };
}
