import { beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { bearer, seedAccount } from "../../testing/fixtures";
import { importDemoCatalog, importManifest } from "../../testing/catalog";
import { searches, tools, usageEvents } from "../../db/schema";
import { revokeApiKey } from "../../auth/api-keys";
import { issueAccessToken } from "../../auth/jwt";
import type { Database } from "../../db/types";

let database: Database;
let server: TestServer;
let seed: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  server = await startTestServer(database);
  seed = await seedAccount(database.db, { credits: "10" });
});

interface Result {
  tool_id: string;
  name: string;
  description: string;
  [k: string]: unknown;
}

const search = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/api/v1/search`, {
    method: "POST",
    headers: { ...bearer(seed.apiKey), "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

async function ids(body: unknown, headers: Record<string, string> = {}): Promise<string[]> {
  const res = await search(body, headers);
  const json = await res.json();
  expect(res.status, JSON.stringify(json)).toBe(200);
  return (json.results as Result[]).map((r) => r.tool_id);
}

describe("POST /search ranking on the demo catalog", () => {
  it.each([
    ["convert celsius to fahrenheit", "builtin.convert.temperature"],
    ["how much is my monthly mortgage payment", "builtin.finance.loan_payment"],
    ["generate a random secure password", "builtin.generate.password"],
    ["what day of the week was 4 July 1976", "builtin.time.weekday"],
    ["sha256 hash of a string", "builtin.crypto.hash"],
    ["is 97 a prime number", "builtin.math.prime"],
  ])("an English request finds the tool: %s", async (query, expected) => {
    expect((await ids({ query, limit: 5 }))[0]).toBe(expected);
  });

  it.each([
    ["把摄氏度换算成华氏度", "builtin.convert.temperature"],
    ["计算房贷每个月要还多少钱", "builtin.finance.loan_payment"],
    ["罗马数字转换", "builtin.math.roman"],
    ["人民币金额大写", "builtin.finance.rmb_uppercase"],
  ])("a Chinese request finds the tool by its zh text: %s", async (query, expected) => {
    expect((await ids({ query, limit: 5 }))[0]).toBe(expected);
  });

  it("tolerates typos", async () => {
    expect((await ids({ query: "convert celsus to farenheit", limit: 3 }))[0]).toBe("builtin.convert.temperature");
    expect((await ids({ query: "pasword generater", limit: 3 }))[0]).toBe("builtin.generate.password");
  });

  it("a full tool_id is an exact lookup ranked first", async () => {
    const found = await ids({ query: "builtin.math.roman", limit: 5 });
    expect(found[0]).toBe("builtin.math.roman");
    expect(new Set(found).size).toBe(found.length);
  });

  it("never returns retired tools (the demo's rot13 is retired)", async () => {
    expect(await ids({ query: "ROT13 cipher", limit: 100 })).not.toContain("builtin.text.rot13");
    expect(await ids({ query: "builtin.text.rot13", limit: 100 })).not.toContain("builtin.text.rot13");
  });

  it("sees a retirement made directly in the database on the very next search", async () => {
    expect((await ids({ query: "roman numerals", limit: 3 }))[0]).toBe("builtin.math.roman");
    await database.db.update(tools).set({ status: "retired" }).where(eq(tools.id, "builtin.math.roman"));
    try {
      expect(await ids({ query: "roman numerals", limit: 100 })).not.toContain("builtin.math.roman");
    } finally {
      await database.db.update(tools).set({ status: "active" }).where(eq(tools.id, "builtin.math.roman"));
    }
    expect((await ids({ query: "roman numerals", limit: 3 }))[0]).toBe("builtin.math.roman");
  });

  it("finds a tool imported after the first search", async () => {
    await importManifest(database.db, {
      providers: [
        {
          id: "late-catalog",
          name: "Late catalog",
          transport: "none",
          source: "late",
          tools: [{ id: "late.aurora", name: "aurora_forecast", description: "Forecasts northern lights visibility." }],
        },
      ],
    });
    expect((await ids({ query: "will I see the northern lights tonight", limit: 3 }))[0]).toBe("late.aurora");
    expect(await ids({ query: "northern lights", source: "late" })).toEqual(["late.aurora"]);
    expect(await ids({ query: "convert celsius", source: "late" })).toEqual([]);
  });

  it("an unknown source answers 404 naming it, records no search and charges nothing", async () => {
    const before = await database.db.select({ id: searches.id }).from(searches).where(eq(searches.accountId, seed.accountId));
    const res = await search({ query: "northern lights", source: "lat" });
    const body = await res.json();
    expect(res.status).toBe(404);
    expect(body).toMatchObject({ status: "failure", status_code: 404, message: expect.stringContaining('"lat"') });
    const after = await database.db.select({ id: searches.id }).from(searches).where(eq(searches.accountId, seed.accountId));
    expect(after).toHaveLength(before.length);
  });

  it("a source whose tools are all retired is unknown too", async () => {
    await database.db.update(tools).set({ status: "retired" }).where(eq(tools.id, "late.aurora"));
    try {
      expect((await search({ query: "northern lights", source: "late" })).status).toBe(404);
    } finally {
      await database.db.update(tools).set({ status: "active" }).where(eq(tools.id, "late.aurora"));
    }
    expect(await ids({ query: "northern lights", source: "late" })).toEqual(["late.aurora"]);
  });

  it("answers an empty result list when nothing matches", async () => {
    const res = await search({ query: "zzqxj vvkkw" });
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ total: 0, results: [], error_message: null });
  });
});

describe("POST /search request and response", () => {
  it("returns the contract's search response with full capability results", async () => {
    const res = await search({ query: "compound interest", limit: 2, session_id: "sess-1" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBe("120");
    const body = await res.json();
    expect(body).toMatchObject({ query: "compound interest", total: 2, error_message: null, remaining_credits: 10 });
    expect(body.search_id).toMatch(/^srch_/);
    expect(body.elapsed_time_ms).toBeTypeOf("number");
    const top = body.results[0];
    expect(top).toMatchObject({
      tool_id: "builtin.finance.compound_interest",
      provider_name: "Tollgate Builtins",
      provider_id: "tollgate-builtin",
      billing_rule: { unit: "call", amount_credits: 1 },
      stats: { success_rate: 0.99 },
    });
    expect(top.params.length).toBeGreaterThan(0);
    expect(top.params[0]).toHaveProperty("name");
    expect(top.params[0]).toHaveProperty("type");
    expect(top.params[0]).toHaveProperty("required");
    // Extension: why it ranked (the request's words per field).
    expect(top.match.fields.name).toEqual(expect.arrayContaining(["compound", "interest"]));
    expect(top.match.expanded).toBeInstanceOf(Array);
  });

  it("honours limit and rejects 0 and 101 with 422", async () => {
    expect((await ids({ query: "convert", limit: 3 })).length).toBe(3);
    expect((await ids({ query: "convert" })).length).toBeLessThanOrEqual(20);
    for (const limit of [0, 101, 2.5]) {
      const res = await search({ query: "convert", limit });
      expect(res.status).toBe(422);
      expect((await res.json()).detail[0].loc).toEqual(["body", "limit"]);
    }
  });

  it("rejects a missing or blank query and unknown view or lang with 422", async () => {
    for (const body of [{}, { query: "   " }, { query: "x", view: "compact" }, { query: "x", lang: "fr" }]) {
      expect((await search(body)).status).toBe(422);
    }
  });

  it("view=routing returns compact routing cards", async () => {
    const res = await search({ query: "compound interest", view: "routing", limit: 3 });
    const body = await res.json();
    expect(res.status).toBe(200);
    for (const card of body.results) {
      expect(Object.keys(card).sort()).toEqual(["as_of_support", "capability", "cost_class", "reliability", "tool_id"]);
      expect(["free", "low", "medium", "high", "variable"]).toContain(card.cost_class);
      expect(Number.isNaN(Date.parse(card.as_of_support))).toBe(false);
    }
    expect(body.results[0]).toMatchObject({ tool_id: "builtin.finance.compound_interest", cost_class: "low", reliability: 0.99 });
    expect(body.results[0].capability).toMatch(/^Compound interest calculator: /);
  });

  it("answers in the body's lang, else the Accept-Language one, else English", async () => {
    const top = async (body: unknown, headers: Record<string, string> = {}) => ((await (await search(body, headers)).json()).results[0] as Result);
    expect((await top({ query: "roman numerals" })).name).toBe("Roman numeral converter");
    expect((await top({ query: "roman numerals" }, { "Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8" })).name).toBe("罗马数字转换");
    expect((await top({ query: "roman numerals" }, { "Accept-Language": "fr-FR, en;q=0.5, zh;q=0.4" })).name).toBe("Roman numeral converter");
    expect((await top({ query: "roman numerals", lang: "en" }, { "Accept-Language": "zh-CN" })).name).toBe("Roman numeral converter");
    const zh = await top({ query: "roman numerals", lang: "zh" });
    expect(zh.name).toBe("罗马数字转换");
    expect(zh.description).toMatch(/[\u4e00-\u9fff]/);
  });

  it("401 without a credential, with a malformed one and with an unknown key", async () => {
    for (const headers of [{}, { Authorization: "Basic abc" }, bearer("tg_live_unknownunknownunknownunknown")]) {
      const res = await fetch(`${server.url}/api/v1/search`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ query: "x" }) });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ status: "failure", status_code: 401 });
      expect(res.headers.get("x-ratelimit-limit")).toBe("120");
    }
  });

  it("401 for a revoked key; a user's OAuth token searches only with the tools:read scope", async () => {
    const other = await seedAccount(database.db);
    await revokeApiKey(database.db, { id: other.apiKeyId });
    const search = (token: string) => fetch(`${server.url}/api/v1/search`, { method: "POST", headers: { "content-type": "application/json", ...bearer(token) }, body: JSON.stringify({ query: "x" }) });
    expect((await search(other.apiKey)).status).toBe(401);
    const token = async (scope: string) => (await issueAccessToken(database.db, { userId: seed.userId, accountId: seed.accountId, role: "owner", scope, ttlSeconds: 600 })).accessToken;
    const refused = await search(await token("usage:read ledger:read"));
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="tollgate", error="insufficient_scope", scope="tools:read", error_description="This access token lacks the tools:read scope (it holds usage:read ledger:read); ask for it when the token is granted"');
    expect((await search(await token("tools:read"))).status).toBe(200);
  });

  it("stores every search and writes a free `search` usage event", async () => {
    const res = await search({ query: "base64 decode", session_id: "sess-audit", limit: 3 });
    const body = await res.json();
    const [row] = await database.db.select().from(searches).where(eq(searches.id, body.search_id));
    expect(row).toMatchObject({ accountId: seed.accountId, apiKeyId: seed.apiKeyId, sessionId: "sess-audit", query: "base64 decode", lang: "en", view: "full" });
    expect(row.resultIds).toEqual(body.results.map((r: Result) => r.tool_id));
    const events = await database.db
      .select()
      .from(usageEvents)
      .where(and(eq(usageEvents.searchId, body.search_id), eq(usageEvents.eventType, "search")));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      accountId: seed.accountId,
      sessionId: "sess-audit",
      success: true,
      chargeOutcome: "included",
      settledAmountCredits: "0.000000",
      creditsLedgerEntryId: null,
    });
  });
});
