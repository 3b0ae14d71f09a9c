import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildIfStale } from "./build-if-stale";
import { startServer } from "./server";

/**
 * Builds when stale, starts the production server on a fresh embedded database and hands its
 * URL to the workers through E2E_BASE_URL. The returned function is Playwright's teardown.
 */
export default async function globalSetup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.E2E_BASE_URL) {
    process.stdout.write(`e2e: using the running server at ${process.env.E2E_BASE_URL}\n`);
    return undefined;
  }
  const root = process.cwd();
  buildIfStale(root);

  // Outside test-results/, which Playwright empties at the start of a run; copied there at the end.
  const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-e2e-log-")), "server.log");
  const server = await startServer(root, { logFile });
  process.env.E2E_BASE_URL = server.baseUrl;
  process.env.E2E_DATA_DIR = server.dataDir;
  process.stdout.write(`e2e: server ready at ${server.baseUrl}\n`);

  return async () => {
    await server.stop();
    fs.mkdirSync(path.join(root, "test-results"), { recursive: true });
    fs.copyFileSync(logFile, path.join(root, "test-results", "server.log"));
    fs.rmSync(path.dirname(logFile), { recursive: true, force: true });
  };
}
