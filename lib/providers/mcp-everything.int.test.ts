// Calls through an MCP provider, against the official reference server
// (@modelcontextprotocol/server-everything, Streamable HTTP, started by this test): every content
// block a tool returns reaches the caller — images with their mimeType, resource links,
// structured content — and is charged only when delivered.
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { bearer, seedAccount } from "../testing/fixtures";
import { importCatalog } from "../catalog/import";
import { manifestFromMcpServer } from "../catalog/mcp-import";
import { invalidateToolCache } from "../catalog/get-tool";
import { freeLoopbackPort } from "../testing/services";
import type { Database } from "../db/types";

const PROVIDER = "everything";
let database: Database;
let server: TestServer;
let everything: ChildProcess;
let tinyImage: string;

beforeAll(async () => {
  const entry = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json");
  const dir = path.dirname(entry);
  tinyImage = ((await import(path.join(dir, "dist/tools/get-tiny-image.js"))) as { MCP_TINY_IMAGE: string }).MCP_TINY_IMAGE;
  const port = await freeLoopbackPort();
  everything = spawn(process.execPath, [path.join(dir, "dist/index.js"), "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("server-everything did not start within 20 s")), 20_000);
    everything.stderr!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("listening")) {
        clearTimeout(timer);
        resolve();
      }
    });
    everything.once("exit", (code) => reject(new Error(`server-everything exited (${code})`)));
  });
  database = await createTestDatabase();
  const manifest = await manifestFromMcpServer(`http://127.0.0.1:${port}/mcp`, { providerId: PROVIDER, priceCredits: 1, allowPrivateNetwork: true });
  await importCatalog(database.db, manifest);
  invalidateToolCache(database.db);
  server = await startTestServer(database);
}, 60_000);

afterAll(() => {
  everything?.kill("SIGTERM");
});

async function call(apiKey: string, tool: string, parameters: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const res = await fetch(`${server.url}/api/v1/tools/execute`, {
    method: "POST",
    headers: { ...bearer(apiKey), "content-type": "application/json" },
    body: JSON.stringify({ tool_id: `${PROVIDER}.${tool}`, parameters, ...extra }),
  });
  return { status: res.status, body: await res.json() };
}

describe("an MCP provider's content blocks (server-everything)", () => {
  it("get-tiny-image: the image arrives with its mimeType and data beside the texts, charged 1 credit", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const { status, body } = await call(a.apiKey, "get-tiny-image", {}, { max_response_size: -1 });
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, cost: 1, remaining_credits: 4 });
    const blocks = body.result.data.content as { type: string; mimeType?: string; data?: string; text?: string }[];
    expect(blocks.map((b) => b.type)).toEqual(["text", "image", "text"]);
    expect(blocks[1]).toMatchObject({ type: "image", mimeType: "image/png", data: tinyImage });
  });

  it("a large image goes through the truncation path: its full content behind the signed URL", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const { body } = await call(a.apiKey, "get-tiny-image", {}, { max_response_size: 1000 });
    expect(body).toMatchObject({ success: true, cost: 1 });
    const full = await (await fetch(`${server.url}${new URL(body.result.full_content_file_url).pathname}${new URL(body.result.full_content_file_url).search}`)).json();
    expect(full.content[1]).toMatchObject({ type: "image", mimeType: "image/png", data: tinyImage });
  });

  it("get-structured-content: the structured content is the result's data", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const { body } = await call(a.apiKey, "get-structured-content", { location: "Chicago" });
    expect(body).toMatchObject({ success: true, cost: 1 });
    expect(body.result.data).toEqual({ temperature: expect.any(Number), conditions: expect.any(String), humidity: expect.any(Number) });
  });

  it("get-resource-links: resource links are kept as blocks", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    const { body } = await call(a.apiKey, "get-resource-links", { count: 2 });
    expect(body).toMatchObject({ success: true });
    const links = (body.result.data.content as { type: string; uri?: string }[]).filter((b) => b.type === "resource_link");
    expect(links).toHaveLength(2);
    for (const l of links) expect(l.uri).toMatch(/^demo:\/\//);
  });

  it("echo and get-sum answer; bad parameters are refused before the server is called, uncharged", async () => {
    const a = await seedAccount(database.db, { credits: "5" });
    expect((await call(a.apiKey, "echo", { message: "hi" })).body).toMatchObject({ success: true, cost: 1 });
    expect((await call(a.apiKey, "get-sum", { a: 2, b: 3 })).body).toMatchObject({ success: true, cost: 1 });
    const bad = await call(a.apiKey, "get-sum", { a: "two", b: 3 });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ success: false, remaining_credits: 3 });
  });
});
