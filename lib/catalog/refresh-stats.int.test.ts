import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inArray, sql } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { bearer, seedAccount } from "../testing/fixtures";
import { importDemoCatalog, importManifest } from "../testing/catalog";
import { startFakeUpstream, type FakeUpstream } from "../testing/fake-upstream";
import { catalogState, executions, tools } from "../db/schema";
import { rows } from "../db/row-sql";
import type { Database, Db } from "../db/types";
import { newId } from "../ids";
import { sweepExpiredReservations } from "../billing/sweep-reservations";
import { changedFiguresQuery, MIN_SAMPLE, refreshToolStats } from "./refresh-stats";

let database: Database;
let server: TestServer;
let upstream: FakeUpstream;
let apiKey: string;
let accountId: string;

const MIXED = "stats-fake.mixed";
const RARE = "stats-fake.rare";
const EVALUATE = "builtin.math.evaluate";
const CATALOG_STATS = { success_rate: 0.9, avg_execution_time_ms: 500 };

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  upstream = await startFakeUpstream();
  // One tool whose outcome the caller picks: the path is the fake upstream scenario.
  const tool = (id: string) => ({
    id,
    name: `Scenario ${id}`,
    description: "Answers the way the chosen fake upstream scenario answers",
    params: [{ name: "scenario", type: "string" as const, required: true, description: "Fake upstream path" }],
    billing_rule: { unit: "call" as const, amount_credits: 1 },
    stats: CATALOG_STATS,
    execution: { method: "GET" as const, path: "/{scenario}" },
  });
  await importManifest(database.db, {
    providers: [{ id: "stats-fake", name: "Stats fake", transport: "http", base_url: upstream.url, allow_private_network: true, tools: [tool(MIXED), tool(RARE)] }],
  });
  ({ apiKey, accountId } = await seedAccount(database.db, { credits: "1000" }));
  server = await startTestServer(database);
});

afterAll(async () => {
  await upstream?.close();
});

