import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { serverNodeOptions } from "../lib/build/server-node-options.mjs";
import { freeLoopbackPort } from "../lib/testing/services";
import os from "node:os";
import path from "node:path";

export interface RunningServer {
  baseUrl: string;
  /** The server's DATA_DIR: its admin channel (`admin.sock`) lets specs seed their own accounts. */
  dataDir: string;
  port: number;
  /** Stops it gracefully (SIGTERM, SIGKILL after 10 s) and removes its DATA_DIR. */
  stop(): Promise<void>;
  /** Kills it at once (no graceful shutdown: a crash), keeping its DATA_DIR. */
  kill(): Promise<void>;
}


function tail(file: string, lines = 40): string {
  try {
    return fs.readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no server output)";
  }
}

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Starts `node dist/server.mjs` as `npm start` would, on a free loopback port with a fresh
 * embedded database in a temporary DATA_DIR, and resolves once `GET /api/v1/meta` answers 200.
 * `env` adds to or overrides its environment (e.g. DATABASE_URL and REDIS_URL for an instance of
 * a cluster, PUBLIC_URL for one behind a load balancer).
 */
export async function startServer(root: string, options: { logFile: string; timeoutMs?: number; env?: Record<string, string>; port?: number }): Promise<RunningServer> {
  const port = options.port ?? (await freeLoopbackPort());
  const baseUrl = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-e2e-"));
  const log = fs.openSync(options.logFile, "w");

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: String(port),
    PUBLIC_URL: baseUrl,
    DATA_DIR: dataDir,
    SEED_DEMO: "true",
    LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? "warn",
  };
  // e2e always runs on the embedded database, and lets the server derive its own URLs and secrets.
  for (const name of ["DATABASE_URL", "TEST_DATABASE_URL", "NEXTAUTH_URL", "NEXTAUTH_SECRET", "AUTH_SECRET", "REDIS_URL"]) delete env[name];
  Object.assign(env, options.env);

  const child = spawn(process.execPath, [...serverNodeOptions(root), path.join(root, "dist/server.mjs")], { cwd: root, env, stdio: ["ignore", log, log] });

  let closed = false;
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await waitForExit(child, 5_000);
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      if (!(await waitForExit(child, 10_000))) {
        child.kill("SIGKILL");
        await waitForExit(child, 5_000);
      }
    }
    if (!closed) fs.closeSync(log);
    closed = true;
    fs.rmSync(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (options.timeoutMs ?? 180_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`The server exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${tail(options.logFile)}`);
    }
    try {
      const res = await fetch(`${baseUrl}/api/v1/meta`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return { baseUrl, dataDir, port, stop, kill };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await stop();
  throw new Error(`The server did not answer GET /api/v1/meta within ${options.timeoutMs ?? 180_000} ms:\n${tail(options.logFile)}`);
}
