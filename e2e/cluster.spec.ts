// Several instances behave as one: three `npm start` servers (the production build) on one
// PostgreSQL database and one Redis, behind HAProxy with the repo's configuration
// (docs/deploy/haproxy.cfg). No browser: HTTP against the load balancer and each instance.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { expect, test } from "@playwright/test";
import { startServer, type RunningServer } from "./server";
import { freeLoopbackPort, missingForCluster, startHaproxy, startRedis, type Child } from "../lib/testing/services";
import { openDatabase } from "../lib/db/open";
import type { Database } from "../lib/db/types";
import { seedAccount, bearer } from "../lib/testing/fixtures";
import { importManifest } from "../lib/testing/catalog";
import { fakeTool, fakeUpstreamManifest, startFakeUpstream, type FakeUpstream } from "../lib/testing/fake-upstream";
import { verifyLedger } from "../lib/audit/verify";
import { revokeApiKey } from "../lib/auth/api-keys";
import { setAccountDisabled } from "../lib/accounts/disable-account";
import { rows } from "../lib/db/row-sql";
import { sql } from "drizzle-orm";

const missing = missingForCluster();
// CI has everything (.ci/run installs and starts it): there, a missing piece is a failure, not a skip.
if (process.env.CI && missing.length) throw new Error(`The cluster test needs: ${missing.join(", ")}`);
test.skip(missing.length > 0, `needs ${missing.join(", ")}`);
test.describe.configure({ mode: "serial", timeout: 180_000 });

const root = process.cwd();
const logDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-cluster-"));
let dbName: string;
let database: Database;
let redis: Child;
let lb: Child;
let instances: RunningServer[] = [];
let upstream: FakeUpstream;

function adminUrl(name?: string): string {
  const url = new URL(process.env.TEST_DATABASE_URL!);
  if (name) url.pathname = `/${name}`;
  return url.toString();
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Which instance answered, by HAProxy's header (app1..app3). */
function servedBy(res: Response): string {
  return res.headers.get("x-tollgate-instance") ?? "?";
}

function json(body: unknown): RequestInit {
  return { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
}

async function post(url: string, key: string, body: unknown, headers: Record<string, string> = {}) {
  const init = json(body);
  const res = await fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), ...bearer(key), ...headers } });
  return { res, body: (await res.json()) as Record<string, unknown> };
}

test.beforeAll(async () => {
  test.setTimeout(300_000);
  dbName = `tollgate_cluster_${crypto.randomBytes(5).toString("hex")}`;
  await admin(`create database "${dbName}"`);
  redis = await startRedis();
  upstream = await startFakeUpstream();

  // Three instances started together on an empty database: they migrate and seed it between them.
  const ports = await Promise.all([0, 1, 2].map(async () => freeLoopbackPort()));
  lb = await startHaproxy(root, ports.map((p) => `127.0.0.1:${p}`), path.join(logDir, "haproxy.log"));
  process.env.PUBLIC_URL = lb.url;
  const env = { DATABASE_URL: adminUrl(dbName), REDIS_URL: redis.url, PUBLIC_URL: lb.url, TRUST_PROXY: "1" };
  instances = await Promise.all(ports.map((port, i) => startServer(root, { port, env, logFile: path.join(logDir, `app${i + 1}.log`) })));
  database = await openDatabase({ kind: "postgres", url: adminUrl(dbName), poolSize: 4 });
  // HAProxy's health checks see all three before the tests start.
  const seen = new Set<string>();
  for (let i = 0; i < 200 && seen.size < 3; i++) {
    const res = await fetch(`${lb.url}/api/v1/health`);
    if (res.status === 200) seen.add(servedBy(res));
    if (seen.size < 3) await new Promise((r) => setTimeout(r, 50));
  }
  expect([...seen].sort()).toEqual(["app1", "app2", "app3"]);
  await importManifest(database.db, fakeUpstreamManifest(upstream.url, { providerId: "cluster-fake" }));
});

test.afterAll(async () => {
  await Promise.all(instances.map((s) => s.stop()));
  await lb?.stop();
  await redis?.stop();
  await upstream?.close();
  await database?.close();
  if (dbName) await admin(`drop database if exists "${dbName}" with (force)`);
  // Kept for a failed run: the instances' and HAProxy's output.
  if (test.info().status === "passed") fs.rmSync(logDir, { recursive: true, force: true });
});

test("instances started together on one empty database seed it once and all serve", async () => {
  const demo = rows<{ n: number }>(await database.db.execute(sql`select count(*)::int as n from accounts where name = 'Demo'`));
  expect(demo[0].n).toBe(1);
  for (const instance of instances) expect((await fetch(`${instance.baseUrl}/api/v1/health`)).status).toBe(200);
});

