import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { afterAll } from "vitest";
import { createApiApp } from "../api/app";
import type { Database } from "../db/types";
import type { Clock } from "../clock";

export interface TestServer {
  url: string;
  close(): Promise<void>;
}

/** The real API app behind a real HTTP server on a free loopback port, stopped after the file. */
export async function startTestServer(database: Database, options: { clock?: Clock } = {}): Promise<TestServer> {
  const app = createApiApp({ database, clock: options.clock });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  // As the production server: an idle connection outlives the client's (undici keeps one 4 s), so a
  // request never races the server closing it (ECONNRESET seen on a loaded machine at Node's 5 s).
  if ("keepAliveTimeout" in server) server.keepAliveTimeout = 65_000;
  const { port } = server.address() as AddressInfo;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  afterAll(close);
  return { url: `http://127.0.0.1:${port}`, close };
}
