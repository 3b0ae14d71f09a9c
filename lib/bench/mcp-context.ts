// npm run bench:mcp — how much of an agent's context Tollgate's MCP tools take: `tools/list` in
// meta mode (discover, inspect, probe, call) beside what listing every catalog tool as an MCP tool
// (direct mode, every page of `?tools=direct`) sends, for the whole public catalog; plus one
// discover and one inspect answer.
import path from "node:path";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { openDatabase } from "../db/open";
import { migrateDatabase } from "../db/migrate";
import { importCatalog } from "../catalog/import";
import { loadManifestFile } from "../catalog/load";
import { createAccount } from "../accounts/create-account";
import { createApiKey } from "../auth/api-keys";
import { createApiApp } from "../api/app";
import { DEMO_CATALOG } from "../seed/seed-demo";

const CATALOG = process.env.BENCH_CATALOG ?? path.resolve(process.cwd(), "../shared/catalog/tools.jsonl");
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
/** A rough token count for English JSON (about 4 bytes a token); the ratio between modes is what matters. */
const tokens = (n: number) => Math.round(n / 4);

async function main() {
  const database = await openDatabase({ kind: "pglite" });
  await migrateDatabase(database);
  await importCatalog(database.db, await loadManifestFile(DEMO_CATALOG));
  await importCatalog(database.db, await loadManifestFile(CATALOG));
  const { account_id } = await createAccount(database.db, { name: "bench", credits: "10" });
  const { api_key } = await createApiKey(database.db, { accountId: account_id });
  const app = createApiApp({ database });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/mcp`;
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${api_key}` } } }));
  try {
    const meta = await client.listTools();
    const found = await client.callTool({ name: "discover", arguments: { query: "convert a temperature from celsius to fahrenheit", limit: 10 } });
    const cards = (found.structuredContent as { results: { tool_id: string }[] }).results;
    const inspected = await client.callTool({ name: "inspect", arguments: { tool_ids: [cards[0].tool_id] } });

    // Direct mode, as a client lists it: every page of tools/list.
    const directClient = new Client({ name: "bench", version: "1" });
    await directClient.connect(new StreamableHTTPClientTransport(new URL(`${url}?tools=direct`), { requestInit: { headers: { Authorization: `Bearer ${api_key}` } } }));
    const direct: { tools: unknown[] } = { tools: [] };
    let pages = 0;
    let cursor: string | undefined;
    do {
      const page = await directClient.listTools(cursor ? { cursor } : undefined);
      direct.tools.push(...page.tools);
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor);
    await directClient.close();

    const rows: [string, number][] = [
      [`tools/list, meta mode (${meta.tools.length} tools)`, bytes(meta)],
      [`tools/list, direct mode (${direct.tools.length} tools, ${pages} pages)`, bytes(direct)],
      ["discover answer (10 routing cards)", bytes(found)],
      ["inspect answer (1 tool)", bytes(inspected)],
    ];
    console.log(`bench:mcp — ${direct.tools.length} active tools (${path.basename(CATALOG)} and the demo catalog)\n`);
    console.log("what the client receives                          bytes      ≈ tokens");
    for (const [name, n] of rows) console.log(`${name.padEnd(48)}  ${String(n).padStart(9)}  ${String(tokens(n)).padStart(9)}`);
    console.log(`\ndirect mode / meta mode: ${(bytes(direct) / bytes(meta)).toFixed(0)}×; a discover → inspect round adds ${bytes(found) + bytes(inspected)} bytes`);
  } finally {
    await client.close();
    server.close();
    await database.close();
  }
}

main().catch((err: Error) => {
  console.error(err);
  process.exit(1);
});