async function post(path: string, key: string, body: unknown) {
  const res = await fetch(`${server.url}${path}`, { method: "POST", headers: { ...bearer(key), "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** Makes `n` Calls through the real server; returns the duration each recorded (its rounded elapsed time). */
async function calls(n: number, toolId: string, parameters: (i: number) => Record<string, unknown>, key = apiKey): Promise<number[]> {
  const durations: number[] = [];
  for (let i = 0; i < n; i++) {
    const { body } = await post("/api/v1/tools/execute", key, { tool_id: toolId, parameters: parameters(i) });
    durations.push(Math.round(body.elapsed_time_ms as number));
  }
  return durations;
}

const version = async (db: Db) => (await db.select({ version: catalogState.version }).from(catalogState))[0].version;
const statsOf = async (ids: string[]) =>
  Object.fromEntries(
    (await database.db.select({ id: tools.id, rate: tools.successRate, avg: tools.avgExecutionTimeMs }).from(tools).where(inArray(tools.id, ids))).map((t) => [t.id, { success_rate: t.rate, avg_execution_time_ms: t.avg }]),
  );
const mean = (xs: number[]) => Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 10) / 10;

describe("refreshToolStats", () => {
  const measured: Record<string, { success_rate: number; avg_execution_time_ms: number }> = {};

  it("replaces catalog stats with the last 30 days of Calls that reached the provider", async () => {
    // MIXED: 12 successes (partial counts), 8 failures (empty result, HTTP error, unusable body) ...
    const settled = [
      ...(await calls(10, MIXED, () => ({ scenario: "ok" }))),
      ...(await calls(2, MIXED, () => ({ scenario: "partial" }))),
      ...(await calls(3, MIXED, () => ({ scenario: "empty-object" }))),
      ...(await calls(3, MIXED, () => ({ scenario: "missing" }))),
      ...(await calls(2, MIXED, () => ({ scenario: "garbage" }))),
    ];
    // ... and a Call that never settled, released by the sweeper: a failure without a duration.
    await database.db.insert(executions).values({
      id: newId("exe"),
      accountId,
      toolId: MIXED,
      sessionId: "sess-crashed",
      status: "reserved",
      reservedCredits: "1",
      reservationExpiresAt: new Date(Date.now() - 1000),
    });
    expect(await sweepExpiredReservations(database.db)).toBe(1);
    // Refused before the provider: not counted.
    await calls(3, MIXED, () => ({}));
    const broke = await seedAccount(database.db, { credits: "0" });
    await calls(2, MIXED, () => ({ scenario: "ok" }), broke.apiKey);
    // EVALUATE (builtin, cacheable): 16 results and 4 provider errors; cache hits and validation
    // errors are not counted.
    const evaluated = [...(await calls(16, EVALUATE, (i) => ({ expression: `${i} + 1` }))), ...(await calls(4, EVALUATE, (i) => ({ expression: `${i} +* 3` })))];
    await calls(5, EVALUATE, () => ({ expression: "0 + 1" }));
    await calls(2, EVALUATE, () => ({}));
    // RARE: one Call short of the minimum sample, all failures.
    await calls(MIN_SAMPLE - 1, RARE, () => ({ scenario: "missing" }));

    const reasons = rows<{ reason_code: string; n: number }>(
      await database.db.execute(sql`SELECT reason_code, cache_hit, count(*)::int AS n FROM executions WHERE tool_id = ${EVALUATE} GROUP BY 1, 2 ORDER BY 1, 2`),
    );
    expect(reasons).toEqual([
      { reason_code: "provider.error", cache_hit: false, n: 4 },
      { reason_code: "result.valid", cache_hit: false, n: 16 },
      { reason_code: "result.valid", cache_hit: true, n: 5 },
      { reason_code: "validation_error", cache_hit: false, n: 2 },
    ]);

    const before = await version(database.db);
    expect(await refreshToolStats(database.db, { minIntervalMs: 0 })).toEqual({ status: "updated", updatedTools: [EVALUATE, MIXED] });
    expect(await version(database.db)).toBe(before + 1);

    measured[MIXED] = { success_rate: Math.round((12 / 21) * 1000) / 1000, avg_execution_time_ms: mean(settled) };
    measured[EVALUATE] = { success_rate: 0.8, avg_execution_time_ms: mean(evaluated) };
    const stored = await statsOf([MIXED, EVALUATE, RARE]);
    for (const id of [MIXED, EVALUATE]) {
      expect(stored[id].success_rate).toBeCloseTo(measured[id].success_rate, 6);
      expect(stored[id].avg_execution_time_ms).toBeCloseTo(measured[id].avg_execution_time_ms, 4);
    }
    expect(stored[RARE]).toEqual(CATALOG_STATS);
  });

  it("a second refresh with nothing new writes nothing: the catalog version stays", async () => {
    const before = await version(database.db);
    expect(await refreshToolStats(database.db, { minIntervalMs: 0 })).toEqual({ status: "unchanged" });
    expect(await refreshToolStats(database.db)).toEqual({ status: "not_due" });
    expect(await version(database.db)).toBe(before);
  });

  it("Inspect and Discover answer with the measured stats, and the catalog's below the minimum sample", async () => {
    const inspected = await post("/api/v1/tools/by-ids", apiKey, { tool_ids: [MIXED, EVALUATE, RARE] });
    expect(inspected.status).toBe(200);
    const byId = Object.fromEntries((inspected.body.results as { tool_id: string; stats: { success_rate: number; avg_execution_time_ms: number } }[]).map((r) => [r.tool_id, r.stats]));
    for (const id of [MIXED, EVALUATE]) {
      expect(byId[id].success_rate).toBeCloseTo(measured[id].success_rate, 6);
      expect(byId[id].avg_execution_time_ms).toBeCloseTo(measured[id].avg_execution_time_ms, 4);
    }
    expect(byId[RARE]).toEqual(CATALOG_STATS);

    const discovered = await post("/api/v1/search", apiKey, { query: EVALUATE, limit: 1 });
    expect(discovered.status).toBe(200);
    expect(discovered.body.results[0].tool_id).toBe(EVALUATE);
    expect(discovered.body.results[0].stats.success_rate).toBeCloseTo(measured[EVALUATE].success_rate, 6);
  });

  it("instances refreshing at once write once", async () => {
    await calls(10, EVALUATE, (i) => ({ expression: `${i} */ 3` }));
    const before = await version(database.db);
    const outcomes = await Promise.all([refreshToolStats(database.db, { minIntervalMs: 0 }), refreshToolStats(database.db, { minIntervalMs: 0 })]);
    expect(outcomes.filter((o) => o.status === "updated")).toEqual([{ status: "updated", updatedTools: [EVALUATE] }]);
    expect(await version(database.db)).toBe(before + 1);
    expect((await statsOf([EVALUATE]))[EVALUATE].success_rate).toBeCloseTo(Math.round((16 / 30) * 1000) / 1000, 6);
  });

  it("the 30-day window is read as a range of the executions primary key", async () => {
    const plan = await database.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL enable_seqscan = off`);
      return rows<{ "QUERY PLAN": string }>(await tx.execute(sql`EXPLAIN ${changedFiguresQuery(Date.now())}`)).map((r) => r["QUERY PLAN"]).join("\n");
    });
    expect(plan).toMatch(/Index Cond: \(id >= /);
    expect(plan).toContain("executions_pkey");
  });

});
