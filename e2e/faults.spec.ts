// Faults: a server killed in the middle of Calls, and its database restarted under load. One
// production server (`node dist/server.mjs`, as `npm start` runs it) on a PostgreSQL cluster of
// the test's own (initdb on a free port), which the test stops and starts. No browser.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { expect, test } from "@playwright/test";
import { startServer, type RunningServer } from "./server";
import { canRunPrivatePostgres, startPrivatePostgres, type PrivatePostgres } from "../lib/testing/services";
import { openDatabase } from "../lib/db/open";
import type { Database } from "../lib/db/types";
import { bearer, seedAccount } from "../lib/testing/fixtures";
import { importManifest } from "../lib/testing/catalog";
import { fakeTool, fakeUpstreamManifest, startFakeUpstream, type FakeUpstream } from "../lib/testing/fake-upstream";
import { verifyLedger } from "../lib/audit/verify";
import { rows } from "../lib/db/row-sql";

const possible = canRunPrivatePostgres();
if (process.env.CI && !possible) throw new Error("The fault tests need PostgreSQL's initdb and pg_ctl (/usr/lib/postgresql/*/bin)");
test.skip(!possible, "needs PostgreSQL's initdb and pg_ctl");
test.describe.configure({ mode: "serial", timeout: 180_000 });

const root = process.cwd();
const logDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-faults-"));
let pg: PrivatePostgres;
let upstream: FakeUpstream;
let server: RunningServer;
let starts = 0;
const PROVIDER = "faults-fake";
const SLOW = fakeTool(PROVIDER, "slow_5s");

/** The production server on the private cluster; reservations outlive their tool's timeout by 1 s and the sweeper runs every second. */
function start(): Promise<RunningServer> {
  starts += 1;
  process.env.PUBLIC_URL ??= "http://127.0.0.1";
  return startServer(root, {
    logFile: path.join(logDir, `server-${starts}.log`),
    env: { DATABASE_URL: pg.url, SEED_DEMO: "false", RESERVATION_MARGIN_SECONDS: "1", SWEEPER_INTERVAL_SECONDS: "1", LOG_LEVEL: "warn" },
  });
}

/** A connection of the test's own, opened for one check (the cluster restarts under it). */
async function withDb<T>(fn: (db: Database["db"]) => Promise<T>): Promise<T> {
  const database = await openDatabase({ kind: "postgres", url: pg.url, poolSize: 2 });
  try {
    return await fn(database.db);
  } finally {
    await database.close();
  }
}

async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test.beforeAll(async () => {
  test.setTimeout(180_000);
  pg = await startPrivatePostgres();
  upstream = await startFakeUpstream();
  server = await start();
  const manifest = fakeUpstreamManifest(upstream.url, { providerId: PROVIDER });
  // A slow upstream with a 5 s timeout: Calls are held in flight long enough to kill the server under them.
  manifest.providers[0].tools.push({
    id: SLOW,
    name: "Fake slow 5s",
    description: "Answers after ms milliseconds",
    params: [{ name: "ms", type: "integer", description: "delay" }],
    billing_rule: { unit: "call", amount_credits: 1 },
    timeout_ms: 5_000,
    execution: { method: "GET", path: "/slow", query: ["ms"] },
  } as (typeof manifest.providers)[0]["tools"][0]);
  await withDb((db) => importManifest(db, manifest));
});

test.afterAll(async () => {
  await server?.stop();
  await upstream?.close();
  pg?.destroy();
  if (test.info().status === "passed") fs.rmSync(logDir, { recursive: true, force: true });
});

test("kill -9 in the middle of Calls: after the sweeper nothing is held or charged, retried keys replay, invariants hold", async () => {
  const account = await withDb((db) => seedAccount(db, { credits: "100" }));
  const body = (i: number) => JSON.stringify({ tool_id: SLOW, parameters: { ms: 3_000 + i } });
  const send = (i: number, base: string) =>
    fetch(`${base}/api/v1/tools/execute`, {
      method: "POST",
      headers: { ...bearer(account.apiKey), "Content-Type": "application/json", ...(i < 10 ? { "Idempotency-Key": `crash-${i}` } : {}) },
      body: body(i),
    });
  // Twenty Calls, ten with an Idempotency-Key, all waiting on the upstream when the server dies.
  const before = upstream.count("/slow");
  const inFlight = Array.from({ length: 20 }, (_, i) => send(i, server.baseUrl).then((r) => r.status, () => "dropped" as const));
  await until(async () => upstream.count("/slow") - before >= 20, 15_000, "20 Calls reaching the upstream");
  await server.kill();
  expect(await Promise.all(inFlight)).toEqual(Array(20).fill("dropped"));

  const held = await withDb(async (db) =>
    rows<{ reserved: number; credits: string }>(
      await db.execute(sql`select count(*)::int as reserved, (select reserved_credits::text from credit_balances where account_id = ${account.accountId}) as credits from executions where account_id = ${account.accountId} and status = 'reserved'`),
    )[0],
  );
  expect(held).toEqual({ reserved: 20, credits: "20.000000" });

  server = await start();
  // Each reservation expires 5 s (timeout) + 1 s (margin) after it was made; the sweeper then runs within a second.
  await until(
    () => withDb(async (db) => rows<{ n: number }>(await db.execute(sql`select count(*)::int as n from executions where account_id = ${account.accountId} and status = 'reserved'`))[0].n === 0),
    30_000,
    "the sweeper releasing every reservation",
  );
  const after = await withDb(async (db) => ({
    balance: rows<{ available: string; reserved: string }>(
      await db.execute(sql`select (paid_credits + bonus_credits + reward_credits)::text as available, reserved_credits::text as reserved from credit_balances where account_id = ${account.accountId}`),
    )[0],
    ledger: rows<{ n: number }>(await db.execute(sql`select count(*)::int as n from credits_ledger where account_id = ${account.accountId} and entry_type like 'consume%'`))[0].n,
    events: rows<{ outcome: string; reason: string; n: number }>(
      await db.execute(sql`select charge_outcome as outcome, reason_code as reason, count(*)::int as n from usage_events where account_id = ${account.accountId} group by 1, 2`),
    ),
  }));
  expect(after.balance).toEqual({ available: "100.000000", reserved: "0.000000" });
  expect(after.ledger).toBe(0);
  // The honest record: the process died, the Call was not delivered and not charged.
  expect(after.events).toEqual([{ outcome: "failed_not_charged", reason: "transport.execution_failed", n: 20 }]);

  // A client retrying with its Idempotency-Key gets the first execution's outcome: nothing runs or is charged twice.
  const upstreamBefore = upstream.count("/slow");
  const retried = await Promise.all(Array.from({ length: 10 }, async (_, i) => {
    const res = await send(i, server.baseUrl);
    return { status: res.status, body: (await res.json()) as { execution_id: string; success: boolean; cost?: number } };
  }));
  const original = await withDb(async (db) => rows<{ id: string; key: string }>(await db.execute(sql`select id, idempotency_key as key from executions where account_id = ${account.accountId} and idempotency_key is not null order by idempotency_key`)));
  expect(retried.map((r) => r.body.execution_id).sort()).toEqual(original.map((o) => o.id).sort());
  for (const r of retried) expect(r.body.success).toBe(false);
  expect(upstream.count("/slow")).toBe(upstreamBefore);
  const report = await withDb((db) => verifyLedger(db));
  expect(report.violations).toEqual([]);
});

