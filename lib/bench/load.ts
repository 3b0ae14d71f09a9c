// npm run bench:load — a mixed workload (Discover 50%, Inspect 20%, Probe 15%, Call 15%) at rising
// concurrency against (a) one instance and (b) three instances behind HAProxy, both on PostgreSQL
// and Redis, until p99 passes 100 ms; then `audit verify` over everything the run wrote.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { openDatabase } from "../db/open";
import { createAccount } from "../accounts/create-account";
import { createApiKey } from "../auth/api-keys";
import { importCatalog } from "../catalog/import";
import { loadManifestFile } from "../catalog/load";
import { verifyLedger } from "../audit/verify";
import { eq } from "drizzle-orm";
import { tools } from "../db/schema";
import { adminStatement, startProductServer, type RunningServer } from "./harness";
import { startHaproxy, type Child } from "../testing/services";

const BASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const STEPS = (process.env.BENCH_STEPS ?? "1,2,4,8,16,32,64,128").split(",").map(Number);
const P99_LIMIT_MS = 100;
/** Enough accounts that the per-account rate limits (120/min search, 200/min Call) never bind. */
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 1500);
const CATALOG = process.env.BENCH_CATALOG ?? path.resolve(process.cwd(), "../shared/catalog/tools.jsonl");