test("200 concurrent Calls on a 10-credit account spread across instances never overspend", async () => {
  const a = await seedAccount(database.db, { credits: "10" });
  const tool = fakeTool("cluster-fake", "ok");
  const results = await Promise.all(
    Array.from({ length: 200 }, async () => {
      const { res, body } = await post(`${lb.url}/api/v1/tools/execute`, a.apiKey, { tool_id: tool, parameters: { city: "Paris" } });
      return { status: res.status, instance: servedBy(res), success: body.success, cost: body.cost };
    }),
  );
  const statuses = results.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});
  expect(new Set(results.map((r) => r.instance))).toEqual(new Set(["app1", "app2", "app3"]));
  // One credit each: exactly ten are served, the rest are refused for credits (never a 5xx).
  expect(statuses).toEqual({ 200: 10, 402: 190 });
  const balance = rows<{ total: string; reserved: string }>(
    await database.db.execute(sql`select (paid_credits + bonus_credits + reward_credits)::text as total, reserved_credits::text as reserved from credit_balances where account_id = ${a.accountId}`),
  );
  expect(balance.map((b) => [Number(b.total), Number(b.reserved)])).toEqual([[0, 0]]);
  const report = await verifyLedger(database.db, { accountId: a.accountId });
  expect(report.violations).toEqual([]);
});

