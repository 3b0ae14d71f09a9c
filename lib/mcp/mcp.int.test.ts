// Tollgate's MCP endpoint driven by the SDK's own client over Streamable HTTP, against the real API
// server and database: the four tools, their schemas and annotations, money and audit exactly as
// REST, and contract errors as tool results with isError.
import { beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createTestDatabase } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { bearer, seedAccount } from "../testing/fixtures";
import { importDemoCatalog, importManifest } from "../testing/catalog";
import { fakeTool, fakeUpstreamManifest, startFakeUpstream } from "../testing/fake-upstream";
import { verifyLedger } from "../audit/verify";
import { creditBalances, creditsLedger, usageEvents } from "../db/schema";
import type { Database } from "../db/types";
import * as oauth from "oauth4webapi";
import { registerClient, startOAuthHarness } from "../testing/oauth";
import { issueAccessToken } from "../auth/jwt";
import { apiAudience } from "../auth/issuer";
import { ACCESS_TOKEN_TYPE } from "../oauth/token-exchange";

const COMPOUND = "builtin.finance.compound_interest";
const PARAMS = { principal: 100, annual_rate_percent: 5, years: 2 };

let database: Database;
let server: TestServer;

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  server = await startTestServer(database);
});

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: "tollgate-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/v1/mcp`), { requestInit: { headers: bearer(token) } }));
  // The client validates every structured answer against the tool's outputSchema once it has listed them.
  await client.listTools();
  return client;
}

type Structured = Record<string, unknown> & { results?: Record<string, unknown>[] };
async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; data: Structured }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = JSON.parse((result.content[0] as { text: string }).text) as Structured;
  // Success: structured content, and the same JSON as text; an error: its JSON as text only.
  if (result.isError) expect(result.structuredContent).toBeUndefined();
  else expect(result.structuredContent).toEqual(text);
  return { isError: result.isError === true, data: text };
}

async function balance(accountId: string): Promise<number> {
  const [row] = await database.db.select().from(creditBalances).where(eq(creditBalances.accountId, accountId));
  return Number(row.paidCredits) + Number(row.bonusCredits) + Number(row.rewardCredits);
}

