// Property-based fuzz of every operation in the published OpenAPI description: random valid and
// hostile requests against a real server and database. Never a 5xx, every error in a contract
// shape, and the ledger's invariants hold afterwards.
//
// FUZZ_RUNS sets the number of requests (default 400); FUZZ_SEED the seed (fixed by default, so CI
// repeats itself). A failure prints its seed and path; replay it with FUZZ_SEED=… FUZZ_PATH=….
import { beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { bearer, seedAccount } from "../testing/fixtures";
import { importDemoCatalog } from "../testing/catalog";
import { RequestArbitraries, operationsOf, type FuzzRequest, type OpenApiDocument, type Operation } from "../testing/openapi-arbitrary";
import { rows } from "../db/row-sql";
import { verifyLedger } from "../audit/verify";
import { API_BASE_PATH } from "./app";
import type { Database } from "../db/types";

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const PATH = process.env.FUZZ_PATH;

let database: Database;
let server: TestServer;
let operations: Operation[];
/** Mostly well-formed requests (they reach the database and the ledger) and hostile ones. */
let arbitraries: { clean: RequestArbitraries; hostile: RequestArbitraries };
let credentials: fc.Arbitrary<Record<string, string>>;

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  server = await startTestServer(database);
  // Several accounts, so the per-account rate limits leave most requests to reach their handlers.
  const accounts = await Promise.all(Array.from({ length: 8 }, (_, i) => seedAccount(database.db, { credits: i === 0 ? "0.5" : "40" })));
  const support = await seedAccount(database.db, { role: "support" });

  // One real Call, so ids that exist are in the pools (the fuzz reaches found-and-not-found paths).
  const call = await fetch(`${server.url}${API_BASE_PATH}/tools/execute`, {
    method: "POST",
    headers: { ...bearer(accounts[1].apiKey), "Content-Type": "application/json" },
    body: JSON.stringify({ tool_id: "builtin.finance.compound_interest", parameters: { principal: 100, annual_rate_percent: 5, years: 2 } }),
  });
  const executionId = ((await call.json()) as { execution_id: string }).execution_id;
  const ids = rows<{ event_id: string; ledger_id: string }>(
    await database.db.execute(sql`SELECT e.id AS event_id, e.credits_ledger_entry_id AS ledger_id FROM usage_events e WHERE e.execution_id = ${executionId}`),
  )[0];
  const toolIds = rows<{ id: string }>(await database.db.execute(sql`SELECT id FROM tools ORDER BY id LIMIT 12`)).map((r) => r.id);

  const doc = (await (await fetch(`${server.url}${API_BASE_PATH}/openapi.json`)).json()) as OpenApiDocument;
  operations = operationsOf(doc, API_BASE_PATH);
  const any = ["2026-11-01", "2026-11-25T10:00:00Z", "Europe/Paris", "acc_none", executionId, ...toolIds.slice(0, 3)];
  const pools = {
    byName: {
      // The compound-interest tool four times over, so Calls with its parameters reach the provider and the ledger.
      tool_id: [...Array(4).fill("builtin.finance.compound_interest"), ...toolIds],
      tool_ids: toolIds,
      execution_id: [executionId, "exe_00000000000000000000000000"],
      id: [executionId, ids.event_id, ids.ledger_id],
      event_id: [ids.event_id, "00000000-0000-0000-0000-000000000000"],
      entry_id: [ids.ledger_id],
      account_id: [accounts[2].accountId, support.accountId],
      api_key_id: ["00000000-0000-0000-0000-000000000000"],
      start_date: ["2026-11-01", "2026-11-24T00:00:00"],
      end_date: ["2026-11-30", "2026-11-26"],
      tz: ["UTC", "Asia/Shanghai", "America/New_York"],
      query: ["compound interest", "convert celsius", "天气"],
      grant_type: ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code", "urn:ietf:params:oauth:grant-type:token-exchange"],
      respond_with: ["full", "summary", "fields:$.total", "fields:$..*"],
    },
    any,
    values: { parameters: [{ principal: 100, annual_rate_percent: 5, years: 2 }, { principal: -1 }, {}], max_response_size: [-1, 0, 16, 20480] },
  };
  arbitraries = { clean: new RequestArbitraries(doc, pools, { hostile: false }), hostile: new RequestArbitraries(doc, pools, { hostile: true }) };
  const everyone = [...accounts, support];
  credentials = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...everyone).map((a) => ({ key: bearer(a.apiKey), jwt: bearer(a.accessToken) })).map((c) => ({ ...c.key, "x-jwt": c.jwt.Authorization })) },
    { weight: 1, arbitrary: fc.constantFrom<Record<string, string>>({}, { Authorization: "Bearer nope" }, { Authorization: "Basic %%%" }, { Authorization: "Bearer " + "a".repeat(5000) }) },
  );
}, 120_000);

/** Responses by operation and status (FUZZ_REPORT=1 prints them: which code the fuzz reached). */
const statuses = new Map<string, number>();

