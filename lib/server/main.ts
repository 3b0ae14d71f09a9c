// The production server: `/api/v1/*` and `/.well-known/*` go straight to the Hono app, the rest to Next.
import "./v8-flags";
import http from "node:http";
import path from "node:path";
import next from "next";
import { getRequestListener } from "@hono/node-server";
import { env, dataDir, publicUrl } from "../env";
import { logger } from "../log";
import { createApiApp } from "../api/app";
import { startMetricsServer } from "../observability/metrics-endpoint";
import { useBundledOpenApiWorker } from "../catalog/openapi/isolated";
import { bootstrap } from "./bootstrap";
import { createRequestHandler } from "./request-handler";
import { listen, listenLines } from "./listen";
import { warmUp } from "./warm-up";
import { preloadSdks } from "../lazy-sdk";
import { installPageContextGate } from "./page-context-gate";

async function main() {
  const e = env();
  const root = path.resolve(process.env.TOLLGATE_ROOT ?? process.cwd());
  // This module is bundled into dist/server.mjs; the OpenAPI conversion's worker beside it (lib/build/bundle-server.mjs).
  useBundledOpenApiWorker(new URL("./openapi-worker.mjs", import.meta.url));
  const { database, credentials, stop } = await bootstrap();

  const api = createApiApp({ database });
  const apiListener = getRequestListener(api.fetch);
  // Before Next runs anything: its request storages are switched off while no page is served, so API requests do not pay for them.
  const gate = installPageContextGate();
  const nextApp = next({ dev: false, dir: root, hostname: "localhost", port: e.PORT });
  await nextApp.prepare();
  const handleNext = nextApp.getRequestHandler();
  const servePage = (req: http.IncomingMessage, res: http.ServerResponse) => {
    gate.track(res);
    return handleNext(req, res);
  };

  const handler = createRequestHandler({ api: apiListener, next: servePage, metricsToken: e.METRICS_TOKEN });
  // Before listening: the first visitor should not pay for cold code and a cold database.
  const warmed = await warmUp({ db: database.db, handler });
  logger.info({ ms: warmed.readsMs + warmed.pagesMs, reads_ms: warmed.readsMs, pages_ms: warmed.pagesMs }, "warmed up");
  const server = http.createServer(handler);
  server.keepAliveTimeout = 65_000;
  const where = await listen(server, e.PORT, e.HOST, e.PUBLIC_URL ? publicUrl() : undefined);
  // Stripe's, the MCP SDK and the other optional SDKs load now rather than at a request's first use.
  void preloadSdks();
  const metrics = e.METRICS_PORT === undefined ? undefined : await startMetricsServer({ port: e.METRICS_PORT, host: e.METRICS_HOST, token: e.METRICS_TOKEN });

  const base = where.open;
  const lines = listenLines(where, database.kind === "pglite" ? `embedded database in ${dataDir()}` : "PostgreSQL");
  if (credentials) {
    lines.push(
      `  Dashboard login: ${credentials.email} / ${credentials.password}   (support: ${credentials.support_email} / ${credentials.support_password})`,
      ...(credentials.api_key
        ? [
            `  Demo API key:    ${credentials.api_key}`,
            `  Try: curl -s -X POST ${base}/api/v1/search -H "Authorization: Bearer ${credentials.api_key}" -H "Content-Type: application/json" -d '{"query":"convert celsius to fahrenheit"}'`,
          ]
        : ["  Demo API key:    revoked; create a key in the dashboard (API keys) or with `npm run cli -- keys create`"]),
    );
  }
  if (metrics) lines.push(`  Metrics:         ${metrics.url}`);
  process.stdout.write(`${lines.join("\n")}\n`);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    stop();
    void metrics?.close();
    server.close();
    server.closeAllConnections();
    void database.close().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 5_000).unref();
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((err: Error) => {
  process.stderr.write(`Tollgate failed to start: ${err.message}\n`);
  process.exit(1);
});
