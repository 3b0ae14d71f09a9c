import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { serverNodeOptions } from "../build/server-node-options.mjs";
import { buildIsStale } from "../build/staleness.mjs";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

/**
 * CPU placement (when `taskset` exists): the load generator (this process and what it spawns
 * afterwards) keeps to the first CPU(s); a server runs either on the last CPU, away from the load
 * (`"own-core"`), or on any CPU as a deployment would (`"any-core"`).
 */
export function serverCommand(args: string[], placement: "own-core" | "any-core"): [string, string[]] {
  const cpus = os.cpus().length;
  if (!canPin(cpus)) return [process.execPath, args];
  pinLoadGenerator(cpus);
  return ["taskset", ["-c", placement === "own-core" ? String(cpus - 1) : `0-${cpus - 1}`, process.execPath, ...args]];
}

const canPin = (cpus: number) => cpus > 1 && spawnSync("taskset", ["--version"]).status === 0;

/** Keeps this process (the load generator) off the last core. */
export function pinLoadGenerator(cpus = os.cpus().length): void {
  if (!canPin(cpus)) return;
  spawnSync("taskset", ["-a", "-p", "-c", cpus > 2 ? `0-${cpus - 2}` : "0", String(process.pid)], { stdio: "ignore" });
}

export function ensureBuild(): void {
  if (!buildIsStale()) return;
  const r = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
  if (r.status !== 0) throw new Error("build failed");
}

/**
 * The server under test's node options: `npm start`'s (`lib/build/server-node-options.mjs`; none
 * with `BENCH_NO_START_OPTIONS=1`, to compare with V8's defaults), then `BENCH_SERVER_NODE_ARGS`
 * (space-separated: V8 flags to compare, e.g. `--allocation-site-pretenuring`; `--cpu-prof`;
 * `--trace-gc`).
 */
export function serverNodeArgs(): string[] {
  const start = process.env.BENCH_NO_START_OPTIONS === "1" ? [] : serverNodeOptions();
  return [...start, ...(process.env.BENCH_SERVER_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [])];
}

export interface RunningServer {
  url: string;
  dataDir: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `node dist/server.mjs` (what `npm start` runs) on a free port with a fresh DATA_DIR, at the
 * default log level (request lines go to `DATA_DIR/server.log`, as a deployment's would go to a
 * file or journal), placed on CPUs as `serverCommand` says (default: its own core).
 * `serverNodeArgs()` go on its command line, before the script.
 */
export async function startProductServer(
  extraEnv: Record<string, string> = {},
  placement: "own-core" | "any-core" = "own-core",
): Promise<RunningServer> {
  ensureBuild();
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-bench-"));
  const args = [...serverNodeArgs(), "dist/server.mjs"];
  const [command, commandArgs] = serverCommand(args, placement);
  const log = fs.openSync(path.join(dataDir, "server.log"), "a");
  const child = spawn(command, commandArgs, {
    env: { ...process.env, NODE_ENV: "production", PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, PUBLIC_URL: `http://127.0.0.1:${port}`, ...extraEnv },
    stdio: ["ignore", log, "inherit"],
  });
  fs.closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/api/v1/meta`, 120_000);
  return {
    url,
    dataDir,
    child,
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A /proc/<pid>/status field in KiB (Linux; 0 when absent). */
export function statusField(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : 0;
}

export async function waitFor(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

export interface LoadResult {
  name: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** One autocannon run; every case of a benchmark uses the same tool, duration and connections. */
export async function load(name: string, opts: autocannon.Options): Promise<LoadResult> {
  const result = await autocannon({ duration: 10, connections: 50, ...opts });
  return {
    name,
    connections: opts.connections ?? 50,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/** Runs one statement on its own connection (CREATE/DROP DATABASE cannot run in a pool's transaction). */
export async function adminStatement(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** The p-th percentile (nearest rank) of ascending values; NaN when there are none. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The median of the values (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Prints rows as a plain-text table, each column as wide as its widest cell. */
export function printTable(header: string[], body: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join("  ");
  console.log(line(header));
  for (const b of body) console.log(line(b));
}

/** Runs a bench's `main`, printing a failure and exiting 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

/** A bench's `--name value` or `--name=value` argument; undefined when not given. */
export function flag(name: string): string | undefined {
  const args = process.argv.slice(2);
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  return args[i].includes("=") ? args[i].slice(name.length + 3) : args[i + 1];
}

const TICK_MS = 1000 / Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim() || 100);

/**
 * CPU times in ms from `/proc/<pid>/stat` (Linux): the process's own (utime + stime) and that of
 * its children that have exited and been waited for (cutime + cstime); undefined when unreadable.
 */
export function procCpuMs(pid: number | "self"): { own: number; exitedChildren: number } | undefined {
  try {
    // Fields after the command's closing parenthesis, from the state (field 3): utime is field 14.
    const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return { own: (Number(f[11]) + Number(f[12])) * TICK_MS, exitedChildren: (Number(f[13]) + Number(f[14])) * TICK_MS };
  } catch {
    return undefined;
  }
}

/** utime + stime of a process, in ms; 0 when unavailable. */
export function processCpuMs(pid: number | undefined): number {
  return (pid && procCpuMs(pid)?.own) || 0;
}
