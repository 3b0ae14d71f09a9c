import crypto from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { logger } from "../log";
import { scrapeMetrics } from "./metrics";

export const METRICS_PATH = "/metrics";

/**
 * Answers a scrape (GET or HEAD) with the exposition text. With a `token`, only a request carrying
 * `Authorization: Bearer <token>` gets it; any other gets 401.
 */
export function serveMetrics(req: IncomingMessage, res: ServerResponse, token: string | undefined): void {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "text/plain; charset=utf-8" }).end("Method not allowed\n");
    return;
  }
  if (token !== undefined && !bearerMatches(req.headers.authorization, token)) {
    res.writeHead(401, { "WWW-Authenticate": 'Bearer realm="metrics"', "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" }).end("Unauthorized\n");
    return;
  }
  scrapeMetrics().then(
    ({ contentType, body }) => {
      res.writeHead(200, { "Content-Type": contentType, "Cache-Control": "no-store" }).end(req.method === "HEAD" ? undefined : body);
    },
    (err: Error) => {
      logger.error({ err: err.message }, "metrics scrape failed");
      res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" }).end("Metrics unavailable\n");
    },
  );
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) return false;
  // Digests have one length whatever was sent, so the comparison's time says nothing about the token.
  const sent = crypto.createHash("sha256").update(match[1]).digest();
  const expected = crypto.createHash("sha256").update(token).digest();
  return crypto.timingSafeEqual(sent, expected);
}

export interface MetricsServer {
  /** The scrape URL, e.g. `http://127.0.0.1:9464/metrics`. */
  url: string;
  close(): Promise<void>;
}

/** The listener of METRICS_PORT: `/metrics` and nothing else, apart from the public port. */
export async function startMetricsServer(options: { port: number; host: string; token?: string }): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    if ((q < 0 ? url : url.slice(0, q)) === METRICS_PATH) serveMetrics(req, res, options.token);
    else res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("Not found\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
