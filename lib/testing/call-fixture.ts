import { afterAll } from "vitest";
import type { Clock } from "../clock";
import type { Database } from "../db/types";
import { importDemoCatalog, importManifest } from "./catalog";
import { createTestDatabase } from "./database";
import { fakeUpstreamManifest, startFakeUpstream, type FakeUpstream } from "./fake-upstream";
import { startTestServer, type TestServer } from "./server";

/**
 * What a test of Calls stands on: a fresh database with the demo catalog and the fake upstream's
 * `http` provider (`fakeTool("fake-upstream", …)`), and the real API behind a real HTTP server;
 * the upstream and the server stop after the file.
 */
export async function startCallFixture(options: { poolSize?: number; clock?: Clock } = {}): Promise<{ database: Database; server: TestServer; upstream: FakeUpstream }> {
  const database = await createTestDatabase({ poolSize: options.poolSize });
  await importDemoCatalog(database.db);
  const upstream = await startFakeUpstream();
  afterAll(() => upstream.close());
  await importManifest(database.db, fakeUpstreamManifest(upstream.url));
  const server = await startTestServer(database, { clock: options.clock });
  return { database, server, upstream };
}
