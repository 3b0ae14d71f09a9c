import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { bearer, seedAccount } from "../../testing/fixtures";
import { importDemoCatalog } from "../../testing/catalog";
import { startTestMcpServer, type TestMcpServer } from "../../testing/mcp-server";
import { closedPort } from "../../testing/fake-upstream";
import { runCommand } from "../../cli/commands";
import { importCatalog } from "../../catalog/import";
import { LIVE_SCHEMA_CACHE_TTL_MS } from "../../catalog/live-schema";
import { manifestFromMcpTools } from "../../catalog/mcp-import";
import { listMcpTools, type McpToolDescription } from "../../providers/mcp-adapter";
import { tools, usageEvents } from "../../db/schema";
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
    expect(body).toMatchObject({ total: 2, unknown_tool_ids: [], error_message: null, remaining_credits: 5 });
    // Contract 2.3: search_id is there "when available", so without one in the request it is left out, not null.
    expect(body).not.toHaveProperty("search_id");
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
    expect((await res.json()).search_id).toBe("srch_test_inspect");
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

describe("POST /tools/by-ids for MCP providers with a live schema", () => {
  let mcp: TestMcpServer;
  let listed: McpToolDescription[];

  beforeAll(async () => {
    mcp = await startTestMcpServer();
    listed = await listMcpTools(mcp.url, { allowPrivateNetwork: true });
    await runCommand(database.db, ["providers", "import", "--mcp", mcp.url, "--provider-id", "live-mcp", "--allow-private-network", "--live-schema"]);
    const imports = [
      manifestFromMcpTools(mcp.url, listed, { providerId: "snapshot-mcp", allowPrivateNetwork: true }),
      manifestFromMcpTools(mcp.url, listed, { providerId: "slow-mcp", allowPrivateNetwork: true, liveSchema: true, timeoutMs: 300 }),
      manifestFromMcpTools(`http://127.0.0.1:${await closedPort()}/mcp`, listed, { providerId: "down-mcp", allowPrivateNetwork: true, liveSchema: true }),
      manifestFromMcpTools(mcp.url, listed, { providerId: "guarded-mcp", liveSchema: true }),
      manifestFromMcpTools(mcp.url, [{ name: "vanished", inputSchema: { type: "object" } }], { providerId: "vanish-mcp", allowPrivateNetwork: true, liveSchema: true }),
    ];
    for (const manifest of imports) await importCatalog(database.db, manifest);
  });

  afterAll(() => mcp?.close());

  const paramNames = (body: { results: { params: { name: string }[] }[] }) => body.results[0].params.map((p) => p.name);
  const eventOf = async (sessionId: string) => (await database.db.select().from(usageEvents).where(eq(usageEvents.sessionId, sessionId)))[0];

  it("answers with the params the server lists now, re-reading them once the 30 s cache has expired", async () => {
    const listsBefore = mcp.lists;
    const first = await (await inspect({ tool_ids: ["live-mcp.echo"] })).json();
    expect(paramNames(first)).toEqual(["text", "times", "style", "tags"]);
    expect(mcp.lists).toBe(listsBefore + 1);

    mcp.setInputSchema("echo", { text: z.string().describe("Text to repeat"), lang: z.enum(["en", "zh"]).describe("Language of the echo") });
    const cached = await (await inspect({ tool_ids: ["live-mcp.echo", "live-mcp.add"] })).json();
    expect(paramNames(cached)).toEqual(["text", "times", "style", "tags"]);
    expect(mcp.lists).toBe(listsBefore + 1);

    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + LIVE_SCHEMA_CACHE_TTL_MS + 1_000);
      const res = await inspect({ tool_ids: ["live-mcp.echo"], view: "lean" });
      expect(res.status).toBe(200);
      expect((await res.json()).results[0].params).toEqual([
        { name: "text", type: "string", required: true },
        { name: "lang", type: "string", required: true, enum: ["en", "zh"] },
      ]);
    } finally {
      vi.useRealTimers();
    }
    expect(mcp.lists).toBe(listsBefore + 2);
    const [row] = await database.db.select({ params: tools.params }).from(tools).where(eq(tools.id, "live-mcp.echo"));
    expect((row.params as { name: string }[]).map((p) => p.name)).toEqual(["text", "times", "style", "tags"]);
  });

  it("Probe and Call check parameters against the same live params Inspect shows", async () => {
    // After the test above the server lists echo(text, lang), the snapshot still echo(text, times, style, tags).
    const probe = (parameters: Record<string, unknown>) =>
      fetch(`${server.url}/api/v1/tools/probe?tool_id=live-mcp.echo`, {
        method: "POST",
        headers: { ...bearer(seed.apiKey), "content-type": "application/json" },
        body: JSON.stringify({ parameters, checks: ["schema"] }),
      }).then((r) => r.json());
    expect((await probe({ text: "hi", lang: "en" })).schema.valid).toBe(true);
    const stale = await probe({ text: "hi", times: 2 });
    expect(stale.schema.valid).toBe(false);
    expect(stale.schema.details).toEqual(expect.arrayContaining([expect.objectContaining({ type: "extra_forbidden", loc: ["body", "parameters", "times"] })]));
    const call = await fetch(`${server.url}/api/v1/tools/execute`, {
      method: "POST",
      headers: { ...bearer(seed.apiKey), "content-type": "application/json" },
      body: JSON.stringify({ tool_id: "live-mcp.echo", parameters: { text: "hi", times: 2 } }),
    });
    expect(call.status).toBe(422);
  });

  it("never contacts the server of a snapshot MCP provider", async () => {
    const listsBefore = mcp.lists;
    const res = await inspect({ tool_ids: ["snapshot-mcp.echo", "snapshot-mcp.add"] });
    expect(res.status).toBe(200);
    expect(paramNames(await res.json())).toEqual(["text", "times", "style", "tags"]);
    expect(mcp.lists).toBe(listsBefore);
  });

  it("a slow tools/list gives 504 {error, remaining_credits} and records transport.timeout", async () => {
    mcp.listDelayMs = 2_000;
    try {
      const res = await inspect({ tool_ids: ["slow-mcp.add"], session_id: "sess-live-timeout" });
      expect(res.status).toBe(504);
      expect(await res.json()).toEqual({ error: expect.stringMatching(/slow-mcp did not list its tools within 300 ms/), remaining_credits: 5 });
    } finally {
      mcp.listDelayMs = 0;
    }
    expect(await eventOf("sess-live-timeout")).toMatchObject({ eventType: "search_by_ids", toolId: "slow-mcp.add", success: false, reasonCode: "transport.timeout", chargeOutcome: "failed_not_charged" });
  });

  it("an unreachable server gives 502 {error, remaining_credits} and records transport.no_response", async () => {
    const res = await inspect({ tool_ids: ["builtin.math.roman", "down-mcp.add"], session_id: "sess-live-down" });
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ error: expect.stringMatching(/down-mcp could not list its tools/), remaining_credits: 5 });
    expect(await eventOf("sess-live-down")).toMatchObject({ eventType: "search_by_ids", success: false, reasonCode: "transport.no_response" });
  });

  it("the SSRF guard refuses a live fetch from a private server that is not allow-listed (502)", async () => {
    const listsBefore = mcp.lists;
    const res = await inspect({ tool_ids: ["guarded-mcp.add"] });
    expect(res.status).toBe(502);
    expect((await res.json()).error).toMatch(/non-public address 127\.0\.0\.1/);
    expect(mcp.lists).toBe(listsBefore);
  });

  it("reports a live tool its server no longer lists as unknown", async () => {
    const res = await inspect({ tool_ids: ["vanish-mcp.vanished", "builtin.math.roman"] });
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ total: 1, unknown_tool_ids: ["vanish-mcp.vanished"] });
    expect(body.error_message).toMatch(/vanish-mcp\.vanished/);
  });
});
