import { beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { bearer, seedAccount } from "../../testing/fixtures";
import { importDemoCatalog } from "../../testing/catalog";
import { usageEvents } from "../../db/schema";
import { DomainError } from "../../errors";
import { inspectTools } from "../../search/inspect-tools";
import type { Database } from "../../db/types";

let database: Database;
let server: TestServer;
let seed: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  server = await startTestServer(database);
  seed = await seedAccount(database.db, { credits: "5" });
});

const inspect = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/api/v1/tools/by-ids`, {
    method: "POST",
    headers: { ...bearer(seed.apiKey), "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("POST /tools/by-ids", () => {
  it("returns full capability results in request order", async () => {
    const res = await inspect({ tool_ids: ["builtin.math.roman", "builtin.finance.compound_interest"] });
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBe("120");
    expect(body).toMatchObject({ search_id: null, total: 2, unknown_tool_ids: [], error_message: null, remaining_credits: 5 });
    expect(body.results.map((r: { tool_id: string }) => r.tool_id)).toEqual(["builtin.math.roman", "builtin.finance.compound_interest"]);
    const interest = body.results[1];
    expect(interest).toMatchObject({ name: "Compound interest calculator", provider_name: "Tollgate Builtins", billing_rule: { unit: "call", amount_credits: 1 } });
    expect(interest.examples.sample_parameters).toBeTypeOf("object");
    expect(interest.stats).toMatchObject({ success_rate: 0.99 });
    expect(interest.params.every((p: { description?: string }) => typeof p.description === "string")).toBe(true);
  });

  it("view=lean leaves out examples, stats and parameter descriptions", async () => {
    const body = await (await inspect({ tool_ids: ["builtin.finance.compound_interest"], view: "lean" })).json();
    const lean = body.results[0];
    expect(lean).not.toHaveProperty("examples");
    expect(lean).not.toHaveProperty("stats");
    for (const p of lean.params) expect(Object.keys(p).every((k) => ["name", "type", "required", "enum"].includes(k))).toBe(true);
    expect(lean.billing_rule).toMatchObject({ unit: "call" });
  });

  it("reports unknown and retired ids instead of dropping them", async () => {
    const res = await inspect({ tool_ids: ["builtin.math.roman", "no.such.tool", "builtin.text.rot13", "builtin.math.roman"] });
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body.results.map((r: { tool_id: string }) => r.tool_id)).toEqual(["builtin.math.roman"]);
    expect(body.unknown_tool_ids).toEqual(["no.such.tool", "builtin.text.rot13"]);
    expect(body.error_message).toMatch(/no\.such\.tool/);
  });

  it("answers in the requested language", async () => {
    const zh = await (await inspect({ tool_ids: ["builtin.math.roman"] }, { "Accept-Language": "zh-CN" })).json();
    expect(zh.results[0].name).toBe("罗马数字转换");
    const en = await (await inspect({ tool_ids: ["builtin.math.roman"], lang: "en" }, { "Accept-Language": "zh-CN" })).json();
    expect(en.results[0].name).toBe("Roman numeral converter");
  });

  it("writes a search_by_ids usage event carrying the search and session ids", async () => {
    const res = await inspect({ tool_ids: ["builtin.time.weekday"], search_id: "srch_test_inspect", session_id: "sess-inspect" });
    expect(res.status).toBe(200);
    const events = await database.db
      .select()
      .from(usageEvents)
      .where(and(eq(usageEvents.searchId, "srch_test_inspect"), eq(usageEvents.eventType, "search_by_ids")));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ accountId: seed.accountId, sessionId: "sess-inspect", toolId: "builtin.time.weekday", success: true, chargeOutcome: "included" });
  });

  it("422 for a missing, empty or oversized tool_ids list, or an unknown view", async () => {
    const many = Array.from({ length: 101 }, (_, i) => `t${i}`);
    for (const body of [{}, { tool_ids: [] }, { tool_ids: many }, { tool_ids: ["x"], view: "compact" }]) {
      expect((await inspect(body)).status).toBe(422);
    }
  });

  it("401 without a valid API key", async () => {
    const res = await fetch(`${server.url}/api/v1/tools/by-ids`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ tool_ids: ["x"] }) });
    expect(res.status).toBe(401);
  });
});

describe("inspectTools with a live schema source", () => {
  it("turns an upstream timeout into the 504 outcome with remaining credits, and records it", async () => {
    const result = await inspectTools(database.db, {
      accountId: seed.accountId,
      apiKeyId: null,
      request: { tool_ids: ["builtin.math.roman"], view: "full", session_id: "sess-timeout" },
      lang: "en",
      schemaSource: async () => {
        throw new DomainError("upstream_timeout", "MCP tools/list did not answer within 10 s");
      },
    });
    expect(result).toEqual({ outcome: "upstream_timeout", error: "MCP tools/list did not answer within 10 s", remaining_credits: 5 });
    const [event] = await database.db.select().from(usageEvents).where(eq(usageEvents.sessionId, "sess-timeout"));
    expect(event).toMatchObject({ eventType: "search_by_ids", success: false, reasonCode: "transport.timeout", chargeOutcome: "failed_not_charged" });
  });
});
