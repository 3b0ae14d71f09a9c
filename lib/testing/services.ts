import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/**
 * The services a multi-instance test or benchmark runs beside its Tollgate instances: HAProxy with
 * the repo's config (docs/deploy/haproxy.cfg), a private Redis, a private PostgreSQL cluster —
 * each a child process on a free loopback port, stopped by its caller.
 */

export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
export interface Child {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** What a multi-instance test needs on this machine; empty when everything is there. */
export function missingForCluster(): string[] {
  const missing: string[] = [];
  if (!process.env.TEST_DATABASE_URL) missing.push("TEST_DATABASE_URL (a PostgreSQL the test may create a database on)");
  for (const bin of ["haproxy", "redis-server"]) if (spawnSync("sh", ["-c", `command -v ${bin} || test -x /usr/sbin/${bin}`]).status !== 0) missing.push(bin);
  return missing;
}

function binary(name: string): string {
  return fs.existsSync(`/usr/sbin/${name}`) ? `/usr/sbin/${name}` : name;
}

function exited(child: ChildProcess, ms: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  await exited(child, 5_000);
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGKILL");
    await exited(child, 5_000);
  }
}

async function waitFor(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not come up within ${ms} ms`);
}

/** HAProxy in front of `backends` ("127.0.0.1:port"), with the repo's configuration. */
export async function startHaproxy(root: string, backends: string[], logFile: string): Promise<Child> {
  if (backends.length !== 3) throw new Error("docs/deploy/haproxy.cfg names three instances");
  const port = await freeLoopbackPort();
  const log = fs.openSync(logFile, "w");
  const env = { ...process.env, TOLLGATE_LB_BIND: `127.0.0.1:${port}`, TOLLGATE_APP1: backends[0], TOLLGATE_APP2: backends[1], TOLLGATE_APP3: backends[2] };
  const child = spawn(binary("haproxy"), ["-db", "-f", path.join(root, "docs/deploy/haproxy.cfg")], { env, stdio: ["ignore", log, log] });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/api/v1/meta`, { signal: AbortSignal.timeout(1_000) })).status !== 0, "HAProxy").catch(async (err: Error) => {
    await stopChild(child);
    throw new Error(`${err.message}: ${fs.readFileSync(logFile, "utf8").slice(-2000)}`);
  });
  return {
    url,
    port,
    stop: async () => {
      await stopChild(child);
      fs.closeSync(log);
    },
  };
}

/** A Redis of the test's own (no persistence), so the test can stop and restart it. */
export async function startRedis(port?: number): Promise<Child> {
  const p = port ?? (await freeLoopbackPort());
  const child = spawn(binary("redis-server"), ["--port", String(p), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  const url = `redis://127.0.0.1:${p}`;
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const probe = spawnSync("redis-cli", ["-p", String(p), "ping"], { encoding: "utf8" });
        resolve(probe.stdout.trim() === "PONG");
      }),
    "redis-server",
  );
  return { url, port: p, stop: () => stopChild(child) };
}

export interface PrivatePostgres {
  url: string;
  port: number;
  /** Stops the server: `immediate` is a crash (no checkpoint), `fast` a clean shutdown. */
  stop(mode?: "fast" | "immediate"): void;
  start(): void;
  /** Stops it and removes its data directory. */
  destroy(): void;
}

function postgresBin(): string {
  const versions = fs.existsSync("/usr/lib/postgresql") ? fs.readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (fs.existsSync(`/usr/lib/postgresql/${v}/bin/initdb`)) return `/usr/lib/postgresql/${v}/bin`;
  throw new Error("initdb not found under /usr/lib/postgresql/*/bin");
}

/** Whether this machine can run a private PostgreSQL cluster (initdb, pg_ctl). */
export function canRunPrivatePostgres(): boolean {
  try {
    postgresBin();
    return true;
  } catch {
    return false;
  }
}

/**
 * A PostgreSQL cluster of the test's own (`initdb` in a temporary directory, its own port), so a
 * test can stop and restart it — never the shared server. PostgreSQL refuses to run as root: as
 * root, the cluster belongs to the `postgres` user.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBin();
  const port = await freeLoopbackPort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-pg-"));
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) => {
    const result = asRoot ? spawnSync("runuser", ["-u", "postgres", "--", cmd, ...args], { encoding: "utf8" }) : spawnSync(cmd, args, { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${path.basename(cmd)} ${args.join(" ")} failed: ${result.stderr || result.stdout}`);
  };
  if (asRoot) spawnSync("chown", ["postgres", dir]);
  run(`${bin}/initdb`, ["-D", `${dir}/data`, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  const start = () => run(`${bin}/pg_ctl`, ["-D", `${dir}/data`, "-o", options, "-l", `${dir}/server.log`, "-w", "-t", "30", "start"]);
  const stop = (mode: "fast" | "immediate" = "fast") => run(`${bin}/pg_ctl`, ["-D", `${dir}/data`, "-m", mode, "-w", "-t", "30", "stop"]);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    destroy: () => {
      try {
        stop("immediate");
      } catch {
        // already stopped
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
