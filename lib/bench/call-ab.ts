// npm run bench:call:ab -- [checkout ...] — the server's CPU per Call of this checkout beside other
// built checkouts of the repository (`git worktree add /tmp/old <commit> && cd /tmp/old && npm ci &&
// npm run build`), measured side by side: every checkout's production server runs at once on its own
// PostgreSQL database, and closed-loop bursts of priced builtin Calls at 50 connections go to each in
// turn, the order reversed every round, so each comparison sees the same minute of a shared machine.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { adminStatement, ensureBuild, freePort, median, pinLoadGenerator, printTable, processCpuMs, runMain, waitFor } from "./harness";
import { serverNodeOptions } from "../build/server-node-options.mjs";
import { openDatabase } from "../db/open";
import { createAccount } from "../accounts/create-account";
import { createApiKey } from "../auth/api-keys";

const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const SECONDS = Number(process.env.BENCH_DURATION ?? 8);
const CONNECTIONS = 50;
/**
 * Keys per burst: at 4,000 Calls/s each key makes at most 160 Calls of its 200 a minute (contract
 * §8). With 80, a quiet machine's 2,000 Calls/s spent every key's minute and the rest were 429s.
 */
const KEYS_PER_BURST = 200;
const BODY = JSON.stringify({ tool_id: "builtin.finance.compound_interest", parameters: { principal: 1000, annual_rate_percent: 5, years: 10 } });

interface Server {
  checkout: string;
  url: string;
  child: ChildProcess;
  database: string;
  dataDir: string;
  keys: string[];
  cpuMsPerCall: number[];
  callsPerSecond: number[];
}

function databaseUrl(name: string): string {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A checkout's production server on a new database, and the keys its bursts use (fresh keys each burst). */
async function startCheckout(checkout: string): Promise<Server> {
  const database = `tollgate_ab_${crypto.randomBytes(4).toString("hex")}`;
  await adminStatement(ADMIN_URL, `CREATE DATABASE "${database}"`);
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-ab-"));
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [...serverNodeOptions(checkout), "dist/server.mjs"], {
    cwd: checkout,
    env: { ...process.env, NODE_ENV: "production", PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, PUBLIC_URL: url, DATABASE_URL: databaseUrl(database), SEED_DEMO: "false", LOG_LEVEL: "warn" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  await waitFor(`${url}/api/v1/meta`, 180_000);
  // The server has migrated its database; accounts and keys are plain rows every version reads.
  const db = await openDatabase({ kind: "postgres", url: databaseUrl(database), poolSize: 4 });
  const keys: string[] = [];
  try {
    for (let i = 0; i < KEYS_PER_BURST * (ROUNDS + 1); i++) {
      const { account_id } = await createAccount(db.db, { name: `ab ${i}`, credits: "1000000" });
      keys.push((await createApiKey(db.db, { accountId: account_id, name: "ab" })).api_key);
    }
  } finally {
    await db.close();
  }
  return { checkout, url, child, database, dataDir, keys, cpuMsPerCall: [], callsPerSecond: [] };
}

/** One closed-loop burst: the server's CPU per 200 response and the 200s per second. */
async function burst(server: Server, seconds: number): Promise<{ cpuMsPerCall: number; callsPerSecond: number }> {
  const requests = server.keys.splice(0, KEYS_PER_BURST).map((key) => ({
    method: "POST" as const,
    path: "/api/v1/tools/execute",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: BODY,
  }));
  let ok = 0;
  let refused = 0;
  let client = 0;
  const before = processCpuMs(server.child.pid);
  await new Promise<void>((resolve, reject) => {
    const instance = autocannon(
      {
        url: server.url,
        connections: CONNECTIONS,
        duration: seconds,
        requests,
        // Each connection starts at its own key, so concurrent Calls belong to different accounts.
        setupClient: (c: { setRequests(r: autocannon.Request[]): void }) => {
          const offset = Math.floor((client++ * requests.length) / CONNECTIONS);
          c.setRequests([...requests.slice(offset), ...requests.slice(0, offset)]);
        },
      } as autocannon.Options,
      (err) => (err ? reject(err) : resolve()),
    );
    instance.on("response", (_client, status) => {
      if (status === 200) ok++;
      else refused++;
    });
  });
  // Calls cut off at the end are still finished by the server: let them settle before reading its CPU.
  await new Promise((r) => setTimeout(r, 300));
  if (ok < seconds * 20) throw new Error(`${server.checkout}: only ${ok} Calls answered 200 in ${seconds} s`);
  // A refused Call costs the server CPU too but is not a Call: any refusal would skew the figure.
  if (refused > 0) throw new Error(`${server.checkout}: ${refused} Calls were not answered 200 (a key's minute spent? raise KEYS_PER_BURST)`);
  return { cpuMsPerCall: (processCpuMs(server.child.pid) - before) / ok, callsPerSecond: ok / seconds };
}

async function main() {
  const checkouts = [process.cwd(), ...process.argv.slice(2)].map((c) => path.resolve(c));
  ensureBuild();
  for (const c of checkouts) if (!fs.existsSync(path.join(c, "dist/server.mjs"))) throw new Error(`${c} has no production build: run npm run build there`);
  const servers: Server[] = [];
  try {
    for (const c of checkouts) servers.push(await startCheckout(c));
    pinLoadGenerator();
    for (const s of servers) await burst(s, 3);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const s of round % 2 === 1 ? servers : [...servers].reverse()) {
        const m = await burst(s, SECONDS);
        s.cpuMsPerCall.push(m.cpuMsPerCall);
        s.callsPerSecond.push(m.callsPerSecond);
      }
      console.error(`round ${round} of ${ROUNDS}: ${servers.map((s) => `${path.basename(s.checkout)} ${s.cpuMsPerCall.at(-1)!.toFixed(3)} ms`).join(", ")}`);
    }
    console.log(`bench:call:ab — ${ROUNDS} rounds of ${SECONDS} s bursts, builtin Calls at ${CONNECTIONS} connections, load generator on CPU 0; medians, each round's figure in brackets`);
    printTable(
      ["checkout", "commit", "server CPU ms per Call", "Calls/s"],
      servers.map((s) => [
        s.checkout,
        commitOf(s.checkout),
        `${median(s.cpuMsPerCall).toFixed(3)} [${s.cpuMsPerCall.map((x) => x.toFixed(2)).join(", ")}]`,
        `${Math.round(median(s.callsPerSecond))} [${s.callsPerSecond.map(Math.round).join(", ")}]`,
      ]),
    );
  } finally {
    for (const s of servers) s.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 2_000));
    for (const s of servers) {
      await adminStatement(ADMIN_URL, `DROP DATABASE IF EXISTS "${s.database}" WITH (FORCE)`);
      fs.rmSync(s.dataDir, { recursive: true, force: true });
    }
  }
}

function commitOf(checkout: string): string {
  const git = spawnSync("git", ["-C", checkout, "rev-parse", "--short", "HEAD"], { encoding: "utf8" });
  return git.status === 0 ? git.stdout.trim() : "?";
}

runMain(main);
