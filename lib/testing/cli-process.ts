import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll } from "vitest";
import { bundledCli } from "./cli-bundle";
import { createTestDatabase, testDbKind } from "./database";
import { pgliteTemplatePath } from "./template";
import { openDatabase } from "../db/open";
import { startAdminChannel } from "../server/admin-channel";
import type { Database } from "../db/types";

const run = promisify(execFile);

/** The real CLI (`lib/cli/main.ts`) in a child process, as an operator runs it, with `env` added to this process's. */
export async function runCli(env: Record<string, string>, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const cli = bundledCli();
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], { env: { ...process.env, ...env, LOG_LEVEL: "silent" }, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/**
 * A database the CLI process can reach, for a `beforeAll`: this run's PostgreSQL database by URL, or
 * an embedded one held here behind the admin channel in a temporary data dir, as a running server
 * holds it (the CLI then goes through the channel). Registers its own clean-up; returns the
 * database and the environment that points the CLI at it.
 */
export async function cliDatabase(): Promise<{ database: Database; env: Record<string, string> }> {
  if (testDbKind() === "postgres") {
    const database = await createTestDatabase();
    return { database, env: { DATABASE_URL: database.url! } };
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-cli-"));
  // The migrated template's copy, as each file's own PGlite starts (a fresh initdb takes seconds).
  const database = await openDatabase({ kind: "pglite", dataDir: path.join(tmp, "pgdata"), loadDataDir: new Blob([fs.readFileSync(pgliteTemplatePath())]) });
  const closeAdmin = await startAdminChannel(database.db, tmp);
  afterAll(async () => {
    closeAdmin();
    await database.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  return { database, env: { DATA_DIR: tmp, DATABASE_URL: "" } };
}
