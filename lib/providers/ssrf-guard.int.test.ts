import http from "node:http";
import os from "node:os";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { bearer, seedAccount } from "../testing/fixtures";
import { importManifest } from "../testing/catalog";
import { fakeTool, fakeUpstreamManifest } from "../testing/fake-upstream";
import { assertLedgerInvariants } from "../testing/invariants";
import type { ManifestInput } from "../catalog/manifest";
import type { Database } from "../db/types";
import { listMcpTools } from "./mcp-adapter";

// The operator's allow-list (read once, when the environment is first parsed).
process.env.ALLOW_PRIVATE_UPSTREAMS = "own-host-listed";

/** This host's first non-loopback IPv4 address: what a server listening on every interface answers on. */
const hostAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && a.family === "IPv4" && !a.internal)?.address;

let database: Database;
let server: TestServer;
let upstream: http.Server;
let upstreamUrl: string;
const seen: string[] = [];

async function call(apiKey: string, toolId: string) {
  const res = await fetch(`${server.url}/api/v1/tools/execute`, {
    method: "POST",
    headers: { ...bearer(apiKey), "content-type": "application/json" },
    body: JSON.stringify({ tool_id: toolId, parameters: { city: "Oslo" } }),
  });
  return { status: res.status, body: await res.json() };
}

function mcpManifest(id: string, url: string): ManifestInput {
  const tool = { id: `${id}.add`, name: "Add", description: "Adds", params: [{ name: "city", type: "string" as const, description: "A city" }], billing_rule: { unit: "call" as const, amount_credits: 1 }, execution: { mcp_tool: "add" } };
  return { providers: [{ id, name: "MCP", transport: "mcp", base_url: url, tools: [tool] }] };
}

beforeAll(async () => {
  database = await createTestDatabase();
  // An upstream listening on every interface, as a service on the gateway's own host might.
  upstream = http.createServer((req, res) => {
    seen.push(req.url ?? "");
    if (req.url?.startsWith("/redirect")) return res.writeHead(302, { location: `${upstreamUrl}/ok?city=Oslo` }).end();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: { city: "Oslo" } }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, "0.0.0.0", resolve));
  const port = (upstream.address() as AddressInfo).port;
  upstreamUrl = `http://${hostAddress ?? "127.0.0.1"}:${port}`;
  await importManifest(database.db, fakeUpstreamManifest("http://203.0.113.7:9", { providerId: "doc-net", allowPrivateNetwork: false }));
  await importManifest(database.db, fakeUpstreamManifest("http://[64:ff9b::a9fe:a9fe]:9", { providerId: "nat64-metadata", allowPrivateNetwork: false }));
  await importManifest(database.db, fakeUpstreamManifest(upstreamUrl, { providerId: "own-host", allowPrivateNetwork: false }));
  await importManifest(database.db, fakeUpstreamManifest(upstreamUrl, { providerId: "own-host-allowed", allowPrivateNetwork: true }));
  await importManifest(database.db, fakeUpstreamManifest(upstreamUrl, { providerId: "own-host-listed", allowPrivateNetwork: false }));
  await importManifest(database.db, fakeUpstreamManifest(`http://127.0.0.1:${port}/redirect`, { providerId: "redirector", allowPrivateNetwork: true }));
  await importManifest(database.db, mcpManifest("doc-net-mcp", "http://198.51.100.20:9/mcp"));
  server = await startTestServer(database);
});

afterAll(() => new Promise<void>((resolve) => (upstream.closeAllConnections(), upstream.close(() => resolve()))));

describe("Call: outbound requests reach only public addresses", () => {
  it.each([
    ["doc-net", /non-public address 203\.0\.113\.7 \(reserved\)/],
    ["nat64-metadata", /non-public address 64:ff9b::a9fe:a9fe \(rfc6052 of 169\.254\.169\.254: linkLocal\)/],
  ])("an http provider at a refused address (%s) fails honestly: transport.execution_failed, not charged", async (provider, message) => {
    const a = await seedAccount(database.db, { credits: "5" });
    const { status, body } = await call(a.apiKey, fakeTool(provider, "ok"));
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: false, cost: 0, remaining_credits: 5, execution_outcome: { reason_code: "transport.execution_failed", charge_outcome: "failed_not_charged" } });
    expect(body.error_message).toMatch(message);
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it.runIf(hostAddress)("the host's own address is refused, though a service listens there, unless the operator allowed the provider", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const before = seen.length;
    const refused = await call(a.apiKey, fakeTool("own-host", "ok"));
    expect(refused.body).toMatchObject({ success: false, cost: 0, execution_outcome: { reason_code: "transport.execution_failed", charge_outcome: "failed_not_charged" } });
    expect(refused.body.error_message).toMatch(new RegExp(`non-public address ${hostAddress!.replace(/\./g, "\\.")}`));
    expect(seen.length).toBe(before);

    // The manifest's allow_private_network and ALLOW_PRIVATE_UPSTREAMS still open it.
    for (const provider of ["own-host-allowed", "own-host-listed"]) {
      const allowed = await call(a.apiKey, fakeTool(provider, "ok"));
      expect(allowed.body, provider).toMatchObject({ success: true, cost: 1, result: { data: { city: "Oslo" } } });
    }
    expect(seen.length).toBe(before + 2);
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("a redirect is the provider's answer, never followed: provider.http_error, not charged, the target never asked", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const before = seen.filter((p) => p.startsWith("/ok")).length;
    const { body } = await call(a.apiKey, fakeTool("redirector", "ok"));
    expect(body).toMatchObject({ success: false, cost: 0, execution_outcome: { reason_code: "provider.http_error", charge_outcome: "failed_not_charged" } });
    expect(body.error_message).toMatch(/HTTP 302/);
    expect(seen.filter((p) => p.startsWith("/ok")).length).toBe(before);
  });

  it("an MCP provider at a refused address fails the same way, and its tools cannot be listed", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const { body } = await call(a.apiKey, "doc-net-mcp.add");
    expect(body).toMatchObject({ success: false, cost: 0, execution_outcome: { reason_code: "transport.execution_failed", charge_outcome: "failed_not_charged" } });
    expect(body.error_message).toMatch(/non-public address 198\.51\.100\.20 \(reserved\)/);
    await expect(listMcpTools("http://[fd00::2]:9/mcp")).rejects.toThrow(/non-public address fd00::2 \(uniqueLocal\)/);
    await expect(listMcpTools("http://[2001:db8::1]:9/mcp")).rejects.toThrow(/non-public address 2001:db8::1 \(reserved\)/);
  });
});