test("the rate limit is one bucket per account across instances (Redis), with its headers", async () => {
  const a = await seedAccount(database.db, { credits: "5" });
  const responses = [];
  // In waves of 10: concurrent, spread round-robin over the three instances.
  for (let wave = 0; wave < 13; wave++) {
    responses.push(...(await Promise.all(Array.from({ length: 10 }, () => fetch(`${lb.url}/api/v1/search`, { ...json({ query: "convert units" }), headers: { ...bearer(a.apiKey), "Content-Type": "application/json" } })))));
  }
  const ok = responses.filter((r) => r.status === 200);
  const limited = responses.filter((r) => r.status === 429);
  expect([ok.length, limited.length]).toEqual([120, 10]);
  expect(new Set(ok.map(servedBy))).toEqual(new Set(["app1", "app2", "app3"]));
  for (const r of [...ok, ...limited]) {
    expect(r.headers.get("x-ratelimit-limit")).toBe("120");
    expect(Number(r.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
  }
  expect(ok.map((r) => Number(r.headers.get("x-ratelimit-remaining"))).sort((x, y) => x - y)).toEqual(Array.from({ length: 120 }, (_, i) => i));
  for (const r of limited) {
    expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await r.json()).toMatchObject({ status: "failure", status_code: 429 });
  }

  // 401 (per client address, through the proxy's X-Forwarded-For) and 402 carry the headers too.
  const anonymous = await fetch(`${lb.url}/api/v1/search`, { ...json({ query: "x" }), headers: { "Content-Type": "application/json" } });
  expect(anonymous.status).toBe(401);
  expect(anonymous.headers.get("x-ratelimit-limit")).toBeTruthy();
  const broke = await seedAccount(database.db, { credits: "0" });
  const refused = await post(`${lb.url}/api/v1/tools/execute`, broke.apiKey, { tool_id: fakeTool("cluster-fake", "ok"), parameters: { city: "Paris" } });
  expect(refused.res.status).toBe(402);
  expect(refused.res.headers.get("x-ratelimit-limit")).toBe("200");
});

test("a truncated result's signed URL issued by one instance is served by the others", async () => {
  const a = await seedAccount(database.db, { credits: "5" });
  const { res, body } = await post(`${instances[0].baseUrl}/api/v1/tools/execute`, a.apiKey, { tool_id: fakeTool("cluster-fake", "big"), parameters: { n: 200 }, max_response_size: 100 });
  expect(res.status).toBe(200);
  const url = new URL((body.result as { full_content_file_url: string }).full_content_file_url);
  // Issued for the address clients use: the load balancer.
  expect(url.origin).toBe(lb.url);
  const contents = [];
  for (const other of instances.slice(1)) {
    const download = await fetch(`${other.baseUrl}${url.pathname}${url.search}`);
    expect(download.status).toBe(200);
    contents.push(await download.json());
  }
  expect((contents[0] as { rows: unknown[] }).rows).toHaveLength(200);
  expect(contents[1]).toEqual(contents[0]);
});

test("a catalog import is searchable on every instance at once, and callable within the tool cache's 5 s", async () => {
  const a = await seedAccount(database.db, { credits: "5" });
  const providerId = `late-${crypto.randomBytes(3).toString("hex")}`;
  const toolId = fakeTool(providerId, "ok");
  // Instance 3 has looked the tool up and cached "unknown" before it exists.
  const before = await post(`${instances[2].baseUrl}/api/v1/tools/execute`, a.apiKey, { tool_id: toolId, parameters: { city: "Oslo" } });
  expect(before.res.status).toBe(404);

  const manifest = fakeUpstreamManifest(upstream.url, { providerId });
  manifest.providers[0].name = `Zephyrine weather ${providerId}`;
  await importManifest(database.db, manifest);
  const imported = Date.now();
  for (const instance of instances) {
    const { res, body } = await post(`${instance.baseUrl}/api/v1/search`, a.apiKey, { query: `Fake ok ${providerId}`, limit: 20 });
    expect(res.status).toBe(200);
    expect((body.results as { tool_id?: string; id?: string }[]).map((r) => r.tool_id ?? r.id)).toContain(toolId);
  }
  let status = 0;
  while (Date.now() - imported < 7_000) {
    status = (await post(`${instances[2].baseUrl}/api/v1/tools/execute`, a.apiKey, { tool_id: toolId, parameters: { city: "Oslo" } })).res.status;
    if (status === 200) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  expect(status).toBe(200);
  expect(Date.now() - imported).toBeLessThan(6_000);
});

test("with Redis down every instance keeps serving on its own in-memory bucket; with Redis back the bucket is shared again", async () => {
  await redis.stop();
  const a = await seedAccount(database.db, { credits: "5" });
  const search = () => fetch(`${lb.url}/api/v1/search`, { ...json({ query: "convert units" }), headers: { ...bearer(a.apiKey), "Content-Type": "application/json" } });
  const down = [];
  for (let wave = 0; wave < 13; wave++) down.push(...(await Promise.all(Array.from({ length: 10 }, search))));
  // Documented (docs/deployment.md): fail open per instance, so up to 3 × 120 pass; never a 5xx.
  expect(down.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
  for (const r of down) expect(r.headers.get("x-ratelimit-limit")).toBe("120");

  redis = await startRedis(redis.port);
  // The clients reconnect by themselves; then one bucket again.
  let statuses: number[] = [];
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    const probe = await fetch(`${lb.url}/api/v1/health`);
    if (probe.status !== 200) continue;
    statuses = [];
    const fresh = await seedAccount(database.db, { credits: "5" });
    for (let wave = 0; wave < 13; wave++) {
      const wave10 = await Promise.all(Array.from({ length: 10 }, () => fetch(`${lb.url}/api/v1/search`, { ...json({ query: "convert units" }), headers: { ...bearer(fresh.apiKey), "Content-Type": "application/json" } })));
      statuses.push(...wave10.map((r) => r.status));
    }
    if (statuses.filter((s) => s === 429).length === 10) break;
  }
  expect([statuses.filter((s) => s === 200).length, statuses.filter((s) => s === 429).length]).toEqual([120, 10]);
});

test("a revoked key and a disabled account are refused by every instance at once", async () => {
  const a = await seedAccount(database.db, { credits: "5" });
  const b = await seedAccount(database.db, { credits: "5" });
  const status = (base: string, token: string) => fetch(`${base}/api/v1/auth/credits`, { headers: bearer(token) }).then((r) => r.status);
  // Every instance has looked both keys up (and cached them).
  for (const instance of instances) expect([await status(instance.baseUrl, a.apiKey), await status(instance.baseUrl, b.apiKey)]).toEqual([200, 200]);
  const everywhere = async (token: string, expected: number) => {
    const started = Date.now();
    for (const instance of instances) {
      while ((await status(instance.baseUrl, token)) !== expected) {
        if (Date.now() - started > 3_000) throw new Error(`${instance.baseUrl} still accepts the credential after 3 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    return Date.now() - started;
  };
  // As the CLI does it, against the database: no instance is asked.
  await revokeApiKey(database.db, { id: a.apiKeyId });
  expect(await everywhere(a.apiKey, 401)).toBeLessThan(1_000);
  await setAccountDisabled(database.db, { accountId: b.accountId, disabled: true });
  expect(await everywhere(b.apiKey, 403)).toBeLessThan(1_000);
  expect(await everywhere(b.accessToken, 403)).toBeLessThan(1_000);
  await setAccountDisabled(database.db, { accountId: b.accountId, disabled: false });
  expect(await everywhere(b.apiKey, 200)).toBeLessThan(1_000);
});

test("after everything, the ledger's invariants hold on the shared database", async () => {
  const report = await verifyLedger(database.db);
  expect(report.violations).toEqual([]);
  expect(report.accounts_checked).toBeGreaterThan(5);
});
