import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { seedAccount } from "../testing/fixtures";
import { importDemoCatalog } from "../testing/catalog";

/**
 * What a user of another language stack does with the published document: generate a typed client
 * with `openapi-typescript` (default options) and `openapi-fetch`, type-check a program written
 * against it in strict mode, and run it against a real server: Discover, Call, the Call's usage
 * event by `execution_id`, and its ledger row.
 */
const root = path.resolve(__dirname, "../..");
const bin = (name: string) => path.join(root, "node_modules/.bin", name);
const run = promisify(execFile);

/** The program a developer would write: every request and response typed by the generated `paths`. */
const CLIENT = `
import createClient from "openapi-fetch";
import type { paths } from "./schema";

export async function walk(baseUrl: string, apiKey: string, accessToken: string) {
  const api = createClient<paths>({ baseUrl: \`\${baseUrl}/api/v1\` });
  const key = { Authorization: \`Bearer \${apiKey}\` };
  const user = { Authorization: \`Bearer \${accessToken}\` };

  const found = await api.POST("/search", { body: { query: "compound interest on savings" }, headers: key });
  if (!found.data) throw new Error(\`search: \${found.response.status}\`);
  const toolId: string = found.data.results[0].tool_id;

  const called = await api.POST("/tools/execute", {
    params: { query: { tool_id: toolId } },
    body: { tool_id: toolId, search_id: found.data.search_id, parameters: { principal: 100, annual_rate_percent: 5, years: 2 } },
    headers: key,
  });
  if (!called.data || !called.data.execution_id) throw new Error(\`execute: \${called.response.status}\`);
  const executionId: string = called.data.execution_id;

  const usage = await api.GET("/auth/usage/history/v2", { params: { query: { execution_id: executionId, include_details: true } }, headers: user });
  if (!usage.data) throw new Error(\`usage: \${usage.response.status}\`);
  const event = usage.data.data.items[0];

  const ledgerEntryId = event.credits_ledger_entry_id;
  if (!ledgerEntryId) throw new Error("the charged Call has no ledger row");
  const entry = await api.GET("/auth/credits/ledger/{entry_id}", { params: { path: { entry_id: ledgerEntryId } }, headers: user });
  if (!entry.data) throw new Error(\`ledger: \${entry.response.status}\`);

  const refused = await api.GET("/auth/credits/ledger/{entry_id}", { params: { path: { entry_id: ledgerEntryId } }, headers: key });
  return {
    toolId,
    success: called.data.success,
    cost: called.data.cost,
    eventExecutionId: event.execution_id,
    chargeOutcome: event.charge_outcome,
    ledgerExecutionId: entry.data.data.execution_id,
    ledgerAmount: entry.data.data.amount_credits,
    refusedStatus: refused.response.status,
    // The error is a union of the operation's declared 4XX bodies: PublicApiError here, 422's detail list elsewhere.
    refusedMessage: refused.error && "message" in refused.error ? refused.error.message : undefined,
  };
}
`;

const TSCONFIG = {
  compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "ESNext", moduleResolution: "Bundler", skipLibCheck: true, types: [] },
  files: ["client.ts"],
};

let server: TestServer;
let seeded: Awaited<ReturnType<typeof seedAccount>>;
let dir: string;

beforeAll(async () => {
  const database = await createTestDatabase();
  await importDemoCatalog(database.db);
  server = await startTestServer(database);
  seeded = await seedAccount(database.db, { credits: "10" });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-client-"));
  // The generated client's imports resolve to this project's packages, as an installed dependency would.
  fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir");
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("a client generated from the OpenAPI document", () => {
  it("type-checks with openapi-typescript's defaults and runs search, execute, usage by execution_id and a ledger row", async () => {
    fs.writeFileSync(path.join(dir, "openapi.json"), await (await fetch(`${server.url}/api/v1/openapi.json`)).text());
    await run(bin("openapi-typescript"), ["openapi.json", "-o", "schema.d.ts"], { cwd: dir });
    fs.writeFileSync(path.join(dir, "client.ts"), CLIENT);
    fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG));
    const checked = await run(bin("tsc"), ["-p", "tsconfig.json"], { cwd: dir }).catch((err: { stdout: string }) => err);
    expect(checked.stdout, "tsc reports no error").toBe("");

    const { walk } = (await import(pathToFileURL(path.join(dir, "client.ts")).href)) as { walk: (u: string, k: string, t: string) => Promise<Record<string, unknown>> };
    const result = await walk(server.url, seeded.apiKey, seeded.accessToken);
    expect(result).toMatchObject({
      toolId: "builtin.finance.compound_interest",
      success: true,
      cost: 1,
      chargeOutcome: "charged",
      ledgerAmount: -1,
      refusedStatus: 401,
      refusedMessage: "This operation does not accept an API key: it takes a user's OAuth access token",
    });
    expect(result.eventExecutionId).toBe(result.ledgerExecutionId);
  }, 120_000);
});