interface Step {
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

const withAdmin = (statement: string) => adminStatement(BASE_URL, statement);

function dbUrl(name: string): string {
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The workload: one request drawn per call, in the proportions, each from a random account. */
function workload(keys: string[], queries: string[], toolIds: string[]) {
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
  const compound = "builtin.finance.compound_interest";
  return (req: autocannon.Request): autocannon.Request => {
    const r = Math.random();
    const headers = { "content-type": "application/json", authorization: `Bearer ${pick(keys)}` };
    if (r < 0.5) return { ...req, method: "POST", path: "/api/v1/search", headers, body: JSON.stringify({ query: pick(queries), limit: 10 }) };
    if (r < 0.7) return { ...req, method: "POST", path: "/api/v1/tools/by-ids", headers, body: JSON.stringify({ tool_ids: [pick(toolIds), pick(toolIds), compound] }) };
    const parameters = { principal: 100 + Math.floor(Math.random() * 10_000), annual_rate_percent: 5, years: 1 + Math.floor(Math.random() * 30) };
    if (r < 0.85) return { ...req, method: "POST", path: `/api/v1/tools/probe?tool_id=${compound}`, headers, body: JSON.stringify({ parameters }) };
    return { ...req, method: "POST", path: "/api/v1/tools/execute", headers, body: JSON.stringify({ tool_id: compound, parameters }) };
  };
}

async function run(url: string, connections: number, setup: (req: autocannon.Request) => autocannon.Request, duration = DURATION): Promise<Step> {
  const result = await autocannon({ url, connections, duration, requests: [{ setupRequest: setup }] });
  return { connections, rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors + result.timeouts };
}

function table(title: string, steps: Step[]): void {
  console.log(`\n${title}`);
  console.log("connections  req/s   p50 ms  p99 ms  non-2xx  errors");
  for (const s of steps) console.log(`${String(s.connections).padStart(11)}  ${String(s.rps).padStart(5)}  ${String(s.p50).padStart(6)}  ${String(s.p99).padStart(6)}  ${String(s.non2xx).padStart(7)}  ${String(s.errors).padStart(6)}`);
  const within = steps.filter((s) => s.p99 <= P99_LIMIT_MS);
  const knee = within.reduce<Step | undefined>((best, s) => (!best || s.rps > best.rps ? s : best), undefined);
  console.log(knee ? `knee: ${knee.rps} req/s at ${knee.connections} connections (p99 ${knee.p99} ms ≤ ${P99_LIMIT_MS} ms)` : `knee: none (p99 > ${P99_LIMIT_MS} ms from the first step)`);
}

async function main() {
  const name = `tollgate_load_${crypto.randomBytes(4).toString("hex")}`;
  await withAdmin(`create database "${name}"`);
  const servers: RunningServer[] = [];
  let lb: Child | undefined;
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-load-"));
  try {
    const env = { DATABASE_URL: dbUrl(name), REDIS_URL, SEED_DEMO: "false", LOG_LEVEL: "warn", TRUST_PROXY: "1" };
    // One instance first (it migrates the database and imports the demo catalog), then two more.
    servers.push(await startProductServer(env, "any-core"));
    const database = await openDatabase({ kind: "postgres", url: dbUrl(name), poolSize: 8 });
    try {
      if (fs.existsSync(CATALOG)) {
        const started = performance.now();
        await importCatalog(database.db, await loadManifestFile(CATALOG));
        console.log(`imported ${CATALOG} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      }
      const keys: string[] = [];
      for (let i = 0; i < ACCOUNTS; i++) {
        const { account_id } = await createAccount(database.db, { name: `load ${i}`, credits: "1000000" });
        keys.push((await createApiKey(database.db, { accountId: account_id, name: "load" })).api_key);
      }
      const toolIds = (await database.db.select({ id: tools.id }).from(tools).where(eq(tools.status, "active")).limit(500)).map((r) => r.id);
      const queries = fs.existsSync(path.join(path.dirname(CATALOG), "queries.jsonl"))
        ? fs.readFileSync(path.join(path.dirname(CATALOG), "queries.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => (JSON.parse(l) as { query: string }).query).slice(0, 2000)
        : ["convert celsius to fahrenheit", "compound interest", "weather forecast"];
      const setup = workload(keys, queries, toolIds);

      servers.push(...(await Promise.all([0, 1].map(() => startProductServer(env, "any-core")))));
      lb = await startHaproxy(process.cwd(), servers.map((s) => new URL(s.url).host), path.join(logDir, "haproxy.log"));
      const targets = [
        { name: "(a) one instance", url: servers[0].url, steps: [] as Step[], done: false },
        { name: "(b) three instances behind HAProxy", url: lb.url, steps: [] as Step[], done: false },
      ];
      // Warm-up: JIT, the search index of each instance, connection pools.
      for (const t of targets) await run(t.url, 8, setup, 5);
      // Interleaved: at each step (a) then (b), so drift on this shared machine hits both alike.
      for (const connections of STEPS) {
        for (const t of targets.filter((x) => !x.done)) {
          const step = await run(t.url, connections, setup);
          t.steps.push(step);
          process.stderr.write(`${t.name}: ${connections} connections → ${step.rps} req/s, p99 ${step.p99} ms\n`);
          if (step.p99 > P99_LIMIT_MS) t.done = true;
        }
        if (targets.every((t) => t.done)) break;
      }

      console.log(`\nbench:load — search 50%, inspect 20%, probe 15%, call 15% (builtin compound interest, 1 credit); ${DURATION} s per step;`);
      console.log(`${ACCOUNTS} accounts; PostgreSQL ${BASE_URL.replace(/\/[^/]*$/, "")}, Redis ${REDIS_URL}; ${os.cpus().length} CPUs shared by load generator, instances and PostgreSQL;`);
      console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
      for (const t of targets) table(t.name, t.steps);
      const report = await verifyLedger(database.db);
      console.log(`\naudit verify: ${report.ok ? "ok" : "VIOLATIONS"} (${report.accounts_checked} accounts)`);
      for (const v of report.violations.slice(0, 10)) console.log(`  ${v.account_id} ${v.check}: ${v.message}`);
      if (!report.ok) process.exitCode = 1;
    } finally {
      await database.close();
    }
  } finally {
    await lb?.stop();
    await Promise.all(servers.map((s) => s.stop()));
    await withAdmin(`drop database if exists "${name}" with (force)`);
    fs.rmSync(logDir, { recursive: true, force: true });
  }
}

main().catch((err: Error) => {
  console.error(err);
  process.exit(1);
});