describe("MCP: connecting", () => {
  it("without a credential answers 401 naming the protected-resource metadata, which names the authorization server", async () => {
    const res = await fetch(`${server.url}/api/v1/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } }),
    });
    expect(res.status).toBe(401);
    const challenge = res.headers.get("www-authenticate") ?? "";
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).toMatch(/\/\.well-known\/oauth-protected-resource$/);
    expect(await res.json()).toMatchObject({ status: "failure", status_code: 401 });
    const metadata = await (await fetch(`${server.url}${new URL(metadataUrl!).pathname}`)).json();
    expect(metadata).toMatchObject({ resource: expect.stringMatching(/\/api\/v1$/), authorization_servers: [expect.any(String)], bearer_methods_supported: ["header"] });
    expect(metadata.scopes_supported).toContain("tools:execute");
  });

  it("lists four tools with input and output schemas; discover, inspect and probe are read-only", async () => {
    const a = await seedAccount(database.db);
    const client = await connect(a.apiKey);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["call", "discover", "inspect", "probe"]);
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(40);
      expect(t.inputSchema.type).toBe("object");
      expect(t.outputSchema?.type).toBe("object");
      expect(t.annotations?.readOnlyHint).toBe(t.name !== "call");
    }
    expect(tools.find((t) => t.name === "call")!.inputSchema.required).toEqual(["tool_id", "parameters"]);
    expect(Object.keys(tools.find((t) => t.name === "call")!.inputSchema.properties ?? {})).toContain("model");
    // The four tools never change, and the server says so (docs/mcp.md: it never sends list_changed).
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    await client.close();
  });

  it("each tool needs its REST operation's scope: tools:read to discover, inspect and probe; tools:execute to call", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const token = async (scope: string) => (await issueAccessToken(database.db, { userId: a.userId, accountId: a.accountId, role: "owner", scope, ttlSeconds: 600 })).accessToken;
    const executeOnly = await connect(await token("tools:execute"));
    for (const [name, args] of [["discover", { query: "temperature" }], ["inspect", { tool_ids: [COMPOUND] }], ["probe", { tool_id: COMPOUND, parameters: PARAMS }]] as const) {
      const refused = await tool(executeOnly, name, args);
      expect(refused, name).toMatchObject({ isError: true, data: { reason_code: "insufficient_scope", error_message: expect.stringContaining("lacks the tools:read scope") } });
    }
    await executeOnly.close();
    // Neither scope: the endpoint itself is refused, 403 insufficient_scope naming both.
    const res = await fetch(`${server.url}/api/v1/mcp`, {
      method: "POST",
      headers: { ...bearer(await token("usage:read")), "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toContain('error="insufficient_scope", scope="tools:read tools:execute"');
  });

  it("call records the model the agent names", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const client = await connect(a.apiKey);
    const called = await tool(client, "call", { tool_id: COMPOUND, parameters: PARAMS, model: "claude-test-model" });
    expect(called.isError).toBe(false);
    await client.close();
    const [event] = await database.db.select().from(usageEvents).where(eq(usageEvents.executionId, called.data.execution_id as string));
    expect(event.model).toBe("claude-test-model");
  });
});

describe("MCP: discover → inspect → probe → call, metered exactly as REST", () => {
  it("a priced builtin Call charges 1 credit with its usage event and ledger row, like the same Call over REST", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const client = await connect(a.apiKey);

    const found = await tool(client, "discover", { query: "compound interest on savings", limit: 5 });
    expect(found.isError).toBe(false);
    const card = found.data.results!.find((r) => r.tool_id === COMPOUND);
    expect(card).toMatchObject({ cost_class: "low", capability: expect.any(String) });
    expect(found.data.search_id).toMatch(/^srch_/);

    const inspected = await tool(client, "inspect", { tool_ids: [COMPOUND], search_id: found.data.search_id });
    expect(inspected.data.results![0]).toMatchObject({ tool_id: COMPOUND, params: expect.any(Array) });

    const probed = await tool(client, "probe", { tool_id: COMPOUND, parameters: PARAMS });
    expect(probed.data).toMatchObject({ schema: { valid: true }, quote: { estimate_credits: 1 }, executed: false, charged: false });

    const called = await tool(client, "call", { tool_id: COMPOUND, parameters: PARAMS, search_id: found.data.search_id });
    expect(called.isError).toBe(false);
    expect(called.data).toMatchObject({ success: true, cost: 1, remaining_credits: 4, execution_id: expect.stringMatching(/^exe_/) });
    await client.close();

    // The same Call over REST: the same result and the same charge.
    const rest = await fetch(`${server.url}/api/v1/tools/execute`, { method: "POST", headers: { ...bearer(a.apiKey), "Content-Type": "application/json" }, body: JSON.stringify({ tool_id: COMPOUND, parameters: PARAMS }) });
    const restBody = await rest.json();
    expect(restBody.result).toEqual(called.data.result);
    expect(restBody).toMatchObject({ cost: 1, remaining_credits: 3 });
    expect(await balance(a.accountId)).toBe(3);

    const [event] = await database.db.select().from(usageEvents).where(and(eq(usageEvents.accountId, a.accountId), eq(usageEvents.executionId, called.data.execution_id as string)));
    expect(event).toMatchObject({ chargeOutcome: "charged", reasonCode: "result.valid", searchId: found.data.search_id });
    const [row] = await database.db.select().from(creditsLedger).where(eq(creditsLedger.id, event.creditsLedgerEntryId!));
    expect(Number(row.amountCredits)).toBe(-1);
    expect(row.executionId).toBe(called.data.execution_id);
    expect((await verifyLedger(database.db, { accountId: a.accountId })).violations).toEqual([]);

    // The usage history tells the channels apart: the MCP discover, inspect and call, and the REST Call.
    const history = async (channel: string) =>
      ((await (await fetch(`${server.url}/api/v1/auth/usage/history/v2?channel=${channel}`, { headers: bearer(a.accessToken) })).json()).data.items as { event_type: string; channel: string }[])
        .map((i) => `${i.channel} ${i.event_type}`)
        .sort();
    expect(await history("mcp")).toEqual(["mcp search", "mcp search_by_ids", "mcp tool_execute"]);
    expect(await history("api")).toEqual(["api tool_execute"]);
  });
});

describe("MCP: an http tool", () => {
  it("reaches its provider through call, reserves and settles like REST", async () => {
    const upstream = await startFakeUpstream();
    try {
      await importManifest(database.db, fakeUpstreamManifest(upstream.url, { providerId: "mcp-http" }));
      const a = await seedAccount(database.db, { credits: "3" });
      const client = await connect(a.apiKey);
      const { isError, data } = await tool(client, "call", { tool_id: fakeTool("mcp-http", "ok"), parameters: { city: "Lyon" } });
      expect(isError).toBe(false);
      expect(data).toMatchObject({ success: true, cost: 1, remaining_credits: 2, result: { data: { city: "Lyon" } } });
      expect(upstream.count("/ok")).toBe(1);
      // An upstream failure is the Call's: its reason code, not charged.
      const failed = await tool(client, "call", { tool_id: fakeTool("mcp-http", "server_error"), parameters: { city: "Lyon" } });
      expect(failed).toMatchObject({ isError: true, data: { success: false, reason_code: "provider.http_error", cost: 0 } });
      expect(await balance(a.accountId)).toBe(2);
      expect((await verifyLedger(database.db, { accountId: a.accountId })).violations).toEqual([]);
      await client.close();
    } finally {
      await upstream.close();
    }
  });
});

describe("MCP: contract errors are tool results with isError, in REST's words", () => {
  it("402 without credits: nothing executed or charged", async () => {
    const a = await seedAccount(database.db, { credits: "0" });
    const client = await connect(a.apiKey);
    const { isError, data } = await tool(client, "call", { tool_id: COMPOUND, parameters: PARAMS });
    expect(isError).toBe(true);
    expect(data).toMatchObject({ success: false, reason_code: "billing.insufficient_credits", error_message: expect.stringMatching(/credit/i) });
    expect(await balance(a.accountId)).toBe(0);
    await client.close();
  });

  it("invalid parameters are refused before execution (validation_error), as REST's 422", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const client = await connect(a.apiKey);
    const { isError, data } = await tool(client, "call", { tool_id: COMPOUND, parameters: { principal: -1 } });
    expect(isError).toBe(true);
    expect(data).toMatchObject({ success: false, reason_code: "validation_error", error_message: expect.stringContaining("principal") });
    expect(await balance(a.accountId)).toBe(5);
    await client.close();
  });

  it("max_cost below the quote refuses the Call before anything runs", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const client = await connect(a.apiKey);
    const { isError, data } = await tool(client, "call", { tool_id: COMPOUND, parameters: PARAMS, max_cost: 0.5 });
    expect(isError).toBe(true);
    expect(data).toMatchObject({ reason_code: "billing.max_cost_exceeded", quote: { estimate_credits: 1 } });
    expect(await balance(a.accountId)).toBe(5);
    expect(await database.db.select().from(usageEvents).where(and(eq(usageEvents.accountId, a.accountId), eq(usageEvents.eventType, "tool_execute")))).toEqual([]);
    await client.close();
  });

  it("a user's access token discovers but does not call (the REST rule), and the rate limit shares REST's bucket", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const client = await connect(a.accessToken);
    expect((await tool(client, "discover", { query: "temperature" })).isError).toBe(false);
    const refused = await tool(client, "call", { tool_id: COMPOUND, parameters: PARAMS });
    expect(refused).toMatchObject({ isError: true, data: { reason_code: "unauthorized" } });
    await client.close();

    // 120 searches a minute per account, over REST and MCP together.
    const rest = await Promise.all(Array.from({ length: 119 }, () => fetch(`${server.url}/api/v1/search`, { method: "POST", headers: { ...bearer(a.apiKey), "Content-Type": "application/json" }, body: JSON.stringify({ query: "x" }) }).then((r) => r.status)));
    expect(rest.filter((s) => s === 200)).toHaveLength(119);
    const viaKey = await connect(a.apiKey);
    const limited = await tool(viaKey, "discover", { query: "temperature" });
    expect(limited).toMatchObject({ isError: true, data: { reason_code: "rate_limited" } });
    await viaKey.close();
  });
});

describe("MCP: an agent's delegation token", () => {
  it("works through MCP and its max_credits holds under 50 concurrent calls", async () => {
    const h = await startOAuthHarness(database);
    const runtime = await registerClient(database.db, { name: "MCP agent runtime", type: "confidential", agentRuntime: true });
    const user = await seedAccount(database.db, { credits: "100" });
    const subject = (await issueAccessToken(database.db, { userId: user.userId, accountId: user.accountId, role: "owner", scope: "tools:read tools:execute", ttlSeconds: 600 })).accessToken;
    const params = [
      ["subject_token", subject],
      ["subject_token_type", ACCESS_TOKEN_TYPE],
      ["resource", apiAudience()],
      ["scope", "tools:execute"],
      ["max_credits", "7"],
      ["tool_ids", COMPOUND],
    ];
    const tokens = await oauth
      .genericTokenEndpointRequest(h.as, runtime.client, runtime.auth, "urn:ietf:params:oauth:grant-type:token-exchange", params, h.http)
      .then((res) => oauth.processGenericTokenEndpointResponse(h.as, runtime.client, res));

    const clients = await Promise.all(Array.from({ length: 5 }, () => connect(tokens.access_token)));
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => tool(clients[i % 5], "call", { tool_id: COMPOUND, parameters: { ...PARAMS, years: 1 + (i % 10) } })));
    expect(outcomes.filter((o) => !o.isError)).toHaveLength(7);
    expect(outcomes.filter((o) => o.isError).every((o) => o.data.success === false && typeof o.data.error_message === "string")).toBe(true);
    expect(await balance(user.accountId)).toBe(93);
    // A tool outside the delegation is refused, as over REST.
    const other = await tool(clients[0], "call", { tool_id: "builtin.text.slugify", parameters: { text: "Hello World" } });
    expect(other).toMatchObject({ isError: true, data: { success: false } });
    await Promise.all(clients.map((c) => c.close()));
    expect((await verifyLedger(database.db, { accountId: user.accountId })).violations).toEqual([]);
  });
});

describe("MCP: direct mode (the catalog's tools themselves)", () => {
  it("an unknown source answers 404 naming it instead of an empty tool list", async () => {
    const a = await seedAccount(database.db, { credits: "0" });
    const res = await fetch(`${server.url}/api/v1/mcp?tools=direct&source=no-such-source`, {
      method: "POST",
      headers: { ...bearer(a.apiKey), "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ status: "failure", status_code: 404, message: expect.stringContaining('"no-such-source"') });
  });

  it("lists a source's tools 100 a page with MCP-safe names, and calls them like Call", async () => {
    const tools = Array.from({ length: 130 }, (_, i) => ({
      id: `direct-src.tool:${String(i).padStart(3, "0")}`,
      name: `Direct tool ${i}`,
      description: `Catalog-only tool number ${i}`,
      params: [{ name: "x", type: "integer", required: true, description: "A number" }],
    }));
    await importManifest(database.db, { providers: [{ id: "direct-src", name: "Direct source", transport: "none", source: "direct-test", tools }] } as never);
    const a = await seedAccount(database.db, { credits: "5" });
    const client = new Client({ name: "direct", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/v1/mcp?tools=direct&source=direct-test`), { requestInit: { headers: bearer(a.apiKey) } }));
    const first = await client.listTools();
    expect(first.tools).toHaveLength(100);
    expect(first.nextCursor).toBeTruthy();
    const second = await client.listTools({ cursor: first.nextCursor });
    expect(second.tools).toHaveLength(30);
    expect(second.nextCursor).toBeUndefined();
    const names = [...first.tools, ...second.tools].map((t) => t.name);
    expect(new Set(names).size).toBe(130);
    for (const n of names) expect(n).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
    const t0 = first.tools.find((t) => t.title === "Direct tool 0")!;
    expect(t0).toMatchObject({ name: "direct-src.tool_000", inputSchema: { type: "object", properties: { x: { type: "integer" } }, required: ["x"] } });
    expect(t0.description).toContain("Price: Free");
    // A catalog-only tool has no upstream: the REST answer, as a tool error.
    const called = (await client.callTool({ name: t0.name, arguments: { x: 1 } })) as CallToolResult;
    expect(called.isError).toBe(true);
    expect(JSON.parse((called.content[0] as { text: string }).text)).toMatchObject({ success: false, reason_code: "tool_unavailable" });
    await expect(client.listTools({ cursor: "not-a-cursor!" })).rejects.toThrow(/cursor/i);
    await client.close();
  });

  it("calls a priced builtin by its listed name: charged, recorded on the mcp channel", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const client = new Client({ name: "direct", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/v1/mcp?tools=direct`), { requestInit: { headers: bearer(a.apiKey) } }));
    let cursor: string | undefined;
    const all: string[] = [];
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined);
      all.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor);
    expect(all).toContain(COMPOUND);
    const result = (await client.callTool({ name: COMPOUND, arguments: PARAMS })) as CallToolResult;
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ success: true, cost: 1, remaining_credits: 4 });
    const [event] = await database.db.select().from(usageEvents).where(and(eq(usageEvents.accountId, a.accountId), eq(usageEvents.eventType, "tool_execute")));
    expect(event).toMatchObject({ channel: "mcp", chargeOutcome: "charged" });
    await client.close();
  });

  it("an unknown mode is a 400", async () => {
    const a = await seedAccount(database.db);
    const res = await fetch(`${server.url}/api/v1/mcp?tools=everything`, { method: "POST", headers: { ...bearer(a.apiKey), "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, body: "{}" });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ status: "failure", status_code: 400, message: expect.stringContaining("meta") });
  });
});
