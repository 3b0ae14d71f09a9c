// Text PostgreSQL cannot store (U+0000, an unpaired surrogate), bodies nested too deeply and bodies
// over the size limit: each answered by the operation's own contract error, nothing stored.
import http from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { bearer, seedAccount } from "../testing/fixtures";
import { importDemoCatalog } from "../testing/catalog";
import { assertLedgerInvariants } from "../testing/invariants";
import { executions, usageEvents } from "../db/schema";
import { MAX_BODY_DEPTH, unstorableMessage } from "./storable-input";
import type { Database } from "../db/types";

let database: Database;
let server: TestServer;
let seed: Awaited<ReturnType<typeof seedAccount>>;

const COMPOUND = "builtin.finance.compound_interest";
const JSON_TYPE = { "Content-Type": "application/json" };

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  server = await startTestServer(database);
  seed = await seedAccount(database.db, { credits: "100" });
});

async function send(method: string, path: string, headers: Record<string, string>, body?: string) {
  const res = await fetch(`${server.url}${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, text, json: text.startsWith("{") ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

const key = () => bearer(seed.apiKey);
const jwt = () => bearer(seed.accessToken);

describe("text PostgreSQL cannot store", () => {
  const validation = (loc: (string | number)[]) => ({ detail: [expect.objectContaining({ loc, msg: unstorableMessage })] });

  it.each([
    ["a lone surrogate in a search query", "POST", "/api/v1/search", '{"query":"\\ud800 weather"}', ["body", "query"]],
    ["U+0000 in a search query", "POST", "/api/v1/search", '{"query":"a\\u0000b"}', ["body", "query"]],
    ["U+0000 in a tool id list", "POST", "/api/v1/tools/by-ids", '{"tool_ids":["\\u0000"]}', ["body", "tool_ids", 0]],
  ])("%s answers 422 HTTPValidationError", async (_, method, path, body, loc) => {
    const res = await send(method, path, { ...key(), ...JSON_TYPE }, body);
    expect(res.status).toBe(422);
    expect(res.json).toEqual(validation(loc));
  });

  it.each([
    ["a ledger entry id", "/api/v1/auth/credits/ledger/%00", ["param", "entry_id"]],
    ["a usage-history filter", "/api/v1/auth/usage/history/v2?execution_id=%00", ["query", "execution_id"]],
    ["an export filter (refused before the body starts)", "/api/v1/auth/usage/history/v2/export?search_id=%00", ["query", "search_id"]],
    ["a time zone", "/api/v1/auth/usage/history/v2?tz=%00", ["query", "tz"]],
    ["a query parameter the operation does not declare", "/api/v1/auth/credits/ledger?unknown=a%00", ["query", "unknown", 0]],
  ])("U+0000 in %s answers 422 HTTPValidationError", async (_, path, loc) => {
    const res = await send("GET", path, jwt());
    expect(res.status).toBe(422);
    expect(res.json).toEqual(validation(loc));
  });

  it("an API key id to revoke answers 422", async () => {
    const res = await send("DELETE", "/api/v1/auth/api-keys/%00", jwt());
    expect(res.status).toBe(422);
    expect(res.json).toEqual(validation(["param", "api_key_id"]));
  });

  it.each([
    ["the tool id", { tool_id: "\u0000", parameters: {} }, "body.tool_id"],
    ["a parameter value", { tool_id: COMPOUND, parameters: { principal: 100, annual_rate_percent: 5, years: 2, note: "x\u0000" } }, "body.parameters.note"],
    ["a nested parameter key", { tool_id: COMPOUND, parameters: { principal: 100, extra: { ["\udc00"]: 1 } } }, "body.parameters.extra.\udc00: Key"],
    ["a session id", { tool_id: COMPOUND, parameters: { principal: 100, annual_rate_percent: 5, years: 2 }, session_id: "\ud83d" }, "body.session_id"],
  ])("a Call with unstorable text in %s answers the Call's 422 and stores nothing", async (_, body, where) => {
    const before = await database.db.select().from(executions).where(eq(executions.accountId, seed.accountId));
    // JSON.stringify writes unpaired surrogates as escapes (well-formed JSON.stringify), as a client would.
    const res = await send("POST", "/api/v1/tools/execute", { ...key(), ...JSON_TYPE }, JSON.stringify(body));
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ success: false, remaining_credits: null, error_message: `Invalid request: ${where}: ${unstorableMessage}` });
    const after = await database.db.select().from(executions).where(eq(executions.accountId, seed.accountId));
    expect(after.length).toBe(before.length);
    const events = await database.db.select().from(usageEvents).where(eq(usageEvents.accountId, seed.accountId));
    expect(events.filter((e) => e.requestPayload && JSON.stringify(e.requestPayload).includes("\\u0000"))).toEqual([]);
  });

  it("a Probe answers its own 400", async () => {
    const res = await send("POST", `/api/v1/tools/probe?tool_id=${COMPOUND}`, { ...key(), ...JSON_TYPE }, '{"parameters":{"principal":"\\u0000"}}');
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ status: "failure", status_code: 400, message: `Invalid probe request: body.parameters.principal: ${unstorableMessage}` });
  });

  it("OAuth answers 400 invalid_request", async () => {
    const res = await send(
      "POST",
      "/api/v1/oauth/token",
      { "Content-Type": "application/x-www-form-urlencoded" },
      "grant_type=refresh_token&refresh_token=abc&client_id=%00",
    );
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: "invalid_request", error_description: expect.stringContaining("client_id") });
  });

  it("well-formed text outside the BMP (a surrogate pair) is fine", async () => {
    const res = await send("POST", "/api/v1/search", { ...key(), ...JSON_TYPE }, JSON.stringify({ query: "😀 compound interest 复利" }));
    expect(res.status).toBe(200);
  });

  it("the ledger still balances", async () => {
    await assertLedgerInvariants(database.db, seed.accountId);
  });
});

describe("nesting and size", () => {
  const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

  it(`parameters nested past ${MAX_BODY_DEPTH} levels answer 422; at the limit they reach the tool's own validation`, async () => {
    const deep = await send("POST", "/api/v1/tools/execute", { ...key(), ...JSON_TYPE }, `{"tool_id":"${COMPOUND}","parameters":${nested(MAX_BODY_DEPTH + 5)}}`);
    expect(deep.status).toBe(422);
    expect(deep.json?.error_message).toContain(`Nested deeper than ${MAX_BODY_DEPTH} levels`);
    // 100,000 levels: never a stack overflow.
    const abyss = await send("POST", "/api/v1/search", { ...key(), ...JSON_TYPE }, `{"query":"x","x":${"[".repeat(100_000)}${"]".repeat(100_000)}}`);
    expect(abyss.status).toBeLessThan(500);
    const shallow = await send("POST", "/api/v1/tools/execute", { ...key(), ...JSON_TYPE }, `{"tool_id":"${COMPOUND}","parameters":${nested(MAX_BODY_DEPTH - 2)}}`);
    expect(shallow.status).toBe(422);
    expect(shallow.json?.error_message).not.toContain("Nested deeper");
  });

  it("a body over the limit answers 413 by its Content-Length, before it is read", async () => {
    const body = JSON.stringify({ query: "x".repeat(2 * 1024 * 1024) });
    const res = await send("POST", "/api/v1/search", { ...key(), ...JSON_TYPE }, body);
    expect(res.status).toBe(413);
    expect(res.json).toEqual({ status: "failure", status_code: 413, message: "Request body over the limit of 1048576 bytes" });
  });

  /** A chunked request (no Content-Length), as a streaming client sends it. */
  function chunked(path: string, chunks: string[]): Promise<{ status: number; text: string }> {
    const url = new URL(path, server.url);
    return new Promise((resolve, reject) => {
      const req = http.request(url, { method: "POST", headers: { ...key(), ...JSON_TYPE, "Transfer-Encoding": "chunked" } }, (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on("error", (err: NodeJS.ErrnoException) => (err.code === "EPIPE" || err.code === "ECONNRESET" ? undefined : reject(err)));
      for (const chunk of chunks) req.write(chunk);
      req.end();
    });
  }

  it("a chunked body is read up to the limit and no further (413), and under the limit it is served", async () => {
    const big = await chunked("/api/v1/search", ['{"query":"', ...Array.from({ length: 40 }, () => "y".repeat(64 * 1024)), '"}']);
    expect(big.status).toBe(413);
    const small = await chunked("/api/v1/search", ['{"query":"compound', ' interest"}']);
    expect(small.status).toBe(200);
    expect(JSON.parse(small.text).results.length).toBeGreaterThan(0);
  });
});
