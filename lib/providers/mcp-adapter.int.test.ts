import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { bearer, seedAccount } from "../testing/fixtures";
import { startTestMcpServer, type TestMcpServer } from "../testing/mcp-server";
import { closedPort } from "../testing/fake-upstream";
import { assertLedgerInvariants } from "../testing/invariants";
import { runCommand } from "../cli/commands";
import { importCatalog } from "../catalog/import";
import { invalidateToolCache } from "../catalog/get-tool";
import { defaultMcpProviderId, manifestFromMcpServer, manifestFromMcpTools } from "../catalog/mcp-import";
import { listMcpTools } from "./mcp-adapter";
import { tools, usageEvents } from "../db/schema";
import type { Database } from "../db/types";

let database: Database;
let server: TestServer;
let mcp: TestMcpServer;

beforeAll(async () => {
  database = await createTestDatabase();
  mcp = await startTestMcpServer();
  server = await startTestServer(database);
});

afterAll(() => mcp?.close());

async function call(apiKey: string, body: unknown) {
  const res = await fetch(`${server.url}/api/v1/tools/execute`, { method: "POST", headers: { ...bearer(apiKey), "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

describe("providers import --mcp", () => {
  it("converts each tool's JSON Schema input into params", async () => {
    const manifest = await manifestFromMcpServer(mcp.url, { providerId: "probe-mcp", allowPrivateNetwork: true });
    const [provider] = manifest.providers;
    expect(provider).toMatchObject({ id: "probe-mcp", transport: "mcp", base_url: mcp.url, allow_private_network: true });
    const byId = Object.fromEntries(provider.tools.map((t) => [t.id, t]));
    expect(Object.keys(byId).sort()).toEqual(["probe-mcp.add", "probe-mcp.echo", "probe-mcp.fail", "probe-mcp.nothing"]);
    expect(byId["probe-mcp.add"]).toMatchObject({
      name: "add",
      description: "Adds two numbers.",
      billing_rule: { unit: "free", amount_credits: 0 },
      execution: { mcp_tool: "add" },
      params: [
        { name: "a", type: "number", required: true, description: "First addend" },
        { name: "b", type: "number", required: true, description: "Second addend" },
      ],
    });
    const echo = Object.fromEntries(byId["probe-mcp.echo"].params.map((p) => [p.name, p]));
    expect(echo.text).toMatchObject({ type: "string", required: true, max_length: 200 });
    expect(echo.times).toMatchObject({ type: "integer", required: false, minimum: 1, maximum: 5 });
    expect(echo.style).toMatchObject({ type: "string", enum: ["plain", "shout"] });
    expect(echo.tags).toMatchObject({ type: "array", items: { type: "string" } });
    expect(byId["probe-mcp.nothing"].params).toEqual([]);
  });

  it("maps nullable unions, untyped enums, objects, defaults and one-of-required groups", () => {
    const manifest = manifestFromMcpTools("https://mcp.example.com/mcp", [
      {
        name: "weird tool/name",
        inputSchema: {
          type: "object",
          properties: {
            maybe: { anyOf: [{ type: "integer" }, { type: "null" }], description: "nullable" },
            level: { enum: [1, 2, 3], default: 2 },
            filter: { type: "object", properties: { field: {}, op: {} } },
            ids: { type: "array", items: { type: "string", enum: ["x", "y"] }, maxItems: 3 },
            bad_default: { type: "string", default: 5 },
            anything: {},
          },
          anyOf: [{ required: ["maybe"] }, { required: ["ids"] }],
        } as never,
      },
    ]);
    const [tool] = manifest.providers[0].tools;
    expect(manifest.providers[0].id).toBe(defaultMcpProviderId("https://mcp.example.com/mcp"));
    expect(manifest.providers[0].id).toBe("mcp-mcp.example.com-443");
    expect(tool.id).toBe("mcp-mcp.example.com-443.weird_tool_name");
    const p = Object.fromEntries(tool.params.map((x) => [x.name, x]));
    expect(p.maybe).toMatchObject({ type: "integer", description: "nullable" });
    expect(p.level).toMatchObject({ type: "integer", enum: [1, 2, 3], default: 2 });
    expect(p.filter).toMatchObject({ type: "object", properties: ["field", "op"] });
    expect(p.ids).toMatchObject({ type: "array", items: { type: "string", enum: ["x", "y"] }, max_length: 3 });
    expect(p.bad_default.default).toBeUndefined();
    expect(p.anything.type).toBe("string");
    expect(tool.one_of_required).toEqual([["maybe", "ids"]]);
  });

  it("refuses a loopback server without --allow-private-network", async () => {
    await expect(listMcpTools(mcp.url)).rejects.toThrow(/non-public address 127\.0\.0\.1/);
    await expect(runCommand(database.db, ["providers", "import", "--mcp", mcp.url])).rejects.toThrow(/non-public address/);
  });

  it("imports through the CLI command, priced per call with --price", async () => {
    const result = await runCommand(database.db, ["providers", "import", "--mcp", mcp.url, "--provider-id", "test-mcp", "--price", "1", "--allow-private-network"]);
    expect(result).toEqual({ providers: 1, tools: 4, added: 4, changed: 0, unchanged: 0, retired: 0 });
    const imported = await database.db.select().from(tools).where(eq(tools.providerId, "test-mcp"));
    expect(imported.map((t) => t.id).sort()).toEqual(["test-mcp.add", "test-mcp.echo", "test-mcp.fail", "test-mcp.nothing"]);
    expect(imported[0].billingRule).toEqual({ unit: "call", amount_credits: 1 });
    await expect(runCommand(database.db, ["providers", "import", "--mcp", "ftp://x"])).rejects.toThrow(/http\(s\) URL/);
    await expect(runCommand(database.db, ["providers", "import", "--mcp", mcp.url, "--price", "-1"])).rejects.toThrow(/--price/);
    invalidateToolCache(database.db);
  });
});

describe("Call through an MCP provider", () => {
  it("calls the tool on the MCP server and charges per its billing rule", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const before = mcp.calls.add ?? 0;
    const { status, body } = await call(a.apiKey, { tool_id: "test-mcp.add", parameters: { a: 2, b: 3 } });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ success: true, result: { data: { sum: 5 } }, cost: 1, remaining_credits: 4, execution_outcome: { reason_code: "result.valid", charge_outcome: "charged" } });
    expect(mcp.calls.add).toBe(before + 1);
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("passes enum and array arguments; plain text results become {text}", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const { body } = await call(a.apiKey, { tool_id: "test-mcp.echo", parameters: { text: "hi", times: 2, style: "shout", tags: ["a", "b"] } });
    expect(body).toMatchObject({ success: true, result: { data: { text: "HI HI [a,b]" } } });
  });

  it("an MCP tool error is provider.error, failed_not_charged", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const { status, body } = await call(a.apiKey, { tool_id: "test-mcp.fail", parameters: { reason: "test" } });
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: false, cost: 0, result: { data: {} }, remaining_credits: 5, execution_outcome: { reason_code: "provider.error", charge_outcome: "failed_not_charged" } });
    expect(body.error_message).toMatch(/failed on purpose: test/);
    const [event] = await database.db.select().from(usageEvents).where(eq(usageEvents.executionId, body.execution_id));
    expect(event).toMatchObject({ reasonCode: "provider.error", chargeOutcome: "failed_not_charged", creditsLedgerEntryId: null });
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("a tool that returns no content is result.empty, not charged", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const { body } = await call(a.apiKey, { tool_id: "test-mcp.nothing", parameters: {} });
    expect(body).toMatchObject({ success: false, cost: 0, execution_outcome: { reason_code: "result.empty", charge_outcome: "failed_not_charged" } });
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("invalid arguments are refused by the gateway (422) before the MCP server is called", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const before = mcp.calls.add ?? 0;
    const { status, body } = await call(a.apiKey, { tool_id: "test-mcp.add", parameters: { a: "two" } });
    expect(status).toBe(422);
    expect(body.details.map((d: { loc: string[] }) => d.loc.at(-1)).sort()).toEqual(["a", "b"]);
    expect(mcp.calls.add ?? 0).toBe(before);
  });

  it("a free MCP import is included; the SSRF guard refuses an MCP provider that is not allow-listed", async () => {
    const listed = await listMcpTools(mcp.url, { allowPrivateNetwork: true });
    await importCatalog(database.db, manifestFromMcpTools(mcp.url, listed, { providerId: "free-mcp", allowPrivateNetwork: true }));
    await importCatalog(database.db, manifestFromMcpTools(mcp.url, listed, { providerId: "guarded-mcp", allowPrivateNetwork: false }));
    invalidateToolCache(database.db);
    const a = await seedAccount(database.db, { credits: "1" });

    const free = await call(a.apiKey, { tool_id: "free-mcp.add", parameters: { a: 1, b: 1 } });
    expect(free.body).toMatchObject({ success: true, cost: 0, result: { data: { sum: 2 } }, execution_outcome: { charge_outcome: "included" } });

    const before = mcp.calls.add ?? 0;
    const guarded = await call(a.apiKey, { tool_id: "guarded-mcp.add", parameters: { a: 1, b: 1 } });
    expect(guarded.body).toMatchObject({ success: false, cost: 0, execution_outcome: { reason_code: "transport.execution_failed", charge_outcome: "failed_not_charged" } });
    expect(guarded.body.error_message).toMatch(/non-public address/);
    expect(mcp.calls.add).toBe(before);
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("an MCP server that cannot be reached is transport.no_response", async () => {
    const listed = await listMcpTools(mcp.url, { allowPrivateNetwork: true });
    const down = `http://127.0.0.1:${await closedPort()}/mcp`;
    await importCatalog(database.db, manifestFromMcpTools(down, listed, { providerId: "down-mcp", allowPrivateNetwork: true }));
    invalidateToolCache(database.db);
    const a = await seedAccount(database.db, { credits: "1" });
    const { body } = await call(a.apiKey, { tool_id: "down-mcp.add", parameters: { a: 1, b: 1 } });
    expect(body).toMatchObject({ success: false, cost: 0, execution_outcome: { reason_code: "transport.no_response", charge_outcome: "failed_not_charged" } });
  });
});