test("PostgreSQL restarted under load: 503s in the contract's shape during the outage, never a 500 or a hang, recovery within 5 s", async () => {
  const accounts = await withDb((db) => Promise.all(Array.from({ length: 4 }, () => seedAccount(db, { credits: "1000" }))));
  type Sample = { at: number; ms: number; status: number; shapeOk: boolean; op: string };
  const samples: Sample[] = [];
  let running = true;
  const requests = [
    { op: "search", init: (key: string) => ({ method: "POST", url: "/api/v1/search", body: JSON.stringify({ query: "compound interest" }), key }) },
    { op: "call", init: (key: string) => ({ method: "POST", url: "/api/v1/tools/execute", body: JSON.stringify({ tool_id: "builtin.finance.compound_interest", parameters: { principal: 100, annual_rate_percent: 5, years: 2 } }), key }) },
    { op: "credits", init: (key: string) => ({ method: "GET", url: "/api/v1/auth/credits", body: undefined, key }) },
  ];
  const worker = async (key: string, offset: number) => {
    for (let n = offset; running; n++) {
      const r = requests[n % requests.length].init(key);
      const t0 = Date.now();
      let status = 0;
      let shapeOk = true;
      try {
        const res = await fetch(`${server.baseUrl}${r.url}`, {
          method: r.method,
          headers: { ...bearer(r.key), "Content-Type": "application/json" },
          body: r.body,
          signal: AbortSignal.timeout(15_000),
        });
        status = res.status;
        const body = (await res.json()) as Record<string, unknown>;
        if (status >= 500) shapeOk = body.status === "failure" && body.status_code === status && typeof body.message === "string";
      } catch {
        status = -1; // no answer at all (a hang past 15 s, or a dropped connection)
      }
      samples.push({ at: t0, ms: Date.now() - t0, status, shapeOk, op: requests[n % requests.length].op });
      await new Promise((res) => setTimeout(res, 100));
    }
  };
  const workers = accounts.map((a, i) => worker(a.apiKey, i));
  await new Promise((r) => setTimeout(r, 1_500));
  const down = Date.now();
  pg.stop("immediate");
  await new Promise((r) => setTimeout(r, 3_000));
  pg.start();
  const up = Date.now();
  await new Promise((r) => setTimeout(r, 8_000));
  running = false;
  await Promise.all(workers);

  const during = samples.filter((s) => s.at > down + 200 && s.at + s.ms < up);
  expect(samples.filter((s) => s.status === 500 || s.status === -1)).toEqual([]);
  expect(during.length).toBeGreaterThan(10);
  expect(during.filter((s) => s.status === 503).length).toBeGreaterThan(0);
  expect(new Set(during.map((s) => s.status))).toEqual(new Set([503]));
  expect(samples.filter((s) => !s.shapeOk)).toEqual([]);
  // No hang: the pool gives up connecting after 5 s.
  expect(Math.max(...samples.map((s) => s.ms))).toBeLessThan(7_000);
  // Recovery without restarting Tollgate: every request started 5 s after the database came back succeeds.
  const recovered = samples.filter((s) => s.at > up + 5_000);
  expect(recovered.length).toBeGreaterThan(10);
  expect(recovered.filter((s) => s.status !== 200)).toEqual([]);
  const firstOk = samples.find((s) => s.at > up && s.status === 200);
  console.log(`recovery: first 200 ${firstOk ? firstOk.at - up : "?"} ms after the database came back; ${during.length} requests during the outage, all 503`);

  await until(
    () => withDb(async (db) => rows<{ n: number }>(await db.execute(sql`select count(*)::int as n from executions where status = 'reserved'`))[0].n === 0),
    30_000,
    "no reservation left",
  );
  const report = await withDb((db) => verifyLedger(db));
  expect(report.violations).toEqual([]);
});
