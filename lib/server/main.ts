// The production server: `/api/v1/*` and `/.well-known/*` go straight to the Hono app, the rest to Next.
import http from "node:http";
import path from "node:path";
import next from "next";
import { getRequestListener } from "@hono/node-server";
import { env, dataDir, publicUrl } from "../env";
import { logger } from "../log";
import { createApiApp, isApiPath } from "../api/app";
import { bootstrap } from "./bootstrap";

async function main() {
  const e = env();
  const root = path.resolve(process.env.TOLLGATE_ROOT ?? process.cwd());
  const { database, credentials, stop } = await bootstrap();

  const api = createApiApp({ database });
  const apiListener = getRequestListener(api.fetch);
  const nextApp = next({ dev: false, dir: root, hostname: "localhost", port: e.PORT });
  await nextApp.prepare();
  const handleNext = nextApp.getRequestHandler();

  const server = http.createServer((req, res) => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    if (isApiPath(q < 0 ? url : url.slice(0, q))) void apiListener(req, res);
    else void handleNext(req, res);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(e.PORT, e.HOST, resolve));

  const address = server.address();
  const port = typeof address === "object" && address ? address.port : e.PORT;
  // The address users should open: PUBLIC_URL when it is set (e.g. behind a proxy), else this port.
  const base = e.PUBLIC_URL ? publicUrl() : `http://localhost:${port}`;
  const lines = [`Tollgate listening on ${base} (${database.kind === "pglite" ? `embedded database in ${dataDir()}` : "PostgreSQL"})`];
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
  process.stdout.write(`${lines.join("\n")}\n`);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    stop();
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