/** The contract's error shapes (section 2.8, HTTPValidationError, the Call's failure, OAuth's RFC 6749 5.2), and JSON-RPC's for MCP. */
function contractError(body: unknown): boolean {
  if (!body || typeof body !== "object") return false;
  const b = body as Record<string, unknown>;
  if (b.status === "failure" && typeof b.status_code === "number" && typeof b.message === "string") return true;
  if (Array.isArray(b.detail)) return b.detail.every((d) => d && typeof d === "object" && Array.isArray((d as { loc?: unknown }).loc) && typeof (d as { msg?: unknown }).msg === "string");
  if (b.success === false && typeof b.error_message === "string") return true;
  // The MCP endpoint speaks JSON-RPC 2.0: its errors are JSON-RPC error objects.
  if (b.jsonrpc === "2.0" && b.error && typeof (b.error as { message?: unknown }).message === "string") return true;
  return typeof b.error === "string";
}

async function send(req: FuzzRequest, security: string[]): Promise<void> {
  // Credentials arrive as an API key plus a JWT; the operation's scheme picks which one is sent.
  const headers = { ...req.headers };
  const jwt = headers["x-jwt"];
  delete headers["x-jwt"];
  if (jwt && security[0] === "OAuth2") headers.Authorization = jwt;
  let res: Response;
  try {
    res = await fetch(`${server.url}${req.url}`, { method: req.method, headers, body: req.method === "GET" ? undefined : req.body, redirect: "manual" });
  } catch (err) {
    throw new Error(`the request could not be sent (${(err as Error & { cause?: Error }).cause?.message}): ${JSON.stringify(headers)}`);
  }
  const text = await res.text();
  statuses.set(`${req.operation} ${res.status}`, (statuses.get(`${req.operation} ${res.status}`) ?? 0) + 1);
  const where = `${req.method} ${req.url} → ${res.status} ${text.slice(0, 300)}`;
  if (res.status >= 500) throw new Error(`5xx: ${where}`);
  if (res.status >= 400) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`error without a JSON body: ${where}`);
    }
    if (!contractError(body)) throw new Error(`error not in a contract shape: ${where}`);
  }
}

/**
 * Calls whose every field is valid, so the money path runs (reserve, provider, settle) under the
 * fuzz: random amounts, output shapes and idempotency keys that repeat (replays and conflicts).
 */
function validCalls(): fc.Arbitrary<{ req: FuzzRequest; op: Operation }> {
  const op = operations.find((o) => o.method === "POST" && o.path.endsWith("/tools/execute"))!;
  const parameters = fc.record({ principal: fc.integer({ min: 0, max: 1_000_000 }), annual_rate_percent: fc.integer({ min: 0, max: 30 }), years: fc.integer({ min: 1, max: 40 }) });
  const body = fc.record(
    { tool_id: fc.constant("builtin.finance.compound_interest"), parameters, respond_with: fc.constantFrom("full", "summary", "fields:$.total,$.rate"), max_response_size: fc.constantFrom(-1, 20480, 64) },
    { requiredKeys: ["tool_id", "parameters"] },
  );
  const headers = fc.record({ "idempotency-key": fc.constantFrom("k1", "k2", "k3"), "x-service-cache-mode": fc.constantFrom("default", "bypass") }, { requiredKeys: [] });
  return fc.tuple(credentials, headers, body).map(([auth, h, b]) => ({
    op,
    req: { operation: `${op.method} ${op.path}`, method: op.method, url: op.path, headers: { ...auth, ...h, "Content-Type": "application/json" }, body: JSON.stringify(b) },
  }));
}

describe("fuzz: every operation of the OpenAPI description", () => {
  it(`${RUNS} random requests: never a 5xx, every error in a contract shape, invariants intact`, async () => {
    expect(operations.length).toBeGreaterThan(30);
    const reached = new Set<string>();
    // Each operation once first (a clean request): with some 80 operations, 400 random draws would
    // miss one now and then.
    for (const op of operations) {
      const [req] = fc.sample(arbitraries.clean.request(op, credentials), { seed: SEED, numRuns: 1 });
      reached.add(req.operation);
      await send(req, op.security);
    }
    const generated = fc
      .tuple(fc.constantFrom(...operations), fc.boolean())
      .chain(([op, hostile]) => (hostile ? arbitraries.hostile : arbitraries.clean).request(op, credentials).map((req) => ({ req, op })));
    const anyRequest = fc.oneof({ weight: 9, arbitrary: generated }, { weight: 1, arbitrary: validCalls() });
    await fc.assert(
      fc.asyncProperty(anyRequest, async ({ req, op }) => {
        reached.add(req.operation);
        await send(req, op.security);
      }),
      { numRuns: RUNS, seed: SEED, path: PATH, endOnFailure: true, verbose: 1 },
    );
    // Every operation was drawn (a new operation joins the fuzz by being in the description).
    expect([...reached].sort()).toEqual(operations.map((o) => `${o.method} ${o.path}`).sort());
    if (process.env.FUZZ_REPORT) console.log([...statuses].sort().map(([k, n]) => `${k}: ${n}`).join("\n"));
    const report = await verifyLedger(database.db);
    expect(report.violations).toEqual([]);
  }, 600_000);
});
